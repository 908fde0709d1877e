package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// bound is a query resolved against the artifact and the caller's policy:
// every name is a member the caller may read, every filter value is
// checked against its field's type, and metrics are decomposed into
// measures with their home datasets. It is the input of build.
type bound struct {
	q   *Query // as asked, for the finer-grain plan of a window (fineCTE)
	pr  *prepared
	d   dialect.Dialect
	pol *policy // nil: ungoverned
	loc *time.Location
	now time.Time

	dims    []*dim       // selected dimensions, in request order
	metrics []*selMetric // selected metrics, then those only filters or order_by name
	filters []dimFilter  // dimension filters, applied before aggregation
	having  []metricFilter
	order   []orderKey // requested keys, then the selected dimensions not named
	limit   int        // -1: none
	offset  int

	// rollups is, per declared rollup, whether it answers the query or
	// the first reason it does not (rewrite_rollup.go).
	rollups []rollupNote
}

// dim is a resolved dimension or dimension filter target. resolve fills
// the member and its grain; the rewrites fill how its value is computed
// (zone: rewrite_timezone.go, masked: rewrite_governance.go).
type dim struct {
	ds, field string
	f         *compiler.ArtifactField
	grain     dialect.Grain
	weekStart string
	name      string         // result column name
	mask      *compiler.Mask // the caller reads it masked: f is then a String copy

	via  string // the relationship to join ds along (rewrite_via.go)
	zone string // convert a DateTimeTz value to wall time in this IANA zone
	// storedZone: a naive DateTime value is read in this zone first
	// (rewrite_storedzone.go); zone is then the query zone, or "" when
	// they are the same.
	storedZone string
	masked     *compiler.Mask // render the mask instead of the value
}

// selMetric is a metric the query computes; visible ones are returned.
type selMetric struct {
	name    string
	mp      *metricPlan
	visible bool
}

// dimFilter is a filter on a dimension, applied before aggregation.
type dimFilter struct {
	dm    *dim
	op    string
	val   []any
	index int // in the query's filters
}

// path is where the filter is in the query: filters[i].
func (f dimFilter) path() string { return at("filters", f.index) }

// metricFilter is a filter on a metric's value, applied after combining.
type metricFilter struct {
	metric string
	op     string
	val    []any
	index  int // in the query's filters
}

// orderKey sorts by a result column (a dimension or metric name).
type orderKey struct {
	col       string
	desc      bool
	tieBreak  bool // added so the order is total, not requested
	requested bool
}

// resolver is the state of one resolve run.
type resolver struct {
	p     *Planner
	b     *bound
	probs compiler.Problems
}

func (s *resolver) fail(code, path, msg string) {
	s.probs = append(s.probs, compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg})
}

// resolve binds q for the dialect of pr under pol. On any problem the
// bound query is nil and every problem found is returned.
func (p *Planner) resolve(q *Query, pr *prepared, pol *policy) (*bound, compiler.Problems) {
	b := &bound{q: q, pr: pr, d: pr.d, pol: pol, loc: time.UTC, limit: -1, offset: q.Offset}
	s := &resolver{p: p, b: b}
	if loc, ok := queryZone(q); ok {
		b.loc = loc
	} else {
		s.fail(compiler.CodeBadTimezone, "timezone", fmt.Sprintf("%q is not an IANA time zone name (e.g. \"Europe/Amsterdam\")", q.Timezone))
	}
	b.now = p.now()
	if q.Limit != nil {
		b.limit = *q.Limit
		if *q.Limit < 0 {
			s.fail(compiler.CodeBadLimit, "limit", "limit must be zero or positive")
		}
	}
	if q.Offset < 0 {
		s.fail(compiler.CodeBadLimit, "offset", "offset must be zero or positive")
	}
	if len(q.Metrics) == 0 && len(q.Dimensions) == 0 {
		s.fail(compiler.CodeBadQuery, "metrics", "a query needs at least one metric or dimension")
	}
	s.dimensions(q)
	b.metrics = make([]*selMetric, 0, len(q.Metrics))
	for i, name := range q.Metrics {
		s.addMetric(where{"metrics", i, ""}, name, true)
	}
	s.filters(q)
	s.orderBy(q)
	s.through(q)
	if len(s.probs) > 0 {
		return nil, s.probs
	}
	return b, nil
}

func (s *resolver) dimensions(q *Query) {
	b := s.b
	b.dims = make([]*dim, 0, len(q.Dimensions))
	for i, dd := range q.Dimensions {
		dm := s.resolveDim(where{"dimensions", i, ""}, dd)
		if dm == nil {
			continue
		}
		if b.dim(dm.name) != nil {
			s.fail(compiler.CodeBadQuery, at("dimensions", i), fmt.Sprintf("dimension %s is listed twice", dm.name))
			continue
		}
		b.dims = append(b.dims, dm)
	}
}

// dim returns the selected dimension with result column name, or nil.
func (b *bound) dim(name string) *dim {
	for _, dm := range b.dims {
		if dm.name == name {
			return dm
		}
	}
	return nil
}

// metric returns the computed metric name, or nil.
func (b *bound) metric(name string) *selMetric {
	for _, m := range b.metrics {
		if m.name == name {
			return m
		}
	}
	return nil
}

// addMetric adds a metric once; a metric named by a filter or order_by
// only is computed but not returned.
func (s *resolver) addMetric(path where, name string, visible bool) *selMetric {
	if m := s.b.metric(name); m != nil {
		if visible && m.visible {
			s.fail(compiler.CodeBadQuery, path.String(), fmt.Sprintf("metric %s is listed twice", name))
		}
		m.visible = m.visible || visible
		return m
	}
	mp := s.resolveMetric(path, name)
	if mp == nil {
		return nil
	}
	m := &selMetric{name: name, mp: mp, visible: visible}
	s.b.metrics = append(s.b.metrics, m)
	if mp.post != nil {
		// The window computes the metrics it combines, hidden unless
		// the query also selects them.
		for _, dep := range mp.post.deps {
			s.addMetric(path, dep, false)
		}
	}
	if mp.over != "" {
		s.addMetric(path, mp.over, false)
	}
	return m
}

func (s *resolver) filters(q *Query) {
	b := s.b
	for i, f := range q.Filters {
		path := where{"filters", i, ""}
		op := normOp(f.Op)
		if op == "" {
			s.fail(compiler.CodeBadFilter, path.String()+".op", fmt.Sprintf("unknown op %q; use one of %s", f.Op, opList()))
			continue
		}
		if f.Value != nil && len(f.Values) > 0 {
			s.fail(compiler.CodeBadFilter, path.String()+".value", "a filter takes value (one operand) or values (a list), not both")
			continue
		}
		switch {
		case f.Field != "" && f.Metric != "":
			s.fail(compiler.CodeBadFilter, path.String(), "a filter names either a field or a metric, not both")
		case f.Metric != "" && f.Grain != "":
			s.fail(compiler.CodeBadGrain, path.String()+".grain", "a grain applies to a filter on a time dimension; a metric filter compares the metric's value in each row (group by a time dimension with a grain for per-period values)")
		case f.Metric != "" && f.Via != "":
			s.fail(compiler.CodeBadVia, path.String()+".via", "via chooses the join path of a dimension filter; a metric filter compares the metric's value in each row (put via on the dimension)")
		case f.Metric != "":
			if s.addMetric(path.sub(".metric"), f.Metric, false) == nil {
				continue
			}
			if op == "in_date_range" {
				s.fail(compiler.CodeBadFilter, path.String()+".op", "in_date_range applies to time dimensions, not metrics")
				continue
			}
			// Checked here, not only when rendered, so every bad filter is
			// reported at once and none reaches the engine.
			if _, err := predicate(b.d, "x", op, f.AllValues(), kindNumber, b.now, b.loc); err != nil {
				s.fail(compiler.CodeBadFilter, path.String(), err.Error())
				continue
			}
			b.having = append(b.having, metricFilter{metric: f.Metric, op: op, val: f.AllValues(), index: i})
		case f.Field != "":
			dm := s.resolveDim(path.sub(".field"), Dimension{Field: f.Field, Grain: f.Grain, Via: f.Via})
			if dm == nil {
				continue
			}
			if op == "in_date_range" && !dm.f.IsTime {
				s.fail(compiler.CodeBadFilter, path.String()+".op", fmt.Sprintf("in_date_range needs a time dimension; %s is not one", dm.name))
				continue
			}
			if _, err := predicate(b.d, "x", op, f.AllValues(), kindOf(dm), b.now, b.loc); err != nil {
				s.fail(compiler.CodeBadFilter, path.String(), err.Error())
				continue
			}
			b.filters = append(b.filters, dimFilter{dm: dm, op: op, val: f.AllValues(), index: i})
		default:
			s.fail(compiler.CodeBadFilter, path.String(), "a filter needs a field or a metric")
		}
	}
}

// orderBy resolves order_by: metrics (selected or not) first, then
// selected dimensions. Ties, and queries without order_by, are then
// ordered by the remaining dimensions, so the same query always returns
// its rows in the same order.
func (s *resolver) orderBy(q *Query) {
	b := s.b
	b.order = make([]orderKey, 0, len(q.OrderBy)+len(b.dims))
	for i, o := range q.OrderBy {
		path := where{"order_by", i, ""}
		dir := strings.ToLower(o.Dir)
		if dir != "" && dir != "asc" && dir != "desc" {
			s.fail(compiler.CodeBadOrderBy, path.String()+".dir", fmt.Sprintf("dir %q: use asc or desc", o.Dir))
			continue
		}
		col := ""
		if _, ok := b.pr.metrics[o.Key]; ok && b.pol.metric(o.Key) {
			if s.addMetric(path.sub(".key"), o.Key, false) != nil {
				col = o.Key
			}
		} else {
			var amb string
			col, amb = orderDim(b.dims, o.Key)
			if amb != "" {
				s.fail(compiler.CodeBadOrderBy, path.String()+".key", amb)
				continue
			}
			if col == "" {
				msg := fmt.Sprintf("order_by %q is not a metric of the model nor a selected dimension", o.Key)
				cands := append(append([]string{}, s.metricNames()...), names(b.dims)...)
				if dm := compiler.DidYouMean(o.Key, cands); dm != "" {
					msg += fmt.Sprintf("; did you mean %q?", dm)
				}
				s.fail(compiler.CodeBadOrderBy, path.String()+".key", msg)
				continue
			}
		}
		if col == "" {
			continue
		}
		b.order = append(b.order, orderKey{col: col, desc: dir == "desc", requested: true})
	}
	for _, dm := range b.dims {
		if !b.ordered(dm.name) {
			b.order = append(b.order, orderKey{col: dm.name, tieBreak: true})
		}
	}
}

func (b *bound) ordered(col string) bool {
	for _, o := range b.order {
		if o.requested && o.col == col {
			return true
		}
	}
	return false
}

func (s *resolver) resolveMetric(path where, name string) *metricPlan {
	mp, ok := s.b.pr.metrics[name]
	if !ok || !s.b.pol.metric(name) {
		msg := fmt.Sprintf("unknown metric %q", name)
		if dm := compiler.DidYouMean(name, s.metricNames()); dm != "" {
			msg += fmt.Sprintf("; did you mean %q?", dm)
		}
		s.fail(compiler.CodeUnknownMetric, path.String(), msg)
		return nil
	}
	if mp.problem != nil {
		pr := *mp.problem
		pr.Path = path.String()
		s.probs = append(s.probs, pr)
		return nil
	}
	return mp
}

// resolveDim parses `dataset.field`, `dataset.field.grain` or a Dimension
// object into a dim.
func (s *resolver) resolveDim(path where, dd Dimension) *dim {
	pol := s.b.pol
	name, grain := s.splitGrain(unquoteMember(dd.Field), dd.Grain)
	i := strings.IndexByte(name, '.')
	var f *compiler.ArtifactField
	if i > 0 {
		if df, ok := s.p.fields[name]; ok && df.dataset == name[:i] {
			f = df.f
		} else if ds := s.p.art.Dataset(name[:i]); ds != nil {
			f = ds.Field(name[i+1:])
		}
	}
	if f == nil || !pol.field(name) {
		s.fail(compiler.CodeUnknownMember, path.String(), s.unknownDim(dd.Field, name, grain))
		return nil
	}
	out := &dim{ds: name[:i], field: f.Name, f: f, name: name, via: dd.Via}
	if dd.Via != "" && !s.p.hasRelationship(dd.Via) {
		msg := fmt.Sprintf("via %q names no relationship of the model", dd.Via)
		if dm := compiler.DidYouMean(dd.Via, s.p.relNames()); dm != "" {
			msg += fmt.Sprintf("; did you mean %q?", dm)
		}
		s.fail(compiler.CodeBadVia, path.String()+".via", msg)
		return nil
	}
	if m, ok := pol.mask(name); ok {
		out.mask = &m
		out.f = maskedField(f)
	}
	if !s.applyGrain(path, dd, grain, out) {
		return nil
	}
	if dd.Via != "" {
		// The answer column says which path it was read along, so two
		// roles of one field (order month, ship month) are two columns.
		out.name += "@" + dd.Via
	}
	return out
}

// splitGrain reads `dataset.field.grain` as the field and its grain when no
// grain is given apart and the whole name is no field. A misspelt grain
// after a field (`orders.date.months`) is split off too, so that it is a
// grain problem with a suggestion, not an unknown dimension.
func (s *resolver) splitGrain(name, grain string) (string, string) {
	pr := s.b.pr
	if _, ok := pr.fieldSQL[name]; !ok && grain == "" {
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			if _, ok := pr.fieldSQL[name[:i]]; ok && (isGrain(name[i+1:]) || grainSuggestion(name[i+1:]) != "") {
				return name[:i], name[i+1:]
			}
		}
	}
	return name, grain
}

// unknownDim is the message for a dimension that names no readable field
// (field as asked, name after splitGrain), with a suggestion. A grain
// suffix (`dataset.feild.month`) is not part of the typo: the field alone
// is compared and suggested with the grain.
func (s *resolver) unknownDim(field, name, grain string) string {
	msg := fmt.Sprintf("unknown dimension %q; dimensions are written dataset.field", field)
	probe, suffix := name, ""
	if j := strings.LastIndexByte(name, '.'); grain == "" && j > 0 {
		if g := strings.ToLower(name[j+1:]); isGrain(g) {
			probe, suffix = name[:j], name[j:]
		} else if dm := grainSuggestion(g); dm != "" && strings.Count(name, ".") > 1 {
			probe, suffix = name[:j], "."+dm
		}
	}
	if dm := compiler.DidYouMean(probe, s.fieldNames()); dm != "" {
		msg += fmt.Sprintf("; did you mean %q?", dm+suffix)
	}
	return msg
}

// applyGrain sets out's grain and week start from the request (grain as
// split by splitGrain), failing with CodeBadGrain at the request field
// that is wrong: an unknown grain, a grain on a field that is no time, a
// week_start the grain would not read. false when it failed.
func (s *resolver) applyGrain(path where, dd Dimension, grain string, out *dim) bool {
	if grain == "" {
		if dd.WeekStart != "" {
			s.fail(compiler.CodeBadGrain, path.String()+".week_start", "week_start needs grain week")
			return false
		}
		return true
	}
	g := strings.ToLower(grain)
	if !isGrain(g) {
		msg := fmt.Sprintf("unknown time grain %q; use one of hour, day, week, month, quarter, year", grain)
		if dm := grainSuggestion(grain); dm != "" {
			msg += fmt.Sprintf("; did you mean %q?", dm)
		}
		s.fail(compiler.CodeBadGrain, path.String()+".grain", msg)
		return false
	}
	if !out.f.IsTime {
		s.fail(compiler.CodeBadGrain, path.String()+".grain", fmt.Sprintf("%s is not a time dimension; a grain applies to time dimensions only", out.name))
		return false
	}
	out.grain = dialect.Grain(g)
	out.name += "." + g
	// A week_start the grain would not read is refused, "monday"
	// included: a request field either shapes the answer or is an error.
	switch ws := strings.ToLower(dd.WeekStart); {
	case ws != "" && ws != "monday" && ws != "sunday":
		s.fail(compiler.CodeBadGrain, path.String()+".week_start", fmt.Sprintf("week_start %q: use monday (ISO, default) or sunday", dd.WeekStart))
		return false
	case ws != "" && out.grain != dialect.Week:
		s.fail(compiler.CodeBadGrain, path.String()+".week_start", fmt.Sprintf("week_start applies to the week grain only; this dimension is by %s", out.grain))
		return false
	case ws == "sunday":
		out.weekStart = "sunday"
	}
	return true
}

// metricNames and fieldNames are the did-you-mean candidates: readable
// members only, so a suggestion never names a hidden one.
func (s *resolver) metricNames() []string {
	if s.b.pol == nil {
		return s.p.metricNames
	}
	return s.b.pol.metricNames
}

func (s *resolver) fieldNames() []string {
	if s.b.pol == nil {
		return s.p.fieldNames
	}
	return s.b.pol.fieldNames
}

// columns describes the result columns: selected dimensions, then visible
// metrics, in request order.
func (b *bound) columns() []Column {
	n := len(b.dims)
	for _, m := range b.metrics {
		if m.visible {
			n++
		}
	}
	cols := make([]Column, 0, n)
	for _, dm := range b.dims {
		c := Column{Name: dm.name, Kind: "dimension", Datatype: string(dm.f.Datatype), Grain: string(dm.grain), StoredTimezone: dm.storedZone}
		if dm.zone != "" || dm.storedZone != "" {
			c.Timezone = b.loc.String()
		}
		if dm.zone != "" && dm.f.Datatype == ossie.TypeDateTimeTz {
			// Converted to wall time in the query zone (rewrite_timezone.go):
			// the values are naive, as the engine's answer column says.
			c.Datatype = string(ossie.TypeDateTime)
		}
		if dm.grain != "" {
			c.Datatype = string(ossie.TypeDate)
			if dm.grain == dialect.Hour {
				c.Datatype = string(ossie.TypeDateTime)
			}
		}
		cols = append(cols, c)
	}
	for _, m := range b.metrics {
		if m.visible {
			cols = append(cols, Column{Name: m.name, Kind: "metric", Datatype: string(m.mp.datatype)})
		}
	}
	return cols
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

// grainSuggestion is the grain g is a plausible typo or plural of
// (months → month), or "".
func grainSuggestion(g string) string {
	names := make([]string, len(dialect.Grains))
	for i, x := range dialect.Grains {
		names[i] = string(x)
	}
	return compiler.DidYouMean(g, names)
}

func isGrain(g string) bool {
	for _, x := range dialect.Grains {
		if string(x) == g {
			return true
		}
	}
	return false
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

func names(dims []*dim) []string {
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.name
	}
	return out
}

// where is the path of a query member, spelled only when a problem is
// reported: list[i] followed by suffix.
type where struct {
	list   string
	i      int
	suffix string
}

func (w where) String() string          { return at(w.list, w.i) + w.suffix }
func (w where) sub(suffix string) where { return where{w.list, w.i, w.suffix + suffix} }

// at renders a list element path such as `filters[2]`.
func at(list string, i int) string { return list + "[" + strconv.Itoa(i) + "]" }

// queryZone is the query's time zone, UTC when it names none; ok is false
// for a name that is not an IANA zone, and for "Local", whose answer would
// depend on the machine.
func queryZone(q *Query) (loc *time.Location, ok bool) {
	if q.Timezone == "" {
		return time.UTC, true
	}
	loc, err := time.LoadLocation(q.Timezone)
	if err != nil || loc == time.Local {
		return time.UTC, false
	}
	return loc, true
}

// now is the planner's clock (Now, else the wall clock), for relative
// date ranges and rollup freshness.
func (p *Planner) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}
