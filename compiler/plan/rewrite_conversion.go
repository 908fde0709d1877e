package plan

import (
	"fmt"
	"strconv"

	"github.com/ossie-dev/ossie/compiler"
)

// conversion implements conversion metrics (docs/metrics.md;
// query-semantics.md, "Metric types"): "the share of the distinct
// entities of the metric's rows (event A) that have a row of the event-B
// dataset with the same entity at or after A's time and at most count
// units after it, per group of the query's dimensions; rows of B before A
// do not count". aggregatePerHome gives each conversion measure a group of
// its own; this rewrite puts a convJoin of the event-B dataset over the
// group's join chain. It fires for every query computing a conversion
// metric, and refuses (OSS4063) a query whose dimensions or filters read
// the event-B dataset itself: its rows would then be both a member and the
// conversion. It returns nil when it refuses.
func (bl *builder) conversion(g *group, in node, want map[string]bool) node {
	cv := g.agg.conv
	if want[cv.to] {
		bl.fail(compiler.CodeConvJoin, "dimensions", fmt.Sprintf("a conversion to %s cannot be grouped or filtered by members of %s itself", cv.to, cv.to))
		return nil
	}
	return &convJoin{origin: origin{rwConversion}, left: in, right: &scan{origin: origin{rwConversion}, dataset: cv.to}, conv: cv}
}

// convJoin writes `<left> LEFT JOIN <B> ON <B entity> = <A entity> AND
// <B at> >= <A at> AND <B at> <= <A at> + count units`.
func (r *renderer) convJoin(n *convJoin) bool {
	w := &r.sql
	if !r.from(n.left) {
		return false
	}
	cv := n.conv
	w.WriteString(" LEFT JOIN ")
	r.from(n.right)
	end, ok := r.d.Func("DATEADD", []string{cv.unit, strconv.Itoa(cv.count), cv.at})
	if !ok {
		end = "DATEADD(" + cv.unit + ", " + strconv.Itoa(cv.count) + ", " + cv.at + ")"
	}
	w.WriteString(" ON " + cv.toEntity + " = " + cv.entity + " AND " + cv.toAt + " >= " + cv.at + " AND " + cv.toAt + " <= " + end)
	return true
}
