package plan

import (
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// spineDigits is, per grain, how many decimal digits the generated period
// numbers have: the spine holds at most 10^digits periods, over 190 years
// at every grain (273 years of days, 192 of weeks, 833 of months, 250 of
// quarters, 1000 years), and no more rows than that.
var spineDigits = map[dialect.Grain]int{dialect.Hour: 5, dialect.Day: 5, dialect.Week: 4, dialect.Month: 4, dialect.Quarter: 3, dialect.Year: 3}

// windowCTEs writes, after the groups' CTEs, the three CTEs of the window
// node (rewrite_window.go):
//
//	"b" — the projection: per-period values at the query grain;
//	"s" — the time spine: every period from the first to the last in "b",
//	      generated from numbers (no table, no engine-specific generator);
//	"w" — spine × the other dimensions' groups, LEFT JOIN "b", with the
//	      typed metrics windowed along time.
func (r *renderer) windowCTEs(proj *project, win *window) bool {
	w := &r.sql
	w.WriteString(`, "b" AS (SELECT `)
	if !r.project(proj) {
		return false
	}
	w.WriteByte(')')
	tcol := r.identString(proj.dims[win.time].name)
	r.spine(win, tcol)
	fineTime, ok := r.fineCTE(win)
	if !ok {
		return false
	}

	// "w": one row per (period, group of the other dimensions).
	w.WriteString(`, "w" AS (SELECT `)
	first := true
	others := r.windowGroupColumns(proj, win, tcol, &first)
	tm := proj.dims[win.time]
	var joins windowJoins
	for _, m := range proj.metrics {
		if m.mp.post != nil || m.mp.over != "" {
			continue // computed from the windowed columns ("w2", "v")
		}
		w.sep(&first)
		w.WriteString(r.windowColumn(m, win, tm, others, &joins))
		w.WriteString(" AS ")
		r.ident(m.name)
	}
	r.windowFrom(win, tm, tcol, fineTime, others, joins)
	w.WriteByte(')')
	return true
}

// windowJoins are the extra inputs of "w" its metric columns read, each
// joined on the period and the group: the year-ago rows of "b" (aliases
// "y0", "y1", ... by metric order) and the sums of finer periods of "f"
// (aliases "f0", "f1", ..., one per metric).
type windowJoins struct {
	yearAgo []string
	fines   []*selMetric
}

// windowGroupColumns writes the dimension columns of "w": the spine's
// period as the time dimension, the others from the groups "p". It
// returns the others' quoted names.
func (r *renderer) windowGroupColumns(proj *project, win *window, tcol string, first *bool) []string {
	w := &r.sql
	var others []string
	for i, dm := range proj.dims {
		w.sep(first)
		if i == win.time {
			w.WriteString(`"s"."t" AS `)
			w.WriteString(tcol)
			continue
		}
		c := r.identString(dm.name)
		others = append(others, c)
		w.WriteString(`"p".` + c + " AS " + c)
	}
	return others
}

// windowColumn is the value of metric m in "w": its per-period value (0
// for a count-like metric's empty period), compared with a year ago, summed
// from finer periods or windowed along time as its frame says; joins
// records the year-ago and fine inputs it reads.
func (r *renderer) windowColumn(m *selMetric, win *window, tm *dim, others []string, joins *windowJoins) string {
	v := `"b".` + r.identString(m.name)
	if m.mp.countLike {
		v = "COALESCE(" + v + ", 0)"
	}
	fr, typed := win.frames[m.name]
	switch {
	case typed && fr.yearAgo:
		alias := `"y` + strconv.Itoa(len(joins.yearAgo)) + `"`
		joins.yearAgo = append(joins.yearAgo, alias)
		prev := alias + "." + r.identString(m.name)
		if m.mp.countLike {
			// 0 within the spine, NULL before its first period, as LAG.
			prev = "CASE WHEN " + r.yearBack(tm, `"s"."t"`) + ` >= (SELECT MIN("t") FROM "s") THEN COALESCE(` + prev + ", 0) END"
		}
		v = compared(r, v, prev, fr.output)
	case typed && fr.fine != "":
		v = `"f` + strconv.Itoa(len(joins.fines)) + `".` + r.identString(m.name)
		if m.mp.countLike {
			v = "COALESCE(" + v + ", 0)"
		}
		joins.fines = append(joins.fines, m)
	case typed:
		v = r.windowed(v, fr, `"p"`, others, `"s"."t"`)
	}
	return v
}

// windowFrom writes the FROM of "w": the spine, crossed with the groups of
// the other dimensions, left-joined to "b" on the period and the group,
// then the year-ago and fine inputs the columns read.
func (r *renderer) windowFrom(win *window, tm *dim, tcol, fineTime string, others []string, joins windowJoins) {
	w := &r.sql
	w.WriteString(` FROM "s"`)
	if len(others) > 0 {
		w.WriteString(` CROSS JOIN (SELECT DISTINCT ` + strings.Join(others, ", ") + ` FROM "b") AS "p"`)
	}
	w.WriteString(` LEFT JOIN "b" ON "b".` + tcol + ` = "s"."t"`)
	r.groupMatch(`"b"`, `"p"`, others)
	for _, alias := range joins.yearAgo {
		w.WriteString(` LEFT JOIN "b" AS ` + alias + " ON " + alias + "." + tcol + " = " + r.yearBack(tm, `"s"."t"`))
		r.groupMatch(alias, `"p"`, others)
	}
	for i, m := range joins.fines {
		alias := `"f` + strconv.Itoa(i) + `"`
		w.WriteString(" LEFT JOIN " + r.fineSum(m, win.frames[m.name], tm, fineTime, others) + " AS " + alias + " ON " + alias + `."t" = "s"."t"`)
		r.groupMatch(alias, `"p"`, others)
	}
}

// fineCTE writes, when a rolling window is not a whole number of query
// periods (30 days at month grain), the CTE "f": the query planned again
// at the window's fine grain (day or hour) with those metrics' per-period
// values, without the filters on the window's time field (history) and
// without metric filters, order and limit; the caller's row filters, the
// other filters and the time zone are the same. It returns the column of
// f's periods.
func (r *renderer) fineCTE(win *window) (string, bool) {
	var fine dialect.Grain
	var metrics []string
	for _, m := range win.metrics {
		if fr := win.frames[m.name]; fr.fine != "" {
			fine = fr.fine // one grain: hour units need an hour field, day units a day one
			metrics = append(metrics, m.name)
		}
	}
	if fine == "" {
		return "", true
	}
	for _, m := range win.metrics {
		if fr := win.frames[m.name]; fr.fine != "" && fr.fine != fine {
			r.fail(compiler.CodeWindowGrain, "dimensions["+strconv.Itoa(win.time)+"].grain", "rolling windows of hours and of days that are not whole query periods cannot be queried together; query them apart")
			return "", false
		}
	}
	q := r.b.q
	tm := win.input.dims[win.time]
	fq := Query{Metrics: metrics, Timezone: q.Timezone, perPeriod: true, Dimensions: make([]Dimension, len(q.Dimensions))}
	copy(fq.Dimensions, q.Dimensions)
	fq.Dimensions[win.time] = Dimension{Field: tm.ds + "." + tm.field, Grain: string(fine), Via: q.Dimensions[win.time].Via}
	skip := map[int]bool{}
	for _, f := range win.after {
		skip[f.index] = true
	}
	for i, f := range q.Filters {
		if !skip[i] && f.Metric == "" {
			fq.Filters = append(fq.Filters, f)
		}
	}
	pl, probs := r.p.planOne(&fq, r.d, r.b.pol)
	if len(probs) > 0 {
		r.probs = append(r.probs, probs...)
		return "", false
	}
	r.sql.WriteString(`, "f" AS (SELECT * FROM (` + pl.SQL + `) AS "x")`)
	return r.identString(pl.Columns[win.time].Name), true
}

// fineSum is the FROM item of one window summed from finer periods: per
// spine period and group of the other dimensions, the sum of "f"'s values
// from count units before the period's end up to its end.
func (r *renderer) fineSum(m *selMetric, fr frame, tm *dim, ft string, others []string) string {
	add := r.dateAdd
	typ := "DATE"
	if fr.fine == dialect.Hour {
		typ = r.d.TypeName("TIMESTAMP")
	}
	end := "CAST(" + add(strings.ToUpper(string(tm.grain)), "1", `"s"."t"`) + " AS " + typ + ")"
	start := "CAST(" + add(strings.ToUpper(fr.unit), strconv.Itoa(-fr.count), end) + " AS " + typ + ")"
	var b strings.Builder
	b.WriteString(`(SELECT "s"."t" AS "t"`)
	for _, c := range others {
		b.WriteString(`, "g".` + c + " AS " + c)
	}
	b.WriteString(`, SUM("f".` + r.identString(m.name) + ") AS " + r.identString(m.name) + ` FROM "s"`)
	if len(others) > 0 {
		b.WriteString(` CROSS JOIN (SELECT DISTINCT ` + strings.Join(others, ", ") + ` FROM "b") AS "g"`)
	}
	b.WriteString(` JOIN "f" ON "f".` + ft + " >= " + start + ` AND "f".` + ft + " < " + end)
	for _, c := range others {
		b.WriteString(` AND ("f".` + c + ` = "g".` + c + ` OR ("f".` + c + ` IS NULL AND "g".` + c + ` IS NULL))`)
	}
	b.WriteString(` GROUP BY "s"."t"`)
	for _, c := range others {
		b.WriteString(`, "g".` + c)
	}
	b.WriteByte(')')
	return b.String()
}

// spine writes the CTE "s": every period of the query grain from the
// first period with rows, or the first period of the date range the query
// asks for when that is earlier, to the last with rows or the last of the
// range when that is later (so a running total carries on and a rolling
// window decays over periods past the data). The periods are generated from
// numbers (no table, no engine-specific generator): up to 10^k periods, k
// from spineDigits; hours are the days' 24 hours each.
func (r *renderer) spine(win *window, tcol string) {
	w := &r.sql
	tm := win.input.dims[win.time]
	add := r.dateAdd
	lo, hi := "MIN("+tcol+")", "MAX("+tcol+")"
	for _, f := range spanFilters(win) {
		first, last, ok := r.rangePeriods(f, tm)
		if !ok {
			continue // periodFilters reports the bad value
		}
		lo = "CASE WHEN " + lo + " < " + first + " THEN " + lo + " ELSE " + first + " END"
		hi = "CASE WHEN " + hi + " > " + last + " THEN " + hi + " ELSE " + last + " END"
	}
	typ, unit, base := "DATE", strings.ToUpper(string(tm.grain)), `"r"."lo"`
	if tm.grain == dialect.Hour {
		typ, unit = r.d.TypeName("TIMESTAMP"), "DAY"
		base = "CAST(CAST(" + base + " AS DATE) AS " + typ + ")"
	}
	step := add(unit, `"i"."n"`, base)
	w.WriteString(`, "s" AS (SELECT `)
	if tm.grain == dialect.Hour {
		w.WriteString(`"x"."t" FROM (SELECT CAST(` + add("HOUR", `"h"."n"`, `"dd"."t"`) + ` AS ` + typ + `) AS "t", "dd"."lo", "dd"."hi" FROM (SELECT `)
	}
	w.WriteString("CAST(" + step + " AS " + typ + `) AS "t"`)
	if tm.grain == dialect.Hour {
		w.WriteString(`, "r"."lo", "r"."hi"`)
	}
	w.WriteString(` FROM (SELECT ` + lo + ` AS "lo", ` + hi + ` AS "hi" FROM "b") AS "r" CROSS JOIN (SELECT `)
	digits := spineDigits[tm.grain]
	for i := 0; i < digits; i++ {
		if i > 0 {
			w.WriteString(" + ")
		}
		w.WriteString(`"d` + strconv.Itoa(i) + `"."n"`)
		if i > 0 {
			w.WriteString(" * 1" + strings.Repeat("0", i))
		}
	}
	w.WriteString(" AS \"n\" FROM ")
	for i := 0; i < digits; i++ {
		if i > 0 {
			w.WriteString(" CROSS JOIN ")
		}
		w.WriteString(`(VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS "d` + strconv.Itoa(i) + `"("n")`)
	}
	w.WriteString(`) AS "i" WHERE ` + step + ` <= "r"."hi"`)
	if tm.grain == dialect.Hour {
		w.WriteString(`) AS "dd" CROSS JOIN (VALUES `)
		for h := 0; h < 24; h++ {
			if h > 0 {
				w.WriteString(", ")
			}
			w.WriteString("(" + strconv.Itoa(h) + ")")
		}
		w.WriteString(`) AS "h"("n")) AS "x" WHERE "x"."t" >= "x"."lo" AND "x"."t" <= "x"."hi"`)
	}
	w.WriteByte(')')
}

// spanFilters are the window's time filters whose date range the spine
// covers: in_date_range and between on the time field itself or at the
// query grain (a filter at a coarser grain reads truncated periods).
func spanFilters(win *window) []dimFilter {
	var out []dimFilter
	tm := win.input.dims[win.time]
	for _, f := range win.after {
		if (f.op == "in_date_range" || f.op == "between") && (f.dm.grain == "" || f.dm.grain == tm.grain) {
			out = append(out, f)
		}
	}
	return out
}

// spans reports whether the spine of win covers a date range.
func spans(win *window) bool { return len(spanFilters(win)) > 0 }

// rangePeriods is the first and last period of filter f's date range at
// the time dimension's grain, as typed literals: the periods holding the
// range's start and its end (a date end is its whole day). The bounds are
// wall time in the query zone, as the periods are.
func (r *renderer) rangePeriods(f dimFilter, tm *dim) (string, string, bool) {
	start, end, err := rangeEnds(f.val, r.b.now, r.b.loc)
	if err != nil {
		return "", "", false
	}
	a, _, ok1 := wallTime(start, r.b.loc)
	b, endIsDate, ok2 := wallTime(end, r.b.loc)
	if !ok1 || !ok2 {
		return "", "", false
	}
	if endIsDate {
		b = b.Add(24*time.Hour - time.Nanosecond)
	}
	lit := func(t time.Time) string {
		t = truncWall(t, tm.grain, tm.weekStart)
		if tm.grain == dialect.Hour {
			return "CAST(" + r.d.QuoteString(t.Format("2006-01-02 15:04:05")) + " AS " + r.d.TypeName("TIMESTAMP") + ")"
		}
		return "CAST(" + r.d.QuoteString(t.Format("2006-01-02")) + " AS DATE)"
	}
	return lit(a), lit(b), true
}

// wallTime reads a date range bound as wall time in loc (labelled UTC): a
// date (its midnight; isDate), a wall-clock timestamp, or an RFC 3339
// timestamp converted into loc.
func wallTime(s string, loc *time.Location) (t time.Time, isDate, ok bool) {
	switch {
	case dateRe.MatchString(s):
		t, err := time.Parse("2006-01-02", s)
		return t, true, err == nil
	case timestampRe.MatchString(s):
		t, err := time.Parse("2006-01-02 15:04:05", strings.Replace(s, "T", " ", 1))
		if err != nil {
			t, err = time.Parse("2006-01-02 15:04", strings.Replace(s, "T", " ", 1))
		}
		return t, false, err == nil
	case zonedRe.MatchString(s):
		t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(strings.Replace(s, " ", "T", 1)))
		if err != nil {
			return time.Time{}, false, false
		}
		w := t.In(loc)
		return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC), false, true
	}
	return time.Time{}, false, false
}

// truncWall is the start of the period of grain g holding wall time t.
func truncWall(t time.Time, g dialect.Grain, weekStart string) time.Time {
	switch g {
	case dialect.Hour:
		return t.Truncate(time.Hour)
	case dialect.Week:
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		if weekStart == "sunday" {
			return periodStart(day.AddDate(0, 0, 1), "week").AddDate(0, 0, -1)
		}
		return periodStart(day, "week")
	}
	return periodStart(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), string(g))
}

// postCTE writes, when the query computes metrics over typed metrics,
// the CTE "v": the window's rows with those metrics computed from its
// columns (prepare_post.go).
func (r *renderer) postCTE(proj *project) bool {
	if windowOut(proj) != "v" {
		return true
	}
	src := `"w"`
	if hasOver(proj) {
		src = `"w2"`
	}
	w := &r.sql
	w.WriteString(`, "v" AS (SELECT ` + src + `.*`)
	for _, m := range proj.metrics {
		if m.mp.post == nil {
			continue
		}
		sql, err := expr.Render(m.mp.post.expr, r.d, func(ref expr.Ref) (string, error) {
			if ref.Qualifier != windowQualifier {
				return "", errUnresolved(ref)
			}
			return src + "." + r.identString(ref.Name), nil
		})
		if err != nil {
			r.fail(compiler.CodeUnknownReference, "metrics."+m.name, err.Error())
			return false
		}
		w.WriteString(", " + sql + " AS ")
		r.ident(m.name)
	}
	w.WriteString(` FROM ` + src + `)`)
	return true
}

// overCTE writes, when a typed metric windows another typed metric (the
// prior year of a year-to-date), the CTE "w2": the rows of "w" (one per
// period and group, so rows are periods) with those metrics windowed from
// the other metric's windowed column along the same periods.
func (r *renderer) overCTE(proj *project, win *window) {
	if !hasOver(proj) {
		return
	}
	w := &r.sql
	tm := proj.dims[win.time]
	tname := r.identString(tm.name)
	t := `"w".` + tname
	var others []string
	for i, dm := range proj.dims {
		if i != win.time {
			others = append(others, r.identString(dm.name))
		}
	}
	w.WriteString(`, "w2" AS (SELECT "w".*`)
	var joins []string
	for _, m := range proj.metrics {
		if m.mp.over == "" {
			continue
		}
		fr := win.frames[m.name]
		v := `"w".` + r.identString(m.mp.over)
		if fr.yearAgo {
			alias := `"z` + strconv.Itoa(len(joins)) + `"`
			joins = append(joins, alias)
			v = compared(r, v, alias+"."+r.identString(m.mp.over), fr.output)
		} else {
			v = r.windowed(v, fr, `"w"`, others, t)
		}
		w.WriteString(", " + v + " AS ")
		r.ident(m.name)
	}
	w.WriteString(` FROM "w"`)
	for _, alias := range joins {
		w.WriteString(` LEFT JOIN "w" AS ` + alias + " ON " + alias + "." + tname + " = " + r.yearBack(tm, t))
		r.groupMatch(alias, `"w"`, others)
	}
	w.WriteByte(')')
}

// hasOver reports whether a typed metric of proj windows another one.
func hasOver(proj *project) bool {
	for _, m := range proj.metrics {
		if m.mp.over != "" {
			return true
		}
	}
	return false
}

// windowOut is the CTE the window's answer is read from: "v" when some
// metric is computed after the window, else "w2" when a typed metric
// windows another, else "w".
func windowOut(proj *project) string {
	for _, m := range proj.metrics {
		if m.mp.post != nil {
			return "v"
		}
	}
	if hasOver(proj) {
		return "w2"
	}
	return "w"
}

// dateAdd is x plus n units (HOUR, DAY, WEEK, MONTH, YEAR) in the
// dialect's spelling.
func (r *renderer) dateAdd(unit, n, x string) string {
	if s, ok := r.d.Func("DATEADD", []string{unit, n, x}); ok {
		return s
	}
	return "DATEADD(" + unit + ", " + n + ", " + x + ")"
}

// groupMatch writes the join condition of alias's rows to the group of
// the other dimensions of group (an alias): NULL is a group of its own, as
// in GROUP BY.
func (r *renderer) groupMatch(alias, group string, others []string) {
	for _, c := range others {
		r.sql.WriteString(` AND (` + alias + "." + c + ` = ` + group + `.` + c + ` OR (` + alias + "." + c + ` IS NULL AND ` + group + `.` + c + ` IS NULL))`)
	}
}

// yearBack is the spine's period a year earlier, or NULL where it has
// none: at day and hour grain the same date (and hour) a year earlier (29
// February maps to 28 February); at week grain the week with the same ISO
// week number in the prior ISO year (ISO 8601: week 1 holds 4 January, the
// ISO year of a week is the year of its Thursday). That week starts 52
// weeks back when the prior ISO year has 52 weeks and 53 back when it has
// 53; week 53 has no counterpart in a 52-week year. A Sunday-start week is
// read by its Monday.
func (r *renderer) yearBack(tm *dim, t string) string {
	add := r.dateAdd
	date := func(x string) string { return "CAST(" + x + " AS DATE)" }
	switch tm.grain {
	case dialect.Hour:
		return "CAST(" + add("YEAR", "-1", t) + " AS " + r.d.TypeName("TIMESTAMP") + ")"
	case dialect.Week:
		mon := t
		if tm.weekStart == "sunday" {
			mon = date(add("DAY", "1", mon))
		}
		jan1 := r.d.DateTrunc(dialect.Year, add("DAY", "3", mon)) // 1 January of the week's ISO year
		week1 := date(r.d.DateTrunc(dialect.Week, add("DAY", "3", jan1)))
		prevWeek1 := date(r.d.DateTrunc(dialect.Week, add("DAY", "3", add("YEAR", "-1", jan1))))
		back52, back53 := date(add("DAY", "-364", mon)), date(add("DAY", "-371", mon))
		x := "CASE WHEN " + date(add("DAY", "364", prevWeek1)) + " = " + week1 +
			" THEN CASE WHEN " + back52 + " < " + week1 + " THEN " + back52 + " END ELSE " + back53 + " END"
		if tm.weekStart == "sunday" {
			return date(add("DAY", "-1", "("+x+")"))
		}
		return "(" + x + ")"
	}
	return date(add("YEAR", "-1", t))
}

// compared is a period-over-period output from the current value v and
// the compared period's value prev.
func compared(r *renderer, v, prev, output string) string {
	switch output {
	case "difference":
		return "(" + v + " - " + prev + ")"
	case "ratio":
		return r.d.Divide(v, prev)
	}
	return prev
}

// windowed applies frame fr to the per-period value v, partitioned by the
// other dimensions' columns (of alias group) and ordered by period t.
func (r *renderer) windowed(v string, fr frame, group string, others []string, t string) string {
	var over strings.Builder
	over.WriteString(" OVER (")
	parts := make([]string, 0, len(others)+1)
	for _, c := range others {
		parts = append(parts, group+"."+c)
	}
	if fr.reset != "" {
		parts = append(parts, "CAST("+r.d.DateTrunc(fr.reset, t)+" AS DATE)")
	}
	if len(parts) > 0 {
		over.WriteString("PARTITION BY " + strings.Join(parts, ", ") + " ")
	}
	over.WriteString("ORDER BY " + t)
	if fr.lag > 0 {
		return compared(r, v, "LAG("+v+", "+strconv.Itoa(fr.lag)+")"+over.String()+")", fr.output)
	}
	over.WriteString(" ROWS BETWEEN ")
	if fr.preceding < 0 {
		over.WriteString("UNBOUNDED")
	} else {
		over.WriteString(strconv.Itoa(fr.preceding))
	}
	over.WriteString(" PRECEDING AND CURRENT ROW)")
	return "SUM(" + v + ")" + over.String()
}

// periodFilters writes the time filters the window moved above itself,
// applied to the period column: they choose the periods returned.
func (r *renderer) periodFilters(win *window, conds *int) bool {
	col := `"q".` + r.identString(win.input.dims[win.time].name)
	tm := win.input.dims[win.time]
	for _, f := range win.after {
		r.and(conds)
		x := col
		if f.dm.grain != "" && f.dm.grain != tm.grain {
			// A filter at a coarser grain (year = 2025) reads the period's
			// truncation to that grain.
			x = "CAST(" + r.d.DateTrunc(f.dm.grain, col) + " AS DATE)"
		}
		pred, err := predicate(r.d, x, f.op, f.val, kindOf(f.dm), r.b.now, r.b.loc)
		if err != nil {
			r.fail(compiler.CodeBadFilter, f.path(), err.Error())
			return false
		}
		r.sql.WriteString(pred)
	}
	return true
}

// and writes WHERE before the first condition and AND before the others.
func (r *renderer) and(conds *int) {
	if *conds == 0 {
		r.sql.WriteString(" WHERE ")
	} else {
		r.sql.WriteString(" AND ")
	}
	*conds++
}
