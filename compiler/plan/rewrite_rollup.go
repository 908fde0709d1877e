package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// rollupNote is EXPLAIN's line about one declared rollup: used, or the
// first reason it could not answer.
type rollupNote struct {
	name string
	used bool
	why  string
	// scope is the compared date range the decision was made for (a
	// branch of compare_date_range); "" for the whole query.
	scope string
}

// rollupUse is how a query is answered from one rollup: the state it was
// built in, and for each query dimension and dimension filter the column
// holding it and the grain to truncate that column to ("" none).
type rollupUse struct {
	r       *compiler.ArtifactRollup
	state   *RollupState
	dims    []rollupValue // per bound dims
	filters []rollupValue // per bound filters
	// measures re-aggregate each measure key (rollupPrep.measures).
	measures map[string]string
	// rows are the caller's row filters of home ("" when it is not
	// restricted), read on the rollup's columns (cols: "dataset.field" →
	// column).
	home string
	rows [][]compiler.ArtifactRowFilter
	cols map[string]string
}

type rollupValue struct {
	col   string
	grain dialect.Grain
}

// rollupPrep is what one rollup offers a dialect: for each measure key
// (home + rendered aggregate, as prepare.go makes them) the SQL
// re-aggregating it from the rollup's rows (alias "r").
type rollupPrep struct {
	measures map[string]string
	// homes are the home datasets of the rollup's measures, sorted.
	homes []string
}

// rollupUsed is the name of the rollup answering b, or "".
func (b *bound) rollupUsed() string {
	for _, n := range b.rollups {
		if n.used {
			return n.name
		}
	}
	return ""
}

// rollup implements the rollup substitution (docs/rollups.md, "When the
// planner uses a rollup"): "a query is answered from a rollup only when
// the answer is provably the base tables' — its dimensions and filters
// covered at a grain that nests in the rollup's, no rollup dimension
// behind a one-to-many hop it does not group by, every measure
// re-aggregatable from the rollup's partials, the caller's row filters
// and masks applicable on the rollup's columns, and the rollup fresh for
// this artifact version under its refresh policy". It fires when the
// model declares rollups: each gets a note (used, or its first reason not
// to be), and when some rollup fits, the one with the fewest columns
// replaces every group by one aggregate re-aggregating its rows, under
// the same projection, windows, metric filters, order and limit.
func (bl *builder) rollup() {
	art := bl.p.art
	if len(art.Rollups) == 0 {
		return
	}
	states := bl.p.rollupStates()
	preps := bl.p.rollupPreps(bl.b.pr)
	var best *rollupUse
	notes := make([]rollupNote, len(art.Rollups))
	for i := range art.Rollups {
		r := &art.Rollups[i]
		use, why := bl.rollupFits(r, &preps[i], states[r.Name])
		notes[i] = rollupNote{name: r.Name, why: why}
		if use != nil && (best == nil || len(r.Columns) < len(best.r.Columns)) {
			best = use
		}
	}
	if best == nil {
		bl.b.rollups = notes
		return
	}
	for i := range notes {
		switch {
		case notes[i].name == best.r.Name:
			notes[i].used = true
		case notes[i].why == "":
			notes[i].why = "rollup " + best.r.Name + " answers too, from no more columns"
		}
	}
	bl.b.rollups = notes
	bl.substitute(best)
}

// substitute replaces the groups by one aggregate over use's rollup.
func (bl *builder) substitute(use *rollupUse) {
	b := bl.b
	agg := &aggregate{origin: origin{rwRollup}, home: bl.groups[0].agg.home, alias: groupAlias(0), dims: b.dims, rollup: use}
	for _, m := range b.metrics {
		for _, ms := range m.mp.measures {
			if !hasMeasure(agg.measures, ms.key) {
				agg.measures = append(agg.measures, ms)
				agg.cols = append(agg.cols, measureCol(len(agg.cols)))
			}
		}
	}
	var in node = &rollupScan{origin: origin{rwRollup}, use: use}
	if len(b.filters) > 0 {
		in = &filter{origin: origin{rwRollup}, input: in, dims: b.filters}
	}
	agg.input = in
	bl.groups = []*group{{agg: agg}}
}

// rollupFits returns how r answers the query, or the first reason it
// cannot (the order of docs/rollups.md).
func (bl *builder) rollupFits(r *compiler.ArtifactRollup, prep *rollupPrep, st *RollupState) (*rollupUse, string) {
	b := bl.b
	if len(b.metrics) == 0 {
		return nil, "a query without metrics lists its members from the base tables"
	}
	if b.loc.String() != "UTC" {
		for _, dm := range bl.members() {
			if dm.f.Datatype == ossie.TypeDateTime || dm.f.Datatype == ossie.TypeDateTimeTz {
				return nil, fmt.Sprintf("the query's time zone %s is not UTC, the zone of the rollup's times (%s reads a time)", b.loc, dm.name)
			}
		}
	}
	use := &rollupUse{r: r, state: st, measures: prep.measures, dims: make([]rollupValue, len(b.dims)), filters: make([]rollupValue, len(b.filters))}
	for i, dm := range b.dims {
		v, why := covered(r, dm)
		if why != "" {
			return nil, "dimension " + dm.name + " " + why
		}
		use.dims[i] = v
	}
	for i, f := range b.filters {
		if v, ok := alignedTimeFilter(r, f, b.now, b.loc); ok {
			use.filters[i] = v
			continue
		}
		v, why := covered(r, f.dm)
		if why != "" {
			return nil, "filter on " + f.dm.name + " " + why
		}
		use.filters[i] = v
	}
	homes := map[string]bool{}
	for _, g := range bl.groups {
		homes[g.agg.home] = true
	}
	if why := bl.hiddenFanOut(r, homes); why != "" {
		return nil, why
	}
	for _, m := range b.metrics {
		for _, ms := range m.mp.measures {
			if _, ok := prep.measures[ms.key]; !ok {
				if ms.semi != nil {
					return nil, ms.semi.rollupWhy(m.name)
				}
				if !contains(r.Metrics, m.name) {
					return nil, "metric " + m.name + " is not in the rollup"
				}
				return nil, "metric " + m.name + ": its aggregate " + ms.sql + " is not re-aggregatable from the rollup"
			}
		}
	}
	if len(prep.homes) > 1 && len(homes) != len(prep.homes) {
		// Its rows are the groups of every home: a group of another home
		// only would be an extra row of the answer.
		return nil, "the rollup holds groups of " + strings.Join(prep.homes, ", ") + " rows; the query's measures read fewer datasets, so its groups are not the rollup's"
	}
	if why := bl.rollupRows(r, use, homes); why != "" {
		return nil, why
	}
	if why := stale(bl.p.art, r, st, b.now); why != "" {
		return nil, why
	}
	return use, ""
}

// members are the query's dimensions and filter targets.
func (bl *builder) members() []*dim {
	out := append([]*dim{}, bl.b.dims...)
	for _, f := range bl.b.filters {
		out = append(out, f.dm)
	}
	return out
}

// covered says which column of r holds dm and the grain to truncate it
// to, or why none does ("is not in the rollup", …).
func covered(r *compiler.ArtifactRollup, dm *dim) (rollupValue, string) {
	key := fieldKey(dm.ds, dm.field)
	c := r.GroupColumn(key)
	switch {
	case c == nil:
		return rollupValue{}, "is not in the rollup"
	case dm.via != "":
		return rollupValue{}, "is joined via " + dm.via + "; the rollup joins it by the model's path"
	case c.Grain == "":
		// Kept as it is: any grain truncates it as it truncates the field.
		return rollupValue{col: c.Name, grain: dm.grain}, ""
	case dm.grain == "" && c.Grain == "day" && dm.f.Datatype == ossie.TypeDate && dm.mask == nil:
		return rollupValue{col: c.Name}, "" // a date is its own day
	case dm.grain == "":
		return rollupValue{}, "has no grain; the rollup keeps " + key + " by " + c.Grain + " only"
	case dm.weekStart == "sunday" && c.Grain != "hour" && c.Grain != "day":
		return rollupValue{}, "is by weeks from Sunday, which do not nest in the rollup's " + c.Grain
	case !compiler.GrainNests(c.Grain, string(dm.grain)):
		return rollupValue{}, "is by " + string(dm.grain) + ", which does not nest in the rollup's " + c.Grain
	case string(dm.grain) == c.Grain && dm.weekStart == "":
		return rollupValue{col: c.Name}, ""
	}
	return rollupValue{col: c.Name, grain: dm.grain}, ""
}

// hiddenFanOut: a rollup dimension reached from a measure's home dataset
// through a one-to-many hop holds each home row once per member, so the
// rollup's rows add up to the query's only when the query groups by it.
func (bl *builder) hiddenFanOut(r *compiler.ArtifactRollup, homes map[string]bool) string {
	for _, c := range r.Columns {
		if c.Member == "" {
			continue
		}
		ds, _, _ := strings.Cut(c.Member, ".")
		grouped := false
		for _, dm := range bl.b.dims {
			grouped = grouped || (fieldKey(dm.ds, dm.field) == c.Member && dm.grain == dialect.Grain(c.Grain))
		}
		if grouped {
			continue
		}
		for home := range homes {
			hops, _ := bl.p.tree(home)
			if _, ok := hops[ds]; !ok {
				continue
			}
			for cur := ds; cur != home; cur = hops[cur].parent {
				if h := hops[cur]; !h.via.toOne {
					return fmt.Sprintf("rollup dimension %s is reached from %s through one-to-many %s, so its rows repeat %s rows; the query must group by it", c.Member, home, h.via.rel.Name, home)
				}
			}
		}
	}
	return ""
}

// rollupRows checks the caller's row filters: one on a dataset the query
// reads applies on the rollup's columns only when that dataset is the
// home of every measure and the filter reads only its fields the rollup
// keeps as they are.
func (bl *builder) rollupRows(r *compiler.ArtifactRollup, use *rollupUse, homes map[string]bool) string {
	pol := bl.b.pol
	if pol == nil || len(pol.rows) == 0 {
		return ""
	}
	reads := map[string]bool{}
	for _, g := range bl.groups {
		for ds := range g.need {
			reads[ds] = true
		}
		for ds := range g.reads {
			reads[ds] = true
		}
		reads[g.agg.home] = true
	}
	for ds := range reads {
		alts, restricted := pol.rows[ds]
		if !restricted {
			continue
		}
		cant := fmt.Sprintf("the caller's row filter on %s cannot be applied on the rollup's columns", ds)
		if len(homes) != 1 || !homes[ds] {
			return cant + " (" + ds + " is not the home of every measure)"
		}
		cols := map[string]string{}
		for _, alt := range alts {
			for _, rf := range alt {
				for _, ref := range expr.Refs(rf.Expr.Node) {
					if ref.Qualifier == compiler.CallerQualifier {
						continue
					}
					key := fieldKey(ref.Qualifier, ref.Name)
					c := r.GroupColumn(key)
					if ref.Qualifier != ds || c == nil || c.Grain != "" {
						return cant + " (it reads " + key + ", which the rollup does not keep as it is)"
					}
					cols[key] = c.Name
				}
			}
		}
		use.home, use.rows, use.cols = ds, alts, cols
	}
	return ""
}

// rollupPreps returns, per rollup of the artifact, the re-aggregation of
// its measures in the dialect of pr, computed once per dialect.
func (p *Planner) rollupPreps(pr *prepared) []rollupPrep {
	p.mu.Lock()
	out, ok := p.rollupCache[pr.d.Name()]
	p.mu.Unlock()
	if ok {
		return out
	}
	d := pr.d
	col := func(c string) string { return `"r".` + d.QuoteIdent(c) }
	out = make([]rollupPrep, len(p.art.Rollups))
	for i := range p.art.Rollups {
		r := &p.art.Rollups[i]
		out[i].measures = map[string]string{}
		keys := make([]*measure, len(r.Measures))
		counts := make([]bool, len(r.Measures))
		for j, rm := range r.Measures {
			m := p.art.Metric(rm.Metric)
			f, isAgg := aggregateCall(rm.Aggregate.Node)
			if m == nil || !isAgg {
				continue
			}
			counts[j] = strings.EqualFold(f.Name, "COUNT")
			if ms, err := p.measureOf(pr, m, f); err == nil { // else the metric is refused when queried
				keys[j] = ms
				if !contains(out[i].homes, ms.home) {
					out[i].homes = append(out[i].homes, ms.home)
				}
			}
		}
		sort.Strings(out[i].homes)
		for j, rm := range r.Measures {
			ms := keys[j]
			if ms == nil || (rm.Reaggregate == compiler.ReaggCountDistinct && len(out[i].homes) > 1) {
				// A kept key also holds the members of the other homes' rows.
				continue
			}
			var sql string
			switch rm.Reaggregate {
			case compiler.ReaggSum:
				sql = "SUM(" + col(rm.Columns[0]) + ")"
				if counts[j] {
					// A count is BIGINT on every engine; the SUM of its
					// partials is NUMERIC on PostgreSQL and HUGEINT on
					// DuckDB, which would change the answer's type.
					sql = "CAST(" + sql + " AS " + d.TypeName("BIGINT") + ")"
				}
			case compiler.ReaggMin:
				sql = "MIN(" + col(rm.Columns[0]) + ")"
			case compiler.ReaggMax:
				sql = "MAX(" + col(rm.Columns[0]) + ")"
			case compiler.ReaggAvg:
				sql = d.Divide("SUM("+col(rm.Columns[0])+")", "SUM("+col(rm.Columns[1])+")")
			case compiler.ReaggCountDistinct:
				sql = "COUNT(DISTINCT " + col(rm.Columns[0]) + ")"
			default:
				continue
			}
			out[i].measures[ms.key] = sql
		}
	}
	p.mu.Lock()
	if p.rollupCache == nil {
		p.rollupCache = map[string][]rollupPrep{}
	}
	p.rollupCache[pr.d.Name()] = out
	p.mu.Unlock()
	return out
}

// builtAt words a state's build time for EXPLAIN.
func builtAt(st *RollupState) string {
	return st.BuiltAt.UTC().Format(time.RFC3339)
}

// rollupWhy words, for EXPLAIN, why an aggregate reads a rollup.
func rollupWhy(g *aggregate) string {
	var parts []string
	for i, v := range g.rollup.dims {
		s := g.dims[i].name + " from " + v.col
		if v.grain != "" {
			s += " truncated to " + string(v.grain)
		}
		parts = append(parts, s)
	}
	why := "every dimension, filter and measure is covered by rollup " + g.rollup.r.Name + ", so its rows re-aggregate to the base tables' answer"
	if len(parts) > 0 {
		why += ": " + strings.Join(parts, ", ")
	}
	if g.rollup.home != "" {
		why += "; the caller's row filter on " + g.rollup.home + " applies on its columns"
	}
	return why
}

// rollupFresh words, for EXPLAIN, why a rollup's rows are current.
func rollupFresh(u *rollupUse) string {
	why := "built " + builtAt(u.state) + " for this artifact version, fresh under its " + u.r.Refresh.Mode + " refresh"
	if u.r.Refresh.Every != "" {
		why += " (every " + u.r.Refresh.Every + ")"
	}
	if u.state.Watermark != nil {
		why += "; rows up to " + u.state.Watermark.UTC().Format(time.RFC3339)
	}
	return why
}

// rollupNotes ends EXPLAIN with one line per declared rollup.
func (e *explainer) rollupNotes(notes []rollupNote) {
	for _, n := range notes {
		e.WriteString("rollup " + n.name)
		if n.scope != "" {
			e.WriteString(" (date range " + n.scope + ")")
		}
		if n.used {
			e.WriteString(": used\n")
		} else {
			e.WriteString(": " + n.why + "\n")
		}
	}
}

// alignedTimeFilter: a filter on a time field without grain (a date range,
// compare_date_range's branches) is still exact on a rollup column truncated
// to grain g when the range's ends fall on g's boundaries: then t ≥ start
// ⟺ trunc_g(t) ≥ start and t < end ⟺ trunc_g(t) < end. So in_date_range
// and between with date ends (a date end includes its day, so the range
// ends at the next midnight), gte and lt with one date value qualify; gt,
// lte and timestamp ends do not. The caller has already checked the query
// zone is UTC, the zone the rollup's times are truncated in.
func alignedTimeFilter(r *compiler.ArtifactRollup, f dimFilter, now time.Time, loc *time.Location) (rollupValue, bool) {
	dm := f.dm
	if dm.grain != "" || dm.via != "" || dm.mask != nil {
		return rollupValue{}, false
	}
	c := r.GroupColumn(fieldKey(dm.ds, dm.field))
	if c == nil || c.Grain == "" {
		return rollupValue{}, false
	}
	var bounds []string
	switch f.op {
	case "in_date_range", "between":
		start, end, err := rangeEnds(f.val, now, loc)
		if err != nil || !dateRe.MatchString(end) {
			return rollupValue{}, false
		}
		e, err := time.Parse("2006-01-02", end)
		if err != nil {
			return rollupValue{}, false
		}
		bounds = []string{start, e.AddDate(0, 0, 1).Format("2006-01-02")}
	case "gte", "lt":
		if len(f.val) != 1 {
			return rollupValue{}, false
		}
		v, _ := f.val[0].(string)
		bounds = []string{v}
	default:
		return rollupValue{}, false
	}
	for _, b := range bounds {
		if !dateRe.MatchString(b) {
			return rollupValue{}, false
		}
		t, err := time.Parse("2006-01-02", b)
		if err != nil || !onGrainBoundary(t, c.Grain) {
			return rollupValue{}, false
		}
	}
	return rollupValue{col: c.Name}, true
}

// onGrainBoundary says whether midnight of day t starts a period of grain
// (ISO weeks start on Monday).
func onGrainBoundary(t time.Time, grain string) bool {
	switch grain {
	case "hour", "day":
		return true
	case "week":
		return t.Weekday() == time.Monday
	case "month":
		return t.Day() == 1
	case "quarter":
		return t.Day() == 1 && (t.Month()-1)%3 == 0
	case "year":
		return t.YearDay() == 1
	}
	return false
}
