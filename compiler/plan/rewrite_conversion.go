package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// conversionPlan turns mp, conversion metric m decomposed as a plain
// metric, into its one conversion measure (prepare time). The expression
// is the base (MetricFlow's base_measure): a COUNT(DISTINCT x) whose x is
// the entity, or NULL for rows outside the base; the converted count is
// the same x over the rows that converted, and the rate that over the
// base count. Other forms have no converted count (OSS2045). A metric
// over m (a derived metric) inlines this plan, so its measure is the same
// column.
func (p *Planner) conversionPlan(pr *prepared, m *compiler.ArtifactMetric, mp *metricPlan) *metricPlan {
	if mp.problem != nil || len(mp.measures) != 1 {
		return mp
	}
	ms := *mp.measures[0]
	t := m.Type
	to := strings.SplitN(t.ToEntity, ".", 2)[0]
	cs := &convSpec{to: to, entity: pr.fieldSQL[t.Entity], at: pr.fieldSQL[t.At],
		toEntity: pr.fieldSQL[t.ToEntity], toAt: pr.fieldSQL[t.ToAt], count: t.Count, unit: strings.ToUpper(t.Unit),
		counts: t.CountsConversions()}
	out := *mp
	fail := func(msg string) *metricPlan {
		out.problem = &compiler.Problem{Code: compiler.CodeMetricTypeConversion, Severity: compiler.SeverityError, Message: msg}
		return &out
	}
	if t.ToFilter != "" {
		sql, err := toFilterSQL(pr, to, t.ToFilter)
		if err != nil {
			return fail(fmt.Sprintf("conversion metric %s: to_filter: %v", m.Name, err))
		}
		cs.toFilter = sql
	}
	base, ok := distinctArg(pr, m.Expr.Node)
	if !ok {
		return fail(fmt.Sprintf("conversion metric %s: the expression must be COUNT(DISTINCT x), x the entity or a CASE giving it for the base rows (docs/metrics.md)", m.Name))
	}
	ms.conv, ms.countLike = cs, cs.counts
	converted := "COUNT(DISTINCT CASE WHEN " + cs.toEntity + " IS NOT NULL THEN " + base + " END)"
	if cs.counts {
		ms.sql = converted
		ms.key += "\x00conversions\x00" + m.Name
	} else {
		ms.sql = pr.d.Divide(converted, "COUNT(DISTINCT "+base+")")
		ms.key += "\x00conversion\x00" + m.Name
	}
	out.measures = []*measure{&ms}
	out.combiner = expr.Ref{Qualifier: measureQualifier, Name: ms.key}
	return &out
}

// toFilterSQL renders a conversion's to_filter over dataset to's alias;
// a bare name is a field of to (validation checked every name).
func toFilterSQL(pr *prepared, to, text string) (string, error) {
	node, errs := expr.Parse(text)
	if len(errs) > 0 || node == nil {
		return "", fmt.Errorf("%q does not parse", text)
	}
	return expr.Render(node, pr.d, func(r expr.Ref) (string, error) {
		q := r.Qualifier
		if q == "" {
			q = to
		}
		s, ok := pr.fieldSQL[fieldKey(q, r.Name)]
		if !ok || q != to {
			return "", fmt.Errorf("%s.%s is not a field of %s", q, r.Name, to)
		}
		return "(" + s + ")", nil
	})
}

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
// <B at> >= <A at> AND <B at> <= <A at> + count units [AND (to_filter)]`.
// The units are calendar units of the dialect's DATEADD: a month after
// January 31 is the last day of February on every engine.
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
	if cv.toFilter != "" {
		w.WriteString(" AND (" + cv.toFilter + ")")
	}
	return true
}
