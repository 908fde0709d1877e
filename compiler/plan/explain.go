package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Explain prints the logical plan the SQL was rendered from as an
// indented tree, root first, one node per line:
//
//	<operator>  [<rewrite>: <why it fired>]
//
// with the children of a node indented under it (a join's left input
// first, then the dataset it joins). Lines starting with "·" under a node
// say how a rewrite changed one of the node's expressions (a mask, the
// query time zone). The text is for people: its wording may change
// between versions. "" for a Plan not made by a Planner.
func (pl *Plan) Explain() string {
	if pl == nil || pl.tree == nil {
		return ""
	}
	e := &explainer{}
	e.walk(pl.tree, 0)
	e.rollupNotes(pl.rollups)
	return e.String()
}

type explainer struct {
	strings.Builder
	proj *project // the projection, for which metrics a measure serves
}

func (e *explainer) line(depth int, what, rewrite, why string) {
	e.WriteString(strings.Repeat("  ", depth))
	e.WriteString(what)
	e.WriteString("  [")
	e.WriteString(rewrite)
	e.WriteString(": ")
	e.WriteString(why)
	e.WriteString("]\n")
}

// walk prints n at depth and its inputs under it, one method per kind of
// node.
func (e *explainer) walk(n node, depth int) {
	switch n := n.(type) {
	case *limit:
		e.explainLimit(n, depth)
	case *sortNode:
		e.explainSort(n, depth)
	case *filter:
		e.explainFilter(n, depth)
	case *window:
		e.explainWindow(n, depth)
	case *project:
		e.explainProject(n, depth)
	case *combine:
		e.explainCombine(n, depth)
	case *aggregate:
		e.explainAggregate(n, depth)
	case *distinct:
		e.explainDistinct(n, depth)
	case *keyJoin:
		e.line(depth, "join "+n.left.home+" on its primary key", n.rewrite, "each "+n.left.home+" row, once per group, for the measures to aggregate")
	case *convJoin:
		e.explainConvJoin(n, depth)
	case *join:
		e.explainJoin(n, depth)
	case *compare:
		e.explainCompare(n, depth)
		return // its branches are walked under their range lines
	case *scan:
		e.line(depth, "scan "+n.dataset, n.rewrite, "every row of dataset "+n.dataset)
	case *rollupScan:
		e.line(depth, "scan rollup "+n.use.r.Name+" ("+strings.Join(n.use.state.Table, ".")+")", n.rewrite, rollupFresh(n.use))
	case *rowFilter:
		e.line(depth, "scan "+n.dataset+" with row filters", n.rewrite,
			fmt.Sprintf("the caller's roles restrict %s (%d alternative(s), ORed): it is read narrowed wherever the query reads it", n.dataset, len(n.alts)))
	}
	for _, in := range n.inputs() {
		e.walk(in, depth+1)
	}
}

// explainLimit prints the query's limit and offset.
func (e *explainer) explainLimit(n *limit, depth int) {
	what := "limit " + fmt.Sprint(n.n)
	if n.n < 0 {
		what = "limit none"
	}
	if n.offset > 0 {
		what += fmt.Sprintf(" offset %d", n.offset)
	}
	e.line(depth, what, n.rewrite, "the query's limit and offset, applied after ordering")
}

// explainSort prints the ordering: keys asked for, then the tie-breaking dimensions.
func (e *explainer) explainSort(n *sortNode, depth int) {
	var keys, asked, ties []string
	for _, k := range n.keys {
		dir := "asc"
		if k.desc {
			dir = "desc"
		}
		keys = append(keys, k.col+" "+dir)
		if k.tieBreak {
			ties = append(ties, k.col)
		} else {
			asked = append(asked, k.col)
		}
	}
	var why []string
	if len(asked) > 0 {
		why = append(why, "order_by "+strings.Join(asked, ", "))
	}
	if len(ties) > 0 {
		why = append(why, "then the other selected dimensions ("+strings.Join(ties, ", ")+") so the same query always returns rows in the same order")
	}
	e.line(depth, "sort "+strings.Join(keys, ", ")+", nulls last", n.rewrite, strings.Join(why, "; "))
}

// explainFilter prints a filter on metrics (after combining) or on dimensions (before aggregation), with how each dimension filtered was computed.
func (e *explainer) explainFilter(n *filter, depth int) {
	if len(n.metrics) > 0 {
		var preds []string
		for _, f := range n.metrics {
			preds = append(preds, describePred(f.metric, f.op, f.val))
		}
		e.line(depth, "filter "+strings.Join(preds, " and "), n.rewrite, "filters on metrics apply to their values at the query grain, after the groups are combined")
	} else {
		var preds []string
		for _, f := range n.dims {
			preds = append(preds, describePred(f.dm.name, f.op, f.val))
		}
		why := "dimension filters restrict the home dataset's rows before aggregation"
		if n.rewrite == rwRollup {
			why = "dimension filters restrict the rollup's rows, on its columns, before they are re-aggregated"
		}
		e.line(depth, "filter "+strings.Join(preds, " and "), n.rewrite, why)
		for _, f := range n.dims {
			e.dimNotes(depth+1, f.dm, "filter on ")
		}
	}
}

// explainWindow prints the typed metrics' window along the time dimension, its spine, and what is computed from the windowed values.
func (e *explainer) explainWindow(n *window, depth int) {
	tm := n.input.dims[n.time]
	var ms []string
	for _, m := range n.metrics {
		d := describeFrame(n.frames[m.name], tm.grain)
		if m.mp.over != "" {
			d += " of " + m.mp.over
		}
		ms = append(ms, m.name+" = "+d)
	}
	why := "typed metrics, over a time spine of every " + string(tm.grain) + " from the first to the last with rows"
	if spans(n) {
		why += " or in the date range"
	}
	why += ", per group of the other dimensions"
	if len(n.after) > 0 {
		var preds []string
		for _, f := range n.after {
			preds = append(preds, describePred(tm.name, f.op, f.val))
		}
		why += "; periods returned where " + strings.Join(preds, " and ") + " (applied after the window, so its history is whole)"
	}
	var post []string
	for _, m := range n.input.metrics {
		if m.mp.post != nil {
			post = append(post, m.name+" = "+strings.Join(m.mp.post.deps, ", ")+" combined")
		}
	}
	if len(post) > 0 {
		why += "; then, from the windowed values of each period, " + strings.Join(post, ", ")
	}
	e.line(depth, "window along "+tm.name+": "+strings.Join(ms, ", "), n.rewrite, why)
}

// explainProject prints the columns returned and the metrics computed but hidden.
func (e *explainer) explainProject(n *project, depth int) {
	e.proj = n
	var cols, hidden []string
	for _, dm := range n.dims {
		cols = append(cols, dm.name)
	}
	for _, m := range n.metrics {
		if m.visible {
			cols = append(cols, m.name)
		} else {
			hidden = append(hidden, m.name)
		}
	}
	why := "metrics are computed from their measures at the query grain, so ratios are never averaged"
	if len(hidden) > 0 {
		why += "; " + strings.Join(hidden, ", ") + " computed but not returned (named by a filter or order_by only)"
	}
	e.line(depth, "project "+strings.Join(cols, ", "), n.rewrite, why)
}

// explainCombine prints how the home datasets' groups make one answer.
func (e *explainer) explainCombine(n *combine, depth int) {
	homes := make([]string, len(n.groups))
	for i, g := range n.groups {
		homes[i] = g.alias + " at " + g.home
	}
	var what, why string
	switch n.mode {
	case combineOne:
		what, why = "combine "+homes[0], "every measure has home dataset "+n.groups[0].home+": its group is the answer"
	case combineCross:
		what, why = "combine "+strings.Join(homes, " × "), fmt.Sprintf("%d home datasets and no dimensions: one row each, side by side", len(n.groups))
	default:
		what = "combine " + strings.Join(homes, ", ") + " stacked, grouped on the dimensions"
		why = fmt.Sprintf("%d home datasets: stacked with UNION ALL and grouped on the dimensions, so a member present in one of them only (or a NULL member) is kept, never lost to a join (chasm trap)", len(n.groups))
	}
	e.line(depth, what, n.rewrite, why)
}

// explainAggregate prints one home dataset's GROUP BY (or a rollup's, or a semi-additive one), with how each dimension was computed.
func (e *explainer) explainAggregate(n *aggregate, depth int) {
	what := "aggregate " + n.alias + " at " + n.home
	if len(n.dims) > 0 {
		what += " by " + strings.Join(names(n.dims), ", ")
	}
	why := "measures of " + strings.Join(e.servedMetrics(n), ", ") + " read " + n.home + " rows; every measure with this home shares one GROUP BY"
	if len(n.measures) == 0 {
		why = "no metric: the distinct members present in " + n.home + " rows, which reach every other member's dataset by many-to-one hops"
	}
	if n.keyed {
		why += "; the dimensions come from the distinct below"
	}
	if n.rollup != nil {
		what = "aggregate " + n.alias + " from rollup " + n.rollup.r.Name
		if len(n.dims) > 0 {
			what += " by " + strings.Join(names(n.dims), ", ")
		}
		why = rollupWhy(n)
	}
	if n.semi != nil {
		why = strings.Join(e.servedMetrics(n), ", ") + ": " + n.semi.explain(n.home)
	}
	e.line(depth, what, n.rewrite, why)
	if !n.keyed {
		for _, dm := range n.dims {
			e.dimNotes(depth+1, dm, "dimension ")
		}
	}
}

// explainDistinct prints the fan-out dedup on the home's primary key and the hops that made it necessary.
func (e *explainer) explainDistinct(n *distinct, depth int) {
	hops := make([]string, len(n.fan))
	for i, f := range n.fan {
		hops[i] = fmt.Sprintf("%s is reached through one-to-many %s → %s (%s)", describeMember(f.by), f.one, f.many, f.rel)
	}
	e.line(depth, fmt.Sprintf("distinct on %s primary key (%s)", n.home, strings.Join(n.key, ", ")), n.rewrite,
		"distinct on "+n.home+" primary key: "+strings.Join(hops, "; ")+", so each "+n.home+" row counts once per group")
	for _, dm := range n.dims {
		e.dimNotes(depth+1, dm, "dimension ")
	}
}

// explainConvJoin prints the conversion join of event B and its window.
func (e *explainer) explainConvJoin(n *convJoin, depth int) {
	what, why := "", "an entity converts when "+n.conv.to+" has a row for it at or after the row's time and within the window; earlier rows do not count"
	if n.conv.toFilter != "" {
		what, why = ", rows meeting to_filter only", why+"; a row failing the metric's to_filter is no conversion"
	}
	if n.conv.counts {
		why += "; the metric counts the entities that convert (calculation: conversions)"
	}
	e.line(depth, "left join "+n.conv.to+" on the entity, within "+strconv.Itoa(n.conv.count)+" "+strings.ToLower(n.conv.unit)+"(s) after each row"+what, n.rewrite, why)
}

// explainJoin prints one hop of a join path: its direction, why it is needed, and its alias.
func (e *explainer) explainJoin(n *join, depth int) {
	kind := "many-to-one " + n.rel.From + " → " + n.rel.To
	effect := "rows do not repeat"
	if !n.toOne {
		kind = "one-to-many " + n.rel.To + " → " + n.rel.From
		effect = "rows repeat, so a distinct on the home's primary key comes first"
	}
	need := "a measure reads it"
	if n.by.dm != nil {
		need = describeMember(n.by) + " reads it"
	}
	join := "left join "
	if n.inner {
		join = "join "
		effect += "; a row reaching no " + n.dataset + " row has no member of the dimensions behind this hop and is in none of their groups (not in their NULL group)"
	}
	if n.chosen != "" {
		effect += "; " + n.rel.Name + " chosen of several paths by " + n.chosen
	}
	target := n.dataset
	if n.path != nil && n.path.alias != n.dataset {
		target += " as " + n.path.alias
		effect += "; " + n.dataset + " is also joined along another path, so this path has its own alias"
	}
	e.line(depth, join+target+" along "+n.rel.Name+" ("+kind+")", n.rewrite, need+"; "+effect)
}

// explainCompare prints the compared date ranges, each branch walked under its range.
func (e *explainer) explainCompare(n *compare, depth int) {
	e.line(depth, "compare date ranges of "+n.field+": "+strings.Join(n.labels, "; "), n.rewrite,
		"each range answered as the query with in_date_range on "+n.field+" (a window keeps its history before the range), rows labelled compare_date_range, stacked in the order of the ranges")
	for j, b := range n.branches {
		e.line(depth+1, "range "+n.labels[j], n.rewrite, "the query with "+n.field+" in "+n.labels[j])
		e.walk(b, depth+2)
	}
}

// dimNotes prints how rewrites changed the computation of dm.
func (e *explainer) dimNotes(depth int, dm *dim, kind string) {
	if dm.masked != nil {
		e.line(depth, "· "+kind+dm.name+" masked ("+string(dm.masked.Mask)+")", rwGovernance, "the caller's roles show this field masked; its values come out as text")
	}
	if dm.storedZone != "" && dm.zone != "" {
		e.line(depth, "· "+kind+dm.name+" stored in "+dm.storedZone+", in time zone "+dm.zone, rwStoredZone, dm.ds+"."+dm.field+" is a naive DateTime holding instants in "+dm.storedZone+": read there, converted to wall time in the query time zone before truncation and filtering")
	} else if dm.zone != "" {
		e.line(depth, "· "+kind+dm.name+" in time zone "+dm.zone, rwTimezone, dm.ds+"."+dm.field+" is a DateTimeTz: converted to wall time in the query time zone before truncation and filtering")
	}
}

// servedMetrics names the metrics whose measures g computes.
func (e *explainer) servedMetrics(g *aggregate) []string {
	var out []string
	if e.proj == nil {
		return out
	}
	for _, m := range e.proj.metrics {
		for _, ms := range m.mp.measures {
			if ms.home == g.home && hasMeasure(g.measures, ms.key) && !contains(out, m.name) {
				out = append(out, m.name)
			}
		}
	}
	return out
}

func describeMember(m member) string {
	if m.filter {
		return "filter on " + m.dm.name
	}
	return "dimension " + m.dm.name
}

func describePred(x, op string, vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%v", v)
	}
	switch len(vals) {
	case 0:
		return x + " " + op
	case 1:
		return x + " " + op + " " + parts[0]
	}
	return x + " " + op + " (" + strings.Join(parts, ", ") + ")"
}

// comparedWith words a period-over-period output against the earlier value prev.
func comparedWith(prev, output string) string {
	switch output {
	case "difference":
		return "current minus " + prev
	case "ratio":
		return "current / " + prev
	}
	return prev
}

// describeFrame words a window frame for EXPLAIN.
func describeFrame(fr frame, g dialect.Grain) string {
	switch {
	case fr.fine != "":
		unit := fr.unit
		if fr.count != 1 {
			unit += "s"
		}
		return fmt.Sprintf("sum of the %d %s before each %s's end, from %s values of the query planned at %s grain (not a whole number of %s periods)", fr.count, unit, g, fr.fine, fr.fine, g)
	case fr.yearAgo && g == dialect.Week:
		return comparedWith("value of the same ISO week number a year earlier (none for week 53 when the prior ISO year has 52)", fr.output)
	case fr.yearAgo && g == dialect.Hour:
		return comparedWith("value of the same date and hour a year earlier", fr.output)
	case fr.yearAgo:
		return comparedWith("value of the same date a year earlier", fr.output)
	case fr.lag > 0:
		return comparedWith(fmt.Sprintf("value %d %s back", fr.lag, g), fr.output)
	case fr.preceding < 0 && fr.reset != "":
		return fmt.Sprintf("running sum, restarting each %s (%s-to-date)", fr.reset, fr.reset)
	case fr.preceding < 0:
		return "running sum over all periods"
	}
	return fmt.Sprintf("sum of the last %d %s periods", fr.preceding+1, g)
}
