package plan

import (
	"fmt"

	"github.com/ossie-dev/ossie/compiler"
)

// A semi-additive metric (docs/metrics.md; query-semantics.md, "Metric
// types") implements "a semi-additive measure sums across every dimension
// but its along time field: per group of the query's dimensions it sums
// the rows of each along value, then picks the sum at the latest (last)
// or earliest (first) along value of the group, or the smallest (min) or
// largest (max) of those sums". aggregatePerHome gives each such measure
// a group of its own, made by this rewrite (rwSemi), which render
// aggregates in two stages (renderSemi). It fires for every query
// computing a semi-additive metric.
//
// semiReach refuses (OSS4062) a semi-additive group whose dimensions or
// filters reach a dataset through a one-to-many hop: the per-time sums
// would then count a home row once per matching row.
func (bl *builder) semiReach(g *group) bool {
	if (g.agg.semi == nil && g.agg.conv == nil) || len(g.fan) == 0 {
		return true
	}
	kind := "semi-additive"
	if g.agg.conv != nil {
		kind = "conversion"
	}
	h := g.fan[0]
	path := "dimensions"
	if h.by.filter {
		path = "filters"
	}
	bl.fail(compiler.CodeSemiFanOut, path, fmt.Sprintf("the "+kind+" metric of dataset %s cannot be grouped or filtered by a member of %s, reached through one-to-many relationship %s", g.agg.home, h.many, h.rel))
	return false
}

// renderSemi writes the SELECT of a semi-additive group:
//
//	SELECT "z"."d0", …, <pick> AS "mK" FROM (
//	  SELECT <dims> AS "d0", …, <along> AS "t", <aggregate> AS "v",
//	         MAX(<along>) OVER (PARTITION BY <dims>) AS "hi", MIN(…) AS "lo"
//	  FROM <joins> [WHERE <dimension filters>] GROUP BY <dims>, <along>) AS "z"
//	GROUP BY <dims>
func (r *renderer) renderSemi(g *aggregate, in node, where *filter) bool {
	w := &r.sql
	sp := g.semi
	w.WriteString("SELECT ")
	first := true
	for i := range g.dims {
		w.sep(&first)
		w.WriteString(`"z".`)
		r.ident(dimCol(i))
	}
	w.sep(&first)
	switch sp.pick {
	case "last":
		w.WriteString(`MAX(CASE WHEN "z"."t" = "z"."hi" THEN "z"."v" END)`)
	case "first":
		w.WriteString(`MAX(CASE WHEN "z"."t" = "z"."lo" THEN "z"."v" END)`)
	case "min":
		w.WriteString(`MIN("z"."v")`)
	default:
		w.WriteString(`MAX("z"."v")`)
	}
	w.WriteString(" AS ")
	r.ident(g.cols[0])
	w.WriteString(" FROM (SELECT ")
	var part sqlBuilder
	for i, dm := range g.dims {
		r.dimSQL(dm)
		w.WriteString(" AS ")
		r.ident(dimCol(i))
		w.WriteString(", ")
		if i > 0 {
			part.WriteString(", ")
		}
		r.dimSQLTo(&part, dm)
	}
	over := "OVER ()"
	if len(g.dims) > 0 {
		over = "OVER (PARTITION BY " + part.String() + ")"
	}
	w.WriteString(sp.along + ` AS "t", ` + g.measures[0].sql + ` AS "v", MAX(` + sp.along + ") " + over + ` AS "hi", MIN(` + sp.along + ") " + over + ` AS "lo" FROM `)
	if !r.from(in) {
		return false
	}
	if where != nil && !r.where(where) {
		return false
	}
	r.groupBy(len(g.dims) + 1)
	w.WriteString(`) AS "z"`)
	r.groupBy(len(g.dims))
	return true
}
