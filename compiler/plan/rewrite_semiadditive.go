package plan

import (
	"fmt"
	"strconv"
	"strings"

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
// With `per` (docs/metrics.md, "Per entity") the pick is made for each
// entity of the group: the rows of each entity's latest (earliest)
// along value, those per-entity sums then added up across the entities
// of the group — the month-end balance of every account, also of one
// whose last snapshot came before the others'.
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

// semiPickOf is the pick of semi-additive metric type t, its fields'
// SQL read from pr.
func semiPickOf(pr *prepared, t *compiler.MetricType) *semiPick {
	sp := &semiPick{along: pr.fieldSQL[t.Along], alongName: t.Along, pick: t.Pick}
	for _, f := range t.Per {
		sp.per = append(sp.per, pr.fieldSQL[f])
		sp.perNames = append(sp.perNames, f)
	}
	return sp
}

// key tells measures of different picks apart (prepare.go's measure key).
func (sp *semiPick) key() string {
	k := "\x00semi\x00" + sp.alongName + "\x00" + sp.pick
	for _, f := range sp.perNames {
		k += "\x00per\x00" + f
	}
	return k
}

// renderSemi writes the SELECT of a semi-additive group:
//
//	SELECT "z"."d0", …, <pick> AS "mK" FROM (
//	  SELECT <dims> AS "d0", …, [<per> AS "e0", …,] <along> AS "t", <aggregate> AS "v",
//	         MAX(<along>) OVER (PARTITION BY <dims>[, <per>]) AS "hi", MIN(…) AS "lo"
//	  FROM <joins> [WHERE <dimension filters>] GROUP BY <dims>, [<per>,] <along>) AS "z"
//	GROUP BY <dims>
//
// Without per, "hi" is the group's latest along value and the one sum
// there is picked (MAX of one value); with per, "hi" is each entity's
// latest and the picked sums of the entities are added (SUM): the
// metric's SUM or COUNT over the picked rows.
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
	combine := "MAX"
	if len(sp.per) > 0 {
		combine = "SUM"
	}
	switch sp.pick {
	case "last":
		w.WriteString(combine + `(CASE WHEN "z"."t" = "z"."hi" THEN "z"."v" END)`)
	case "first":
		w.WriteString(combine + `(CASE WHEN "z"."t" = "z"."lo" THEN "z"."v" END)`)
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
	for i, e := range sp.per {
		w.WriteString(e + " AS ")
		r.ident(perCol(i))
		w.WriteString(", ")
		if part.Len() > 0 {
			part.WriteString(", ")
		}
		part.WriteString(e)
	}
	over := "OVER ()"
	if part.Len() > 0 {
		over = "OVER (PARTITION BY " + part.String() + ")"
	}
	w.WriteString(sp.along + ` AS "t", ` + g.measures[0].sql + ` AS "v", MAX(` + sp.along + ") " + over + ` AS "hi", MIN(` + sp.along + ") " + over + ` AS "lo" FROM `)
	if !r.from(in) {
		return false
	}
	if where != nil && !r.where(where) {
		return false
	}
	r.groupBy(len(g.dims) + len(sp.per) + 1)
	w.WriteString(`) AS "z"`)
	r.groupBy(len(g.dims))
	return true
}

// explain is EXPLAIN's account of the pick of a group of home rows.
func (sp *semiPick) explain(home string) string {
	if len(sp.perNames) > 0 {
		at := map[string]string{"last": "latest", "first": "earliest"}[sp.pick]
		per := strings.Join(sp.perNames, ", ")
		return "sums " + home + " rows per " + per + " and " + sp.alongName + " value within each group, takes for each " + per + " the sum at its " + at + " " + sp.alongName + ", then adds those up across " + per
	}
	pick := map[string]string{"last": "the sum at the latest " + sp.alongName, "first": "the sum at the earliest " + sp.alongName, "min": "the smallest of those sums", "max": "the largest of those sums"}[sp.pick]
	return "sums " + home + " rows per " + sp.alongName + " value within each group, then takes " + pick
}

// rollupWhy is why no rollup answers semi-additive metric name
// (docs/rollups.md): a rollup keeps sums per group of its dimensions, and
// the latest value of each group (of each entity, with per) is not made
// of those sums unless the rollup kept every along value and entity —
// which compile refuses to promise (OSS2054).
func (sp *semiPick) rollupWhy(name string) string {
	what := "the sum at one " + sp.alongName + " value of each group"
	if len(sp.perNames) > 0 {
		what = "the " + map[string]string{"last": "latest", "first": "earliest"}[sp.pick] + " row per " + strings.Join(sp.perNames, ", ")
	}
	return "metric " + name + " is semi-additive (" + what + "), which cannot be re-aggregated from a rollup's partial results (OSS2054)"
}

// perCol names the column of a semi-additive pick's i-th per field.
func perCol(i int) string { return "e" + strconv.Itoa(i) }
