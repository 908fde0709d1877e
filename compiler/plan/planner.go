package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones on machines without /usr/share/zoneinfo

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// Planner plans queries against one artifact. It is safe for concurrent
// use; per-dialect preparation (rendered fields, decomposed metrics) is
// cached on first use.
type Planner struct {
	art   *compiler.Artifact
	graph graph
	// Now is the clock for relative date ranges; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	cache    map[string]*prepared
	trees    map[string]joinTree
	policies map[string]*policy // by sorted role names (govern_policy.go)

	fieldNames  []string // "dataset.field", for did-you-mean
	metricNames []string
}

// New prepares a planner for a compiled artifact.
func New(a *compiler.Artifact) (*Planner, error) {
	if a == nil {
		return nil, fmt.Errorf("plan.New: nil artifact")
	}
	p := &Planner{art: a, graph: newGraph(a), cache: map[string]*prepared{}}
	for _, ds := range a.Datasets {
		for _, f := range ds.Fields {
			p.fieldNames = append(p.fieldNames, fieldKey(ds.Name, f.Name))
		}
	}
	for _, m := range a.Metrics {
		p.metricNames = append(p.metricNames, m.Name)
	}
	return p, nil
}

// Artifact returns the artifact the planner was built for.
func (p *Planner) Artifact() *compiler.Artifact { return p.art }

// dim is a resolved dimension or dimension filter target.
type dim struct {
	ds, field string
	f         *compiler.ArtifactField
	grain     dialect.Grain
	weekStart string
	name      string         // result column name
	mask      *compiler.Mask // governed and masked: f is then a String copy
}

// query is the state of one planning run.
type query struct {
	p     *Planner
	pr    *prepared
	d     dialect.Dialect
	q     *Query
	pol   *policy // nil: ungoverned
	loc   *time.Location
	now   time.Time
	probs compiler.Problems
}

func (s *query) fail(code, path, msg string) {
	s.probs = append(s.probs, compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg})
}

// Plan turns q into SQL for d, ungoverned (PlanFor with a nil Caller).
// All problems of the query are returned at once with OSS4xxx codes
// (unknown members carry a did-you-mean); on any problem the Plan is nil.
func (p *Planner) Plan(q *Query, d dialect.Dialect) (*Plan, compiler.Problems) {
	return p.PlanFor(q, d, nil)
}

func (p *Planner) plan(q *Query, d dialect.Dialect, pol *policy) (*Plan, compiler.Problems) {
	if q == nil {
		return nil, compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "empty query"}}
	}
	s := &query{p: p, pr: p.prepared(d), d: d, q: q, pol: pol}
	if len(s.pr.unsupported) > 0 {
		return nil, s.pol.redact(s.pr.unsupported)
	}
	s.loc = time.UTC
	if q.Timezone != "" {
		loc, err := time.LoadLocation(q.Timezone)
		if err != nil || strings.EqualFold(q.Timezone, "local") {
			s.fail(compiler.CodeBadTimezone, "timezone", fmt.Sprintf("%q is not an IANA time zone name (e.g. \"Europe/Amsterdam\")", q.Timezone))
		} else {
			s.loc = loc
		}
	}
	s.now = time.Now()
	if p.Now != nil {
		s.now = p.Now()
	}
	if q.Limit != nil && *q.Limit < 0 {
		s.fail(compiler.CodeBadLimit, "limit", "limit must be zero or positive")
	}
	if q.Offset < 0 {
		s.fail(compiler.CodeBadLimit, "offset", "offset must be zero or positive")
	}
	return s.plan()
}

func (s *query) resolveMetric(path, name string) *metricPlan {
	mp, ok := s.pr.metrics[name]
	if !ok || !s.pol.metric(name) {
		msg := fmt.Sprintf("unknown metric %q", name)
		if dm := compiler.DidYouMean(name, s.metricNames()); dm != "" {
			msg += fmt.Sprintf("; did you mean %q?", dm)
		}
		s.fail(compiler.CodeUnknownMetric, path, msg)
		return nil
	}
	if mp.problem != nil {
		pr := *mp.problem
		pr.Path = path
		s.probs = append(s.probs, pr)
		return nil
	}
	return mp
}

// resolveDim parses `dataset.field`, `dataset.field.grain` or a Dimension
// object into a dim.
func (s *query) resolveDim(path string, dd Dimension) *dim {
	name, grain := unquoteMember(dd.Field), dd.Grain
	if _, ok := s.pr.fieldSQL[name]; !ok && grain == "" {
		if i := strings.LastIndexByte(name, '.'); i > 0 && isGrain(name[i+1:]) {
			if _, ok := s.pr.fieldSQL[name[:i]]; ok {
				name, grain = name[:i], name[i+1:]
			}
		}
	}
	i := strings.IndexByte(name, '.')
	var f *compiler.ArtifactField
	if i > 0 {
		if ds := s.p.art.Dataset(name[:i]); ds != nil {
			f = ds.Field(name[i+1:])
		}
	}
	if f == nil || !s.pol.field(name) {
		msg := fmt.Sprintf("unknown dimension %q; dimensions are written dataset.field", dd.Field)
		if dm := compiler.DidYouMean(name, s.fieldNames()); dm != "" {
			msg += fmt.Sprintf("; did you mean %q?", dm)
		}
		s.fail(compiler.CodeUnknownMember, path, msg)
		return nil
	}
	out := &dim{ds: name[:i], field: f.Name, f: f, name: name}
	if m, ok := s.pol.mask(name); ok {
		out.mask = &m
		out.f = maskedField(f)
	}
	if grain != "" {
		g := strings.ToLower(grain)
		if !isGrain(g) {
			s.fail(compiler.CodeBadGrain, path+".grain", fmt.Sprintf("unknown time grain %q; use one of hour, day, week, month, quarter, year", grain))
			return nil
		}
		if !out.f.IsTime {
			s.fail(compiler.CodeBadGrain, path+".grain", fmt.Sprintf("%s is not a time dimension; a grain applies to time dimensions only", name))
			return nil
		}
		out.grain = dialect.Grain(g)
		out.name = name + "." + g
		switch strings.ToLower(dd.WeekStart) {
		case "", "monday":
		case "sunday":
			if out.grain != dialect.Week {
				s.fail(compiler.CodeBadGrain, path+".week_start", "week_start applies to the week grain only")
				return nil
			}
			out.weekStart = "sunday"
		default:
			s.fail(compiler.CodeBadGrain, path+".week_start", fmt.Sprintf("week_start %q: use monday (ISO, default) or sunday", dd.WeekStart))
			return nil
		}
	} else if dd.WeekStart != "" {
		s.fail(compiler.CodeBadGrain, path+".week_start", "week_start needs grain week")
		return nil
	}
	return out
}

// unquoteMember accepts SQL-style quoted parts (`customers."Customer Name"`)
// as well as plain ones: member names are data, never SQL text.
func unquoteMember(s string) string {
	if !strings.Contains(s, `"`) {
		return s
	}
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && inQuote && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			inQuote = !inQuote
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isGrain(g string) bool {
	for _, x := range dialect.Grains {
		if string(x) == g {
			return true
		}
	}
	return false
}

// dimSQL renders a dimension over its dataset alias: time zone conversion
// for zoned timestamps, then truncation to the grain.
func (s *query) dimSQL(dm *dim) string {
	x := s.pr.fieldSQL[fieldKey(dm.ds, dm.field)]
	if dm.mask != nil {
		return maskSQL(s.d, *dm.mask, x)
	}
	if dm.f.Datatype == ossie.TypeDateTimeTz {
		x = s.d.AtTimeZone(x, s.loc.String())
	}
	if dm.grain == "" {
		return x
	}
	if dm.weekStart == "sunday" {
		shifted := s.d.DateTrunc(dialect.Week, "("+x+" + INTERVAL '1' DAY)")
		return "CAST((" + shifted + " - INTERVAL '1' DAY) AS DATE)"
	}
	if dm.grain == dialect.Hour {
		return s.d.DateTrunc(dm.grain, x)
	}
	// Day and coarser buckets are dates on every engine (date_trunc returns
	// TIMESTAMP on DuckDB, PostgreSQL and Trino), so answers compare equal.
	return "CAST(" + s.d.DateTrunc(dm.grain, x) + " AS DATE)"
}

// dimFilter is a filter on a dimension, applied before aggregation.
type dimFilter struct {
	dm  *dim
	op  string
	val []any
}

// group is the part of the query answered at one home dataset.
type group struct {
	home     string
	alias    string
	measures []*measure
	cols     []string // column name of each measure in the group's CTE
}

func (s *query) plan() (*Plan, compiler.Problems) {
	q := s.q
	if len(q.Metrics) == 0 {
		s.fail(compiler.CodeBadQuery, "metrics", "a query needs at least one metric")
	}
	// Dimensions.
	var dims []*dim
	seenDim := map[string]bool{}
	for i, dd := range q.Dimensions {
		dm := s.resolveDim(at("dimensions", i), dd)
		if dm == nil {
			continue
		}
		if seenDim[dm.name] {
			s.fail(compiler.CodeBadQuery, at("dimensions", i), fmt.Sprintf("dimension %s is listed twice", dm.name))
			continue
		}
		seenDim[dm.name] = true
		dims = append(dims, dm)
	}
	// Metrics: selected, then those only filters or order_by name.
	type selMetric struct {
		name    string
		mp      *metricPlan
		visible bool
	}
	var metrics []*selMetric
	byName := map[string]*selMetric{}
	addMetric := func(path, name string, visible bool) *selMetric {
		if m, ok := byName[name]; ok {
			if visible && m.visible {
				s.fail(compiler.CodeBadQuery, path, fmt.Sprintf("metric %s is listed twice", name))
			}
			m.visible = m.visible || visible
			return m
		}
		mp := s.resolveMetric(path, name)
		if mp == nil {
			return nil
		}
		m := &selMetric{name: name, mp: mp, visible: visible}
		byName[name] = m
		metrics = append(metrics, m)
		return m
	}
	for i, name := range q.Metrics {
		addMetric(at("metrics", i), name, true)
	}
	// Filters.
	var dimFilters []dimFilter
	var metricWhere []string
	for i, f := range q.Filters {
		path := at("filters", i)
		op := normOp(f.Op)
		if op == "" {
			s.fail(compiler.CodeBadFilter, path+".op", fmt.Sprintf("unknown op %q; use one of =, !=, in, not_in, gt, gte, lt, lte, between, contains, starts_with, is_null, is_not_null, in_date_range", f.Op))
			continue
		}
		switch {
		case f.Field != "" && f.Metric != "":
			s.fail(compiler.CodeBadFilter, path, "a filter names either a field or a metric, not both")
		case f.Metric != "":
			m := addMetric(path+".metric", f.Metric, false)
			if m == nil {
				continue
			}
			if op == "in_date_range" {
				s.fail(compiler.CodeBadFilter, path+".op", "in_date_range applies to time dimensions, not metrics")
				continue
			}
			pred, err := predicate(s.d, "\"q\"."+s.d.QuoteIdent(f.Metric), op, f.values(), kindNumber, s.now, s.loc)
			if err != nil {
				s.fail(compiler.CodeBadFilter, path, err.Error())
				continue
			}
			metricWhere = append(metricWhere, pred)
		case f.Field != "":
			dm := s.resolveDim(path+".field", Dimension{Field: f.Field, Grain: f.Grain})
			if dm == nil {
				continue
			}
			if op == "in_date_range" && !dm.f.IsTime {
				s.fail(compiler.CodeBadFilter, path+".op", fmt.Sprintf("in_date_range needs a time dimension; %s is not one", dm.name))
				continue
			}
			// Checked here, not only when a group renders it, so every bad
			// filter is reported at once and none reaches the engine.
			if _, err := predicate(s.d, "x", op, f.values(), kindOf(dm), s.now, s.loc); err != nil {
				s.fail(compiler.CodeBadFilter, path, err.Error())
				continue
			}
			dimFilters = append(dimFilters, dimFilter{dm: dm, op: op, val: f.values()})
		default:
			s.fail(compiler.CodeBadFilter, path, "a filter needs a field or a metric")
		}
	}
	// Order by: metrics (selected or not) first, then selected dimensions.
	var orderBy []string
	ordered := map[string]bool{}
	for i, o := range q.OrderBy {
		path := at("order_by", i)
		dir := strings.ToLower(o.Dir)
		if dir != "" && dir != "asc" && dir != "desc" {
			s.fail(compiler.CodeBadOrderBy, path+".dir", fmt.Sprintf("dir %q: use asc or desc", o.Dir))
			continue
		}
		col := ""
		if _, ok := s.pr.metrics[o.Key]; ok && s.pol.metric(o.Key) {
			if addMetric(path+".key", o.Key, false) != nil {
				col = o.Key
			}
		} else {
			for _, dm := range dims {
				if dm.name == o.Key || (fieldKey(dm.ds, dm.field) == o.Key && col == "") {
					col = dm.name
				}
			}
			if col == "" {
				msg := fmt.Sprintf("order_by %q is not a metric of the model nor a selected dimension", o.Key)
				cands := append(append([]string{}, s.metricNames()...), names(dims)...)
				if dm := compiler.DidYouMean(o.Key, cands); dm != "" {
					msg += fmt.Sprintf("; did you mean %q?", dm)
				}
				s.fail(compiler.CodeBadOrderBy, path+".key", msg)
				continue
			}
		}
		if col == "" {
			continue
		}
		ordered[col] = true
		if dir == "desc" {
			orderBy = append(orderBy, "\"q\"."+s.d.QuoteIdent(col)+" DESC NULLS LAST")
		} else {
			orderBy = append(orderBy, "\"q\"."+s.d.QuoteIdent(col)+" ASC NULLS LAST")
		}
	}
	if len(s.probs) > 0 {
		return nil, s.probs
	}
	// Ties (and queries without order_by) are ordered by the dimensions so
	// the same query always returns rows in the same order.
	for _, dm := range dims {
		if !ordered[dm.name] {
			orderBy = append(orderBy, "\"q\"."+s.d.QuoteIdent(dm.name)+" ASC NULLS LAST")
		}
	}

	// Group measures by home dataset, in first-use order.
	var groups []*group
	groupOf := map[string]*group{}
	measureCol := map[string]string{}  // measure key → "g0"."m3"
	measureName := map[string]string{} // measure key → "m3"
	countLike := map[string]bool{}
	n := 0
	for _, m := range metrics {
		for _, ms := range m.mp.measures {
			if _, ok := measureCol[ms.key]; ok {
				continue
			}
			g := groupOf[ms.home]
			if g == nil {
				g = &group{home: ms.home, alias: "g" + strconv.Itoa(len(groups))}
				groupOf[ms.home] = g
				groups = append(groups, g)
			}
			col := "m" + strconv.Itoa(n)
			g.measures = append(g.measures, ms)
			g.cols = append(g.cols, col)
			measureCol[ms.key] = s.d.QuoteIdent(g.alias) + "." + s.d.QuoteIdent(col)
			measureName[ms.key] = col
			countLike[ms.key] = ms.countLike
			n++
		}
	}

	// Per-group SQL.
	var ctes []string
	for _, g := range groups {
		sql, err := s.groupSQL(g, dims, dimFilters)
		if err != nil {
			return nil, s.probs
		}
		ctes = append(ctes, s.d.QuoteIdent(g.alias)+" AS ("+sql+")")
	}

	// Combine groups on the dimensions, NULL-safely.
	var b strings.Builder
	b.WriteString("WITH ")
	b.WriteString(strings.Join(ctes, ", "))
	var inner []string
	dimSrc := s.d.QuoteIdent("g0")
	var from string
	switch {
	case len(groups) == 1:
		from = s.d.QuoteIdent("g0")
	case len(dims) == 0:
		parts := make([]string, len(groups))
		for i, g := range groups {
			parts[i] = s.d.QuoteIdent(g.alias)
		}
		from = strings.Join(parts, " CROSS JOIN ")
	default:
		// Stack the groups (UNION ALL, each row padded with NULL for the
		// other groups' measures) and GROUP BY the dimensions: grouping is
		// NULL-safe and hashable on every engine, where joining the groups
		// on IS NOT DISTINCT FROM degrades to nested loops on PostgreSQL.
		// Each group has one row per dimension key, so MAX picks it. A
		// zero-row first branch over all groups fixes every column's type
		// before the untyped NULLs (PostgreSQL resolves UNION types pairwise).
		dimSrc = s.d.QuoteIdent("c")
		dcols := make([]string, len(dims))
		for i := range dims {
			dcols[i] = s.d.QuoteIdent("d" + strconv.Itoa(i))
		}
		var all []string
		owner := map[string]string{}
		for _, g := range groups {
			for _, c := range g.cols {
				all = append(all, c)
				owner[c] = g.alias
			}
		}
		branch := func(g *group) string {
			sel := make([]string, 0, len(dcols)+len(all))
			for _, c := range dcols {
				if g == nil {
					sel = append(sel, s.d.QuoteIdent(groups[0].alias)+"."+c)
				} else {
					sel = append(sel, c)
				}
			}
			for _, c := range all {
				switch {
				case g == nil:
					sel = append(sel, s.d.QuoteIdent(owner[c])+"."+s.d.QuoteIdent(c))
				case owner[c] == g.alias:
					sel = append(sel, s.d.QuoteIdent(c))
				default:
					sel = append(sel, "NULL")
				}
			}
			return "SELECT " + strings.Join(sel, ", ")
		}
		aliases := make([]string, len(groups))
		for i, g := range groups {
			aliases[i] = s.d.QuoteIdent(g.alias)
		}
		union := []string{branch(nil) + " FROM " + strings.Join(aliases, " CROSS JOIN ") + " WHERE 1 = 0"}
		for _, g := range groups {
			union = append(union, branch(g)+" FROM "+s.d.QuoteIdent(g.alias))
		}
		outer := append([]string{}, dcols...)
		for _, c := range all {
			outer = append(outer, "MAX("+s.d.QuoteIdent(c)+") AS "+s.d.QuoteIdent(c))
		}
		var fb strings.Builder
		fb.WriteString("(SELECT " + strings.Join(outer, ", ") + " FROM (" + strings.Join(union, " UNION ALL ") + ") AS " + s.d.QuoteIdent("u"))
		writeGroupBy(&fb, len(dims))
		fb.WriteString(") AS " + dimSrc)
		from = fb.String()
		for key, col := range measureName {
			measureCol[key] = dimSrc + "." + s.d.QuoteIdent(col)
		}
	}
	var columns []Column
	var visible []string
	for i, dm := range dims {
		inner = append(inner, dimSrc+"."+s.d.QuoteIdent("d"+strconv.Itoa(i))+" AS "+s.d.QuoteIdent(dm.name))
		visible = append(visible, "\"q\"."+s.d.QuoteIdent(dm.name))
		c := Column{Name: dm.name, Kind: "dimension", Datatype: string(dm.f.Datatype), Grain: string(dm.grain)}
		if dm.grain != "" {
			c.Datatype = string(ossie.TypeDate)
			if dm.grain == dialect.Hour {
				c.Datatype = string(ossie.TypeDateTime)
			}
		}
		columns = append(columns, c)
	}
	for _, m := range metrics {
		sql, err := expr.Render(m.mp.combiner, s.d, func(r expr.Ref) (string, error) {
			col, ok := measureCol[r.Name]
			if r.Qualifier != measureQualifier || !ok {
				return "", fmt.Errorf("unresolved reference %s.%s", r.Qualifier, r.Name)
			}
			if countLike[r.Name] {
				return "COALESCE(" + col + ", 0)", nil
			}
			return col, nil
		})
		if err != nil {
			s.fail(compiler.CodeUnknownReference, "metrics."+m.name, err.Error())
			return nil, s.probs
		}
		inner = append(inner, sql+" AS "+s.d.QuoteIdent(m.name))
		if m.visible {
			visible = append(visible, "\"q\"."+s.d.QuoteIdent(m.name))
			columns = append(columns, Column{Name: m.name, Kind: "metric", Datatype: string(s.p.art.Metric(m.name).Datatype)})
		}
	}
	b.WriteString(" SELECT ")
	b.WriteString(strings.Join(visible, ", "))
	b.WriteString(" FROM (SELECT ")
	b.WriteString(strings.Join(inner, ", "))
	b.WriteString(" FROM ")
	b.WriteString(from)
	b.WriteString(") AS \"q\"")
	if len(metricWhere) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(metricWhere, " AND "))
	}
	if len(orderBy) > 0 {
		b.WriteString(" ORDER BY ")
		b.WriteString(strings.Join(orderBy, ", "))
	}
	limit := -1
	if q.Limit != nil {
		limit = *q.Limit
	}
	b.WriteString(s.d.LimitOffset(limit, q.Offset))
	return &Plan{SQL: b.String(), Columns: columns, ModelVersion: s.p.art.Version}, nil
}

func names(dims []*dim) []string {
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.name
	}
	return out
}

// groupSQL aggregates one group's measures at its home dataset. Datasets
// reached by many-to-one hops are LEFT JOINed (home rows with unmatched or
// NULL keys stay, under NULL); if a dimension or filter is reached through a
// one-to-many hop, distinct (dimensions, home primary key) pairs are formed
// first and the measures aggregated over those, so no home row counts twice.
func (s *query) groupSQL(g *group, dims []*dim, filters []dimFilter) (string, error) {
	d := s.d
	hops, order := s.p.tree(g.home)
	need := map[string]bool{g.home: true}
	fanOut := false
	var fanPath []string
	mark := func(path, ds string) bool {
		if _, ok := hops[ds]; !ok {
			s.fail(compiler.CodeUnreachable, path, fmt.Sprintf("%s cannot be joined to dataset %s: no relationship path connects them", ds, g.home))
			return false
		}
		if msg := ambiguousJoin(s.p.art, s.p.graph, hops, g.home, ds); msg != "" {
			s.fail(compiler.CodeAmbiguousJoin, path, msg)
			return false
		}
		for cur := ds; cur != g.home && !need[cur]; cur = hops[cur].parent {
			need[cur] = true
			if !hops[cur].via.toOne {
				fanOut = true
				fanPath = append(fanPath, hops[cur].via.rel.Name)
			}
		}
		// A path can share its beginning with an earlier one; re-walk to
		// catch a one-to-many hop in the shared part too.
		for cur := ds; cur != g.home; cur = hops[cur].parent {
			if !hops[cur].via.toOne {
				fanOut = true
			}
		}
		return true
	}
	for i, dm := range dims {
		if !mark(at("dimensions", i), dm.ds) {
			return "", fmt.Errorf("unreachable")
		}
	}
	for i, f := range filters {
		if !mark(at("filters", i), f.dm.ds) {
			return "", fmt.Errorf("unreachable")
		}
	}
	measureNeed := map[string]bool{g.home: true}
	for _, ms := range g.measures {
		for _, r := range ms.reads {
			measureNeed[r] = true
			for cur := r; cur != g.home; cur = hops[cur].parent {
				measureNeed[cur] = true
			}
		}
	}
	joins := func(b *strings.Builder, want map[string]bool) {
		for _, ds := range order[1:] {
			if !want[ds] {
				continue
			}
			h := hops[ds]
			r := h.via.rel
			conds := make([]string, len(r.FromColumns))
			for i := range r.FromColumns {
				conds[i] = s.pr.colSQL(r.From, r.FromColumns[i]) + " = " + s.pr.colSQL(r.To, r.ToColumns[i])
			}
			fmt.Fprintf(b, " LEFT JOIN %s AS %s ON %s", s.source(ds), d.QuoteIdent(ds), strings.Join(conds, " AND "))
		}
	}
	var where []string
	for i, f := range filters {
		pred, err := predicate(d, s.dimSQL(f.dm), f.op, f.val, kindOf(f.dm), s.now, s.loc)
		if err != nil {
			s.fail(compiler.CodeBadFilter, at("filters", i), err.Error())
			return "", err
		}
		where = append(where, pred)
	}
	var aggs []string
	for i, ms := range g.measures {
		aggs = append(aggs, ms.sql+" AS "+d.QuoteIdent(g.cols[i]))
	}
	homeAlias := d.QuoteIdent(g.home)
	var b strings.Builder
	if !fanOut {
		for _, k := range sortedKeys(measureNeed) {
			need[k] = true
		}
		b.WriteString("SELECT ")
		var cols []string
		for i, dm := range dims {
			cols = append(cols, s.dimSQL(dm)+" AS "+d.QuoteIdent("d"+strconv.Itoa(i)))
		}
		cols = append(cols, aggs...)
		b.WriteString(strings.Join(cols, ", "))
		b.WriteString(" FROM " + s.source(g.home) + " AS " + homeAlias)
		joins(&b, need)
		if len(where) > 0 {
			b.WriteString(" WHERE " + strings.Join(where, " AND "))
		}
		writeGroupBy(&b, len(dims))
		return b.String(), nil
	}
	home := s.p.art.Dataset(g.home)
	if len(home.PrimaryKey) == 0 {
		sort.Strings(fanPath)
		s.fail(compiler.CodeFanOutNoKey, "dimensions", fmt.Sprintf("dataset %s is reached through one-to-many relationship(s) %s, so its rows would repeat; declare primary_key on %s so they can be counted once", g.home, strings.Join(fanPath, ", "), g.home))
		return "", fmt.Errorf("no key")
	}
	k := d.QuoteIdent("k")
	var inner []string
	var outer []string
	for i, dm := range dims {
		c := d.QuoteIdent("d" + strconv.Itoa(i))
		inner = append(inner, s.dimSQL(dm)+" AS "+c)
		outer = append(outer, k+"."+c)
	}
	var on []string
	for i, pk := range home.PrimaryKey {
		c := d.QuoteIdent("k" + strconv.Itoa(i))
		inner = append(inner, s.pr.colSQL(g.home, pk)+" AS "+c)
		on = append(on, s.pr.colSQL(g.home, pk)+" = "+k+"."+c)
	}
	b.WriteString("SELECT ")
	b.WriteString(strings.Join(append(outer, aggs...), ", "))
	b.WriteString(" FROM (SELECT DISTINCT " + strings.Join(inner, ", ") + " FROM " + s.source(g.home) + " AS " + homeAlias)
	joins(&b, need)
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	b.WriteString(") AS " + k + " JOIN " + s.source(g.home) + " AS " + homeAlias + " ON " + strings.Join(on, " AND "))
	delete(measureNeed, g.home)
	joins(&b, measureNeed)
	writeGroupBy(&b, len(dims))
	return b.String(), nil
}

// kindOf tells what values a filter on dm accepts. A grain makes any time
// field a date; contains/starts_with work on text and never get here typed.
func kindOf(dm *dim) valueKind {
	switch {
	case dm.mask != nil:
		return kindText
	case dm.f.Datatype == ossie.TypeTime && dm.grain == "":
		return kindClock
	case dm.f.IsTime || dm.grain != "":
		return kindTime
	case dm.f.Datatype == ossie.TypeInteger || dm.f.Datatype == ossie.TypeDecimal || dm.f.Datatype == ossie.TypeFloat:
		return kindNumber
	case dm.f.Datatype == ossie.TypeBoolean:
		return kindBool
	}
	return kindAny
}

// at renders a list element path such as `filters[2]`.
func at(list string, i int) string { return list + "[" + strconv.Itoa(i) + "]" }

// tree returns the join tree rooted at home, computed once per dataset.
func (p *Planner) tree(home string) (map[string]hop, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.trees[home]; ok {
		return t.hops, t.order
	}
	hops, order := p.graph.tree(home)
	if p.trees == nil {
		p.trees = map[string]joinTree{}
	}
	p.trees[home] = joinTree{hops, order}
	return hops, order
}

// joinTree caches graph.tree for one root; read-only once stored.
type joinTree struct {
	hops  map[string]hop
	order []string
}

func writeGroupBy(b *strings.Builder, n int) {
	if n == 0 {
		return
	}
	b.WriteString(" GROUP BY ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
