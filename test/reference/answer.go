package reference

import (
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// windowed: the metric type is computed along the query's time dimension.
func windowed(m *Metric) bool {
	if m.Type == nil {
		return false
	}
	switch m.Type.Type {
	case "cumulative", "rolling", "period_over_period":
		return true
	}
	return false
}

// special: semi-additive and conversion metrics, aggregated in a group of
// their own.
func special(m *Metric) bool {
	return m.Type != nil && (m.Type.Type == "semi_additive" || m.Type.Type == "conversion")
}

// specialValue is special metric m's value in group g (nil: a group
// without its rows): a count of conversions is 0 where no entity
// converted or there is no row, as every count; the others NULL.
func specialValue(m *Metric, g *group) *big.Rat {
	var v *big.Rat
	if g != nil {
		v = g.vals[m]
	}
	if v == nil && m.Type.Type == "conversion" && m.Type.Calculation == "conversions" {
		return new(big.Rat)
	}
	return v
}

// reach is every metric m depends on (m included), not looking inside
// semi-additive and conversion metrics.
func (e *evaluator) reach(m *Metric, seen map[*Metric]bool) {
	if seen[m] {
		return
	}
	seen[m] = true
	if special(m) {
		return
	}
	var walk func(x Expr)
	walk = func(x Expr) {
		switch v := x.(type) {
		case Ref:
			if r := e.metric[v.Metric]; r != nil {
				e.reach(r, seen)
			}
		case *Bin:
			walk(v.L)
			walk(v.R)
		}
	}
	walk(m.Expr)
}

func (e *evaluator) answer() (*dcase.Result, error) {
	var dims []rdim
	for _, d := range e.q.Dimensions {
		r, err := e.resolve(d.Field, d.Grain, d.WeekStart, d.Via)
		if err != nil {
			return nil, err
		}
		dims = append(dims, r)
	}
	var filters []rfilter
	var mfilters []Filter
	for _, f := range e.q.Filters {
		if f.Metric != "" {
			if f.Via != "" {
				return nil, &Refused{Code: "OSS4013", Reason: "via on a metric filter"}
			}
			mfilters = append(mfilters, f)
			continue
		}
		r, err := e.resolveFilter(f)
		if err != nil {
			return nil, err
		}
		filters = append(filters, r)
	}
	var closure []*Metric
	addMetric := func(name string) error {
		m := e.metric[name]
		if m == nil || !e.metricReadable(m) {
			return &Refused{Code: "OSS4002", Reason: "unknown metric " + name}
		}
		for _, c := range closure {
			if c == m {
				return nil
			}
		}
		closure = append(closure, m)
		return nil
	}
	for _, n := range e.q.Metrics {
		if err := addMetric(n); err != nil {
			return nil, err
		}
	}
	for _, f := range mfilters {
		if err := addMetric(f.Metric); err != nil {
			return nil, err
		}
	}
	for _, o := range e.q.OrderBy {
		if e.metric[o.Key] != nil {
			if err := addMetric(o.Key); err != nil {
				// A hidden metric is an unknown order key.
				return nil, &Refused{Code: "OSS4007", Reason: "order_by " + o.Key}
			}
		}
	}
	if err := e.checkThrough(len(closure) > 0); err != nil {
		return nil, err
	}
	if len(closure) == 0 {
		return e.members(dims, filters)
	}
	all := map[*Metric]bool{}
	for _, m := range closure {
		e.reach(m, all)
	}
	win := -1
	for m := range all {
		if windowed(m) {
			for i, d := range dims {
				if d.grain != "" {
					win = i
					break
				}
			}
			if win < 0 {
				return nil, &Refused{Code: "OSS4060", Reason: m.Name + " needs a time dimension with a grain"}
			}
		}
	}
	var rows []outRow
	var err error
	if win >= 0 {
		rows, err = e.windowRows(dims, win, filters, closure, all)
	} else {
		rows, err = e.plainRows(dims, filters, closure, all)
	}
	if err != nil {
		return nil, err
	}
	// Metric filters: after aggregation (and after the window).
	var kept []outRow
	for _, r := range rows {
		ok := true
		for _, f := range mfilters {
			if !metricFilter(f, r.metrics[f.Metric]) {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, r)
		}
	}
	return e.finish(kept, dims)
}

// finish orders, counts, pages and projects the rows.
func (e *evaluator) finish(rows []outRow, dims []rdim) (*dcase.Result, error) {
	if err := e.sortRows(rows, dims); err != nil {
		return nil, err
	}
	res := &dcase.Result{}
	if e.q.Total {
		n := int64(len(rows))
		res.Total = &n
	}
	if e.q.Offset > 0 {
		if e.q.Offset >= len(rows) {
			rows = nil
		} else {
			rows = rows[e.q.Offset:]
		}
	}
	if e.q.Limit != nil && *e.q.Limit < len(rows) {
		rows = rows[:*e.q.Limit]
	}
	for _, d := range dims {
		dt := e.memberType(d)
		if d.grain != "" {
			dt = "Date"
			if d.grain == "hour" {
				dt = "DateTime"
			}
		}
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: d.name, Datatype: dt})
	}
	for _, n := range e.q.Metrics {
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: n, Datatype: e.metricType(e.metric[n])})
	}
	res.Rows = [][]any{}
	for _, r := range rows {
		out := append([]any(nil), r.dims...)
		for _, n := range e.q.Metrics {
			out = append(out, r.metrics[n])
		}
		res.Rows = append(res.Rows, out)
	}
	return res, nil
}

// metricFilter tests a metric's value; NULL fails every comparison.
func metricFilter(f Filter, v any) bool {
	if v == nil {
		return false
	}
	c := func(i int) int {
		x, _ := compare(v, f.Values[i])
		return x
	}
	switch normOp(f.Op) {
	case "=":
		return c(0) == 0
	case "!=":
		return c(0) != 0
	case "gt":
		return c(0) > 0
	case "gte":
		return c(0) >= 0
	case "lt":
		return c(0) < 0
	case "lte":
		return c(0) <= 0
	case "between":
		return c(0) >= 0 && c(1) <= 0
	}
	return false
}

// layer is the query's groups at one set of dimensions.
type layer struct {
	groups map[string]*group
}

// buildLayer aggregates every measure of the metrics in all at its home
// dataset, by dims under filters, and stacks the groups of every home and
// of every semi-additive and conversion metric (chasm-safe combine).
func (e *evaluator) buildLayer(dims []rdim, filters []rfilter, all map[*Metric]bool) (*layer, error) {
	l := &layer{groups: map[string]*group{}}
	byHome := map[string][]*Agg{}
	var homes []string
	ms := sortedMetrics(all)
	for _, m := range ms {
		if special(m) {
			continue
		}
		var as []*Agg
		e.aggsDirect(m.Expr, &as)
		for _, a := range as {
			if byHome[a.Dataset] == nil {
				homes = append(homes, a.Dataset)
			}
			byHome[a.Dataset] = append(byHome[a.Dataset], a)
		}
	}
	for _, h := range homes {
		groups, rows, _, err := e.rowGroups(h, dims, filters)
		if err != nil {
			return nil, err
		}
		for k, g := range groups {
			tg := l.groups[k]
			if tg == nil {
				tg = newGroup(g.dims)
				l.groups[k] = tg
			}
			for _, a := range byHome[h] {
				tg.vals[a] = e.aggregate(a, rows[k])
				tg.has[a] = true
			}
		}
	}
	for _, m := range ms {
		if !special(m) {
			continue
		}
		var err error
		if m.Type.Type == "semi_additive" {
			err = e.semiAdditive(m, dims, filters, l)
		} else {
			err = e.conversion(m, dims, filters, l)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(dims) == 0 && l.groups[keyOf(nil)] == nil {
		l.groups[keyOf(nil)] = newGroup(nil)
	}
	return l, nil
}

func sortedMetrics(all map[*Metric]bool) []*Metric {
	var out []*Metric
	for m := range all {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// aggsDirect lists the aggregates written in x itself (not through the
// metrics it names).
func (e *evaluator) aggsDirect(x Expr, out *[]*Agg) {
	switch v := x.(type) {
	case *Agg:
		*out = append(*out, v)
	case *Bin:
		e.aggsDirect(v.L, out)
		e.aggsDirect(v.R, out)
	}
}

// exprAt evaluates x in group g (nil: a group no home has rows in);
// ref resolves the metrics x names.
func exprAt(x Expr, g *group, ref func(string) *big.Rat) *big.Rat {
	switch v := x.(type) {
	case *Agg:
		if g == nil || !g.has[v] {
			if isCount(v) {
				return new(big.Rat)
			}
			return nil
		}
		return g.vals[v]
	case Ref:
		return ref(v.Metric)
	case Const:
		return ratOf(v.Value, dcase.Double)
	case *Bin:
		return arith(v.Op, exprAt(v.L, g, ref), exprAt(v.R, g, ref))
	}
	return nil
}

// plainRows is one row per group, each metric at the query grain.
func (e *evaluator) plainRows(dims []rdim, filters []rfilter, closure []*Metric, all map[*Metric]bool) ([]outRow, error) {
	l, err := e.buildLayer(dims, filters, all)
	if err != nil {
		return nil, err
	}
	var rows []outRow
	for _, g := range l.groups {
		var val func(m *Metric) *big.Rat
		val = func(m *Metric) *big.Rat {
			if special(m) {
				return specialValue(m, g)
			}
			return exprAt(m.Expr, g, func(n string) *big.Rat { return val(e.metric[n]) })
		}
		r := outRow{dims: g.dims, metrics: map[string]any{}}
		for _, m := range closure {
			r.metrics[m.Name] = numberOut(val(m), e.metricType(m))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// members answers a query without metrics: the distinct members of the
// dimensions over the rows of one dataset (docs/query-semantics.md,
// "Dimension-only queries"): the query's through, which must reach every
// dataset of the dimensions and filters by many-to-one hops; else the
// first of those datasets (dimensions, then filters) that reaches every
// other so; else the one dataset of the model that reaches them all,
// passing over one that reaches another such dataset. None, several, or
// a through that misses one is OSS4012.
func (e *evaluator) members(dims []rdim, filters []rfilter) (*dcase.Result, error) {
	var cands []string
	for _, d := range dims {
		cands = append(cands, d.ds)
	}
	for _, f := range filters {
		cands = append(cands, f.m.ds)
	}
	if len(cands) == 0 {
		return nil, &Refused{Code: "OSS4001", Reason: "no metric and no dimension"}
	}
	// Reached at all: which path joins it is rowGroups' question (OSS4011
	// when the query does not choose).
	toOne := e.reachesForward
	reachesAll := func(h string) bool {
		for _, n := range cands {
			if !toOne(h, n) {
				return false
			}
		}
		return true
	}
	home := ""
	if t := e.q.Through; t != "" {
		if !reachesAll(t) {
			return nil, &Refused{Code: "OSS4012", Reason: "through " + t + " does not reach every member by many-to-one hops"}
		}
		home = t
	}
	for _, c := range cands {
		if home == "" && reachesAll(c) {
			home = c
		}
	}
	if home == "" {
		var facts, nearest []string
		for i := range e.m.Datasets {
			if ds := e.m.Datasets[i].Name; reachesAll(ds) {
				facts = append(facts, ds)
			}
		}
		for _, f := range facts {
			further := false
			for _, o := range facts {
				further = further || (o != f && toOne(f, o))
			}
			if !further {
				nearest = append(nearest, f)
			}
		}
		if len(nearest) != 1 {
			return nil, &Refused{Code: "OSS4012", Reason: fmt.Sprintf("no one dataset reaches every member by many-to-one hops (candidates %v)", nearest)}
		}
		home = nearest[0]
	}
	groups, _, _, err := e.rowGroups(home, dims, filters)
	if err != nil {
		return nil, err
	}
	var rows []outRow
	for _, g := range groups {
		rows = append(rows, outRow{dims: g.dims})
	}
	return e.finish(rows, dims)
}

// checkThrough refuses a through on a query computing metrics (OSS4001:
// a metric's rows are its own dataset's) or naming no dataset (OSS4003).
func (e *evaluator) checkThrough(hasMetrics bool) error {
	t := e.q.Through
	if t == "" {
		return nil
	}
	if hasMetrics {
		return &Refused{Code: "OSS4001", Reason: "through on a query with metrics"}
	}
	for i := range e.m.Datasets {
		if e.m.Datasets[i].Name == t {
			return nil
		}
	}
	return &Refused{Code: "OSS4003", Reason: "through " + t + " is not a dataset"}
}

// timeOf is v as a time (zero when it is none).
func timeOf(v any) (time.Time, bool) {
	t, ok := v.(time.Time)
	return t, ok
}
