package reference

import (
	"math/big"
	"sort"
	"time"
)

// window holds one windowed query's periods (the spine) and groups.
type window struct {
	e       *evaluator
	dim     rdim
	byO     map[string]map[time.Time]*group
	spine   []time.Time
	index   map[time.Time]int
	memo    map[string]*big.Rat
	fine    map[string]map[time.Time]*group // per-day (hour) groups, built on demand
	fineErr error
	dims    []rdim
	win     int
	pre     []rfilter
	all     map[*Metric]bool
}

// windowRows answers a query with a windowed metric type along dims[win]
// (docs/metrics.md, "How a query uses a windowed type"): every period
// from the first to the last with rows (or of the query's date range on
// the window's field), for every group of the other dimensions; filters
// on the window's field choose periods after the window.
func (e *evaluator) windowRows(dims []rdim, win int, filters []rfilter, closure []*Metric, all map[*Metric]bool) ([]outRow, error) {
	wd := dims[win]
	var pre, post []rfilter
	for _, f := range filters {
		if f.m.ds == wd.ds && f.m.field == wd.field {
			post = append(post, f)
		} else {
			pre = append(pre, f)
		}
	}
	for m := range all {
		if err := e.fits(m, wd); err != nil {
			return nil, err
		}
	}
	base, err := e.buildLayer(dims, pre, all)
	if err != nil {
		return nil, err
	}
	w := &window{e: e, dim: wd, byO: map[string]map[time.Time]*group{}, index: map[time.Time]int{}, memo: map[string]*big.Rat{}, dims: dims, win: win, pre: pre, all: all}
	oDims := map[string][]any{}
	var lo, hi time.Time
	extend := func(p time.Time) {
		if lo.IsZero() || p.Before(lo) {
			lo = p
		}
		if hi.IsZero() || p.After(hi) {
			hi = p
		}
	}
	for _, g := range base.groups {
		// A NULL time is in no period, but its group of the other
		// dimensions has every period.
		o := others(g.dims, win)
		k := keyOf(o)
		oDims[k] = o
		p, ok := timeOf(g.dims[win])
		if !ok {
			continue
		}
		if w.byO[k] == nil {
			w.byO[k] = map[time.Time]*group{}
		}
		w.byO[k][p] = g
		extend(p)
	}
	for _, f := range post {
		if (f.op != "in_date_range" && f.op != "between") || len(f.values) != 2 {
			continue
		}
		for i, v := range f.values {
			t, isDate, err := parseTimeValue(v, e.loc)
			if err != nil {
				continue
			}
			if i == 1 && isDate {
				// A date end includes that whole day: its last period.
				t = t.AddDate(0, 0, 1).Add(-time.Nanosecond)
			}
			extend(truncate(t, wd.grain, wd.weekStart))
		}
	}
	if lo.IsZero() {
		return nil, nil
	}
	for p := lo; !p.After(hi); p = step(p, wd.grain, 1) {
		w.index[p] = len(w.spine)
		w.spine = append(w.spine, p)
	}
	if len(oDims) == 0 && len(dims) == 1 {
		oDims[keyOf(nil)] = nil
	}
	var keys []string
	for k := range oDims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rows []outRow
	for _, k := range keys {
		for i, p := range w.spine {
			ok := true
			for _, f := range post {
				if pass, _ := e.test(f, p); !pass {
					ok = false
				}
			}
			if !ok {
				continue
			}
			d := append(append(append([]any(nil), oDims[k][:win]...), p), oDims[k][win:]...)
			r := outRow{dims: d, metrics: map[string]any{}}
			for _, m := range closure {
				v, err := w.at(m, k, i)
				if err != nil {
					return nil, err
				}
				r.metrics[m.Name] = numberOut(v, e.metricType(m))
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

func others(vals []any, skip int) []any {
	out := append([]any(nil), vals[:skip]...)
	return append(out, vals[skip+1:]...)
}

// cell is the group of other-dimensions key o at spine period i (nil
// when it has no rows).
func (w *window) cell(o string, i int) *group {
	return w.byO[o][w.spine[i]]
}

// at is metric m's value at (o, period i).
func (w *window) at(m *Metric, o string, i int) (*big.Rat, error) {
	mk := m.Name + "\x00" + o + "\x00" + w.spine[i].String()
	if v, ok := w.memo[mk]; ok {
		return v, nil
	}
	v, err := w.compute(m, o, i)
	if err != nil {
		return nil, err
	}
	w.memo[mk] = v
	return v, nil
}

// expr is an expression's value at (o, i), the metrics it names read at
// the same cell (windowed ones windowed).
func (w *window) expr(x Expr, o string, i int) (*big.Rat, error) {
	var ferr error
	v := exprAt(x, w.cell(o, i), func(n string) *big.Rat {
		r, err := w.at(w.e.metric[n], o, i)
		if err != nil {
			ferr = err
		}
		return r
	})
	return v, ferr
}

func (w *window) compute(m *Metric, o string, i int) (*big.Rat, error) {
	if special(m) {
		return specialValue(m, w.cell(o, i)), nil
	}
	if !windowed(m) {
		return w.expr(m.Expr, o, i)
	}
	t := m.Type
	sum := func(from, to int) (*big.Rat, error) {
		var s *big.Rat
		for j := max(from, 0); j <= to; j++ {
			v, err := w.expr(m.Expr, o, j)
			if err != nil {
				return nil, err
			}
			if v != nil {
				if s == nil {
					s = new(big.Rat)
				}
				s.Add(s, v)
			}
		}
		return s, nil
	}
	grain := w.dim.grain
	switch t.Type {
	case "cumulative":
		if t.Window == "all" {
			return sum(0, i)
		}
		start := truncate(w.spine[i], t.Grain, "")
		j := i
		for j > 0 && !w.spine[j-1].Before(start) {
			j--
		}
		return sum(j, i)
	case "rolling":
		k, whole, _ := wholePeriods(grain, t.Count, t.Unit)
		if whole {
			return sum(i-k+1, i)
		}
		return w.fineSum(m, o, i)
	case "period_over_period":
		cur, err := w.expr(m.Expr, o, i)
		if err != nil {
			return nil, err
		}
		var prior *big.Rat
		j := -1
		if t.Offset == "prior_period" {
			j = i - 1
		} else if p, ok := priorYear(w.spine[i], grain, w.dim.weekStart); ok {
			if idx, in := w.index[p]; in {
				j = idx
			}
		}
		if j >= 0 {
			if prior, err = w.expr(m.Expr, o, j); err != nil {
				return nil, err
			}
		}
		switch t.Output {
		case "difference":
			return arith("-", cur, prior), nil
		case "ratio":
			return arith("/", cur, prior), nil
		}
		return prior, nil
	}
	return nil, nil
}

// fineSum is a rolling window that is not a whole number of periods: the
// sum over [end − count units, end) of day (hour) values, end the start
// of the next period, from the query planned at that grain without the
// window field's filters.
func (w *window) fineSum(m *Metric, o string, i int) (*big.Rat, error) {
	t := m.Type
	fg := "day"
	if t.Unit == "hour" {
		fg = "hour"
	}
	if w.fine == nil && w.fineErr == nil {
		dims := append([]rdim(nil), w.dims...)
		dims[w.win].grain = fg
		l, err := w.e.buildLayer(dims, w.pre, w.all)
		if err != nil {
			w.fineErr = err
		} else {
			w.fine = map[string]map[time.Time]*group{}
			for _, g := range l.groups {
				p, ok := timeOf(g.dims[w.win])
				if !ok {
					continue
				}
				k := keyOf(others(g.dims, w.win))
				if w.fine[k] == nil {
					w.fine[k] = map[time.Time]*group{}
				}
				w.fine[k][p] = g
			}
		}
	}
	if w.fineErr != nil {
		return nil, w.fineErr
	}
	end := step(w.spine[i], w.dim.grain, 1)
	var start time.Time
	switch t.Unit {
	case "hour":
		start = end.Add(-time.Duration(t.Count) * time.Hour)
	case "day":
		start = end.AddDate(0, 0, -t.Count)
	case "week":
		start = end.AddDate(0, 0, -7*t.Count)
	}
	var s *big.Rat
	for p := start; p.Before(end); p = step(p, fg, 1) {
		g := w.fine[o][p]
		var val func(x Expr) *big.Rat
		val = func(x Expr) *big.Rat {
			return exprAt(x, g, func(n string) *big.Rat { return val(w.e.metric[n].Expr) })
		}
		if v := val(m.Expr); v != nil {
			if s == nil {
				s = new(big.Rat)
			}
			s.Add(s, v)
		}
	}
	return s, nil
}

// hoursOf is a unit's length in hours (0: months and longer).
func hoursOf(unit string) int {
	switch unit {
	case "hour":
		return 1
	case "day":
		return 24
	case "week":
		return 168
	}
	return 0
}

// monthsOf is a unit's length in months (0: shorter than a month).
func monthsOf(unit string) int {
	switch unit {
	case "month":
		return 1
	case "quarter":
		return 3
	case "year":
		return 12
	}
	return 0
}

// wholePeriods: a rolling window of count units is k whole periods of
// grain (whole), or a window summed from day/hour values (!whole, fits),
// or refused (!fits: months and longer that are not whole periods).
func wholePeriods(grain string, count int, unit string) (k int, whole, fits bool) {
	if gh := hoursOf(grain); gh > 0 {
		uh := hoursOf(unit)
		if uh == 0 {
			return 0, false, false
		}
		if (count*uh)%gh == 0 {
			return count * uh / gh, true, true
		}
		return 0, false, true
	}
	gm := monthsOf(grain)
	um := monthsOf(unit)
	if um == 0 {
		return 0, false, true
	}
	if (count*um)%gm == 0 {
		return count * um / gm, true, true
	}
	return 0, false, false
}

// fits refuses a metric type the window's grain does not fit (OSS4061).
func (e *evaluator) fits(m *Metric, wd rdim) error {
	if !windowed(m) {
		return nil
	}
	t := m.Type
	refuse := &Refused{Code: "OSS4061", Reason: m.Name + " does not fit grain " + wd.grain}
	if wd.grain == "hour" && e.datatype(wd.ds, wd.field) == "Date" {
		return refuse
	}
	switch t.Type {
	case "cumulative":
		if t.Window == "to_date" && !nests(wd.grain, t.Grain) {
			return refuse
		}
	case "rolling":
		if _, _, ok := wholePeriods(wd.grain, t.Count, t.Unit); !ok {
			return refuse
		}
		if t.Unit == "hour" && e.datatype(wd.ds, wd.field) == "Date" {
			return refuse
		}
	}
	return nil
}

// nests: periods of grain g are whole parts of periods of to (to
// coarser; ISO weeks nest in nothing coarser than themselves).
func nests(g, to string) bool {
	rank := map[string]int{"hour": 0, "day": 1, "week": 2, "month": 3, "quarter": 4, "year": 5}
	if rank[to] <= rank[g] {
		return false
	}
	return g != "week"
}

// priorYear is the period a year before p (docs/metrics.md, "The same
// period a year earlier"): 12 months back at month, quarter and year
// grain; the same date (29 February → 28 February) and hour at day and
// hour grain; the same ISO week number of the prior ISO year at week
// grain (none for week 53 after a 52-week year), a Sunday week read by
// its Monday.
func priorYear(p time.Time, grain, weekStart string) (time.Time, bool) {
	switch grain {
	case "month", "quarter", "year":
		return p.AddDate(-1, 0, 0), true
	case "day", "hour":
		y, m, d := p.Date()
		if m == time.February && d == 29 {
			d = 28
		}
		return time.Date(y-1, m, d, p.Hour(), 0, 0, 0, time.UTC), true
	case "week":
		mon := p
		if weekStart == "sunday" {
			mon = p.AddDate(0, 0, 1)
		}
		y, wk := mon.ISOWeek()
		first := isoWeek1(y - 1)
		prior := first.AddDate(0, 0, 7*(wk-1))
		if py, pw := prior.ISOWeek(); py != y-1 || pw != wk {
			return time.Time{}, false
		}
		if weekStart == "sunday" {
			prior = prior.AddDate(0, 0, -1)
		}
		return prior, true
	}
	return time.Time{}, false
}

// isoWeek1 is the Monday of ISO week 1 of year y (the week holding 4
// January).
func isoWeek1(y int) time.Time {
	jan4 := time.Date(y, time.January, 4, 0, 0, 0, 0, time.UTC)
	return jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
}
