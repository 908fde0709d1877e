package plan

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// windowOf implements metric types (query-semantics.md, "Metric types";
// docs/metrics.md): "a typed metric is windowed along the query's first
// time dimension with a grain, over every period from the first to the
// last with rows, restarting per group of the other dimensions; dimension
// filters apply before the window, filters on the window's time field
// choose the periods returned after it, metric filters apply after it".
// It fires when the query computes a metric with a type. It then moves the
// filters on the window's time field out of the aggregation (so a
// year-to-date queried for March still sums January and February) and
// returns the window node build puts over the projection; nil when it does
// not fire or the query does not fit (OSS4060, OSS4061 in bl.probs).
func (bl *builder) windowOf() *window {
	b := bl.b
	var typed []*selMetric
	for _, m := range b.metrics {
		if m.mp.typ != nil && m.mp.typ.Type != compiler.MetricSemi && m.mp.typ.Type != compiler.MetricConversion {
			typed = append(typed, m)
		}
	}
	if len(typed) == 0 {
		return nil
	}
	t := -1
	for i, dm := range b.dims {
		if dm.grain != "" && dm.masked == nil && dm.mask == nil {
			t = i
			break
		}
	}
	if t < 0 {
		bl.fail(compiler.CodeWindowNoTime, "dimensions", fmt.Sprintf("metric %s is a %s metric: select a time dimension with a grain (hour, day, week, month, quarter, year) to window it along", typed[0].name, typed[0].mp.typ.Type))
		return nil
	}
	tm := b.dims[t]
	if tm.grain == dialect.Hour && tm.f.Datatype == ossie.TypeDate {
		// A date has no hours: every value would sit in the midnight
		// period and the spine would invent 23 empty hours a day.
		bl.fail(compiler.CodeWindowGrain, "dimensions["+fmt.Sprint(t)+"].grain", fmt.Sprintf("metric %s: %s is a date; windows run at hour grain along a timestamp field only", typed[0].name, tm.name))
		return nil
	}
	w := &window{origin: origin{rwWindow}, time: t, metrics: typed, frames: make(map[string]frame, len(typed))}
	for _, m := range typed {
		fr, msg := frameOf(m.mp.typ, tm.grain)
		if msg == "" && fr.fine == dialect.Hour && tm.f.Datatype == ossie.TypeDate {
			msg = fmt.Sprintf("a window of %d hours reads hour values, and %s is a date", fr.count, tm.name)
		}
		if msg == "" && fr.fine != "" && m.mp.over != "" {
			msg = "a rolling window that is not a whole number of " + string(tm.grain) + " periods sums finer periods' values, which " + m.mp.over + " (a windowed metric) does not have"
		}
		if msg != "" {
			bl.fail(compiler.CodeWindowGrain, "dimensions["+fmt.Sprint(t)+"].grain", fmt.Sprintf("metric %s: %s", m.name, msg))
			continue
		}
		w.frames[m.name] = fr
	}
	kept := b.filters[:0:0]
	for _, f := range b.filters {
		if f.dm.ds == tm.ds && f.dm.field == tm.field {
			w.after = append(w.after, f)
		} else {
			kept = append(kept, f)
		}
	}
	b.filters = kept
	return w
}

// grainRank orders the grains a window runs along.
var grainRank = map[dialect.Grain]int{dialect.Hour: 1, dialect.Day: 2, dialect.Week: 3, dialect.Month: 4, dialect.Quarter: 5, dialect.Year: 6}

// periodsPer is how many periods of the query grain (second) make one
// unit (first) exactly; absent pairs do not nest.
var periodsPer = map[[2]dialect.Grain]int{
	{dialect.Hour, dialect.Hour}: 1, {dialect.Day, dialect.Hour}: 24, {dialect.Week, dialect.Hour}: 168,
	{dialect.Day, dialect.Day}: 1, {dialect.Week, dialect.Day}: 7, {dialect.Week, dialect.Week}: 1,
	{dialect.Month, dialect.Month}: 1, {dialect.Quarter, dialect.Month}: 3, {dialect.Year, dialect.Month}: 12,
	{dialect.Quarter, dialect.Quarter}: 1, {dialect.Year, dialect.Quarter}: 4, {dialect.Year, dialect.Year}: 1,
}

// frameOf turns a metric type into its frame at query grain g, or says
// why g does not fit.
func frameOf(mt *compiler.MetricType, g dialect.Grain) (frame, string) {
	if grainRank[g] == 0 {
		return frame{}, fmt.Sprintf("windows run along hour, day, week, month, quarter or year, not %s", g)
	}
	switch mt.Type {
	case compiler.MetricCumulative:
		fr := frame{preceding: -1}
		if mt.Window == "to_date" {
			reset := dialect.Grain(mt.Grain)
			// Periods of g must nest in periods of reset: ISO weeks do not
			// nest in months, quarters or years.
			if grainRank[reset] <= grainRank[g] || (g == dialect.Week && reset != dialect.Week) {
				return frame{}, fmt.Sprintf("%s-to-date restarts every %s, which %s periods do not divide; query a finer grain", reset, reset, g)
			}
			fr.reset = reset
		}
		return fr, ""
	case compiler.MetricRolling:
		n, ok := windowPeriods(mt.Count, dialect.Grain(mt.Unit), g)
		if fine := fineGrain(dialect.Grain(mt.Unit), g); !ok && fine != "" {
			return frame{fine: fine, count: mt.Count, unit: mt.Unit}, ""
		}
		if !ok {
			// A window that is not a whole number of periods (30 days or 2
			// weeks at month grain) is not a sum of period values, and
			// the per-period values are all the window reads: refused
			// rather than approximated (docs/metrics.md, "Rolling").
			return frame{}, fmt.Sprintf("a window of %d %s is not a whole number of %s periods, so it is not a sum of %s values; query at the %s grain or a finer one that divides it (%s), or declare the window in %s units", mt.Count, mt.Unit, g, g, mt.Unit, finerGrains(dialect.Grain(mt.Unit)), g)
		}
		return frame{preceding: n - 1}, ""
	case compiler.MetricPeriodOver:
		fr := frame{lag: 1, output: mt.Output}
		if mt.Offset == "prior_year" {
			per, ok := periodsPer[[2]dialect.Grain{dialect.Year, g}]
			if ok {
				fr.lag = per
			} else {
				// Days and hours of a year vary (leap years), and so do
				// ISO weeks (52 or 53): the same period a year earlier is
				// looked up, not counted back (render_window.go, yearBack).
				fr.lag, fr.yearAgo = 0, true
			}
		}
		return fr, ""
	}
	return frame{}, fmt.Sprintf("unknown metric type %q", mt.Type)
}

// monthsIn is how many months make one period of a calendar grain.
var monthsIn = map[dialect.Grain]int{dialect.Month: 1, dialect.Quarter: 3, dialect.Year: 12}

// windowPeriods is how many periods of query grain g a window of count
// units u spans when that is a whole number: count times the periods of
// g in one u (periodsPer), or, for months, quarters and years at a
// coarser grain of them, count units of months divided by g's months (3
// months at quarter grain is 1 period, 12 months or 4 quarters at year
// grain 1, 6 months at quarter grain 2); ok false otherwise.
func windowPeriods(count int, u, g dialect.Grain) (n int, ok bool) {
	if per, ok := periodsPer[[2]dialect.Grain{u, g}]; ok {
		return count * per, true
	}
	um, gm := monthsIn[u], monthsIn[g]
	if um == 0 || gm == 0 || count*um%gm != 0 {
		return 0, false
	}
	return count * um / gm, true
}

// fineGrain is the grain whose values a rolling window of unit u at
// query grain g sums when u is not a whole number of g periods: days for
// day and week units at week grain or coarser, hours for an hour unit at
// day grain or coarser; "" when there is none (months at week grain: a
// month ending on a Monday is not a whole number of weeks or a fixed
// number of days, and stays refused).
func fineGrain(u, g dialect.Grain) dialect.Grain {
	switch {
	case (u == dialect.Day || u == dialect.Week) && grainRank[g] > grainRank[dialect.Day]:
		return dialect.Day
	case u == dialect.Hour && grainRank[g] > grainRank[dialect.Hour]:
		return dialect.Hour
	}
	return ""
}

// finerGrains lists the query grains a window of unit u is a whole
// number of periods of, finest first.
func finerGrains(u dialect.Grain) string {
	var out []string
	for _, g := range dialect.Grains {
		if _, ok := periodsPer[[2]dialect.Grain{u, g}]; ok {
			out = append(out, string(g))
		}
	}
	return strings.Join(out, ", ")
}
