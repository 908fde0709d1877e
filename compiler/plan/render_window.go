package plan

import (
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// spineDigits is, per grain, how many decimal digits the generated period
// numbers have: the spine holds at most 10^digits periods, over 190 years
// at every grain (273 years of days, 192 of weeks, 833 of months, 250 of
// quarters, 1000 years), and no more rows than that.
var spineDigits = map[dialect.Grain]int{dialect.Day: 5, dialect.Week: 4, dialect.Month: 4, dialect.Quarter: 3, dialect.Year: 3}

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
	tcol := r.identString(proj.dims[win.time].name)
	unit := strings.ToUpper(string(proj.dims[win.time].grain))
	step, ok := r.d.Func("DATEADD", []string{unit, `"i"."n"`, `"r"."lo"`})
	if !ok {
		step = "DATEADD(" + unit + `, "i"."n", "r"."lo")`
	}
	w.WriteString(`), "s" AS (SELECT CAST(`)
	w.WriteString(step)
	w.WriteString(` AS DATE) AS "t" FROM (SELECT MIN(`)
	w.WriteString(tcol)
	w.WriteString(`) AS "lo", MAX(`)
	w.WriteString(tcol)
	w.WriteString(`) AS "hi" FROM "b") AS "r" CROSS JOIN (SELECT `)
	digits := spineDigits[proj.dims[win.time].grain]
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
	w.WriteString(`) AS "i" WHERE `)
	w.WriteString(step)
	w.WriteString(` <= "r"."hi")`)

	// "w": one row per (period, group of the other dimensions).
	w.WriteString(`, "w" AS (SELECT `)
	first := true
	var others []string
	for i, dm := range proj.dims {
		w.sep(&first)
		if i == win.time {
			w.WriteString(`"s"."t" AS `)
			w.WriteString(tcol)
			continue
		}
		c := r.identString(dm.name)
		others = append(others, c)
		w.WriteString(`"p".` + c + " AS " + c)
	}
	var yearAgo []string // aliases of the year-ago joins, by metric order
	for _, m := range proj.metrics {
		w.sep(&first)
		v := `"b".` + r.identString(m.name)
		if m.mp.countLike {
			v = "COALESCE(" + v + ", 0)"
		}
		fr, typed := win.frames[m.name]
		switch {
		case typed && fr.yearAgo:
			alias := `"y` + strconv.Itoa(len(yearAgo)) + `"`
			yearAgo = append(yearAgo, alias)
			prev := alias + "." + r.identString(m.name)
			if m.mp.countLike {
				// 0 within the spine, NULL before its first period, as LAG.
				prev = "CASE WHEN " + r.yearBack() + ` >= (SELECT MIN("t") FROM "s") THEN COALESCE(` + prev + ", 0) END"
			}
			v = compared(r, v, prev, fr.output)
		case typed:
			v = r.windowed(v, fr, others)
		}
		w.WriteString(v)
		w.WriteString(" AS ")
		r.ident(m.name)
	}
	w.WriteString(` FROM "s"`)
	if len(others) > 0 {
		w.WriteString(` CROSS JOIN (SELECT DISTINCT ` + strings.Join(others, ", ") + ` FROM "b") AS "p"`)
	}
	w.WriteString(` LEFT JOIN "b" ON "b".` + tcol + ` = "s"."t"`)
	r.groupMatch(`"b"`, others)
	for _, alias := range yearAgo {
		w.WriteString(` LEFT JOIN "b" AS ` + alias + " ON " + alias + "." + tcol + " = " + r.yearBack())
		r.groupMatch(alias, others)
	}
	w.WriteByte(')')
	return true
}

// groupMatch writes the join condition of alias's rows to the group of
// the other dimensions "p": NULL is a group of its own, as in GROUP BY.
func (r *renderer) groupMatch(alias string, others []string) {
	for _, c := range others {
		r.sql.WriteString(` AND (` + alias + "." + c + ` = "p".` + c + ` OR (` + alias + "." + c + ` IS NULL AND "p".` + c + ` IS NULL))`)
	}
}

// yearBack is the spine's period a year earlier, as a DATE (29 February
// maps to 28 February).
func (r *renderer) yearBack() string {
	x, ok := r.d.Func("DATEADD", []string{"YEAR", "-1", `"s"."t"`})
	if !ok {
		x = `DATEADD(YEAR, -1, "s"."t")`
	}
	return "CAST(" + x + " AS DATE)"
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
// other dimensions' columns (of "p") and ordered by the spine's period.
func (r *renderer) windowed(v string, fr frame, others []string) string {
	var over strings.Builder
	over.WriteString(" OVER (")
	parts := make([]string, 0, len(others)+1)
	for _, c := range others {
		parts = append(parts, `"p".`+c)
	}
	if fr.reset != "" {
		parts = append(parts, "CAST("+r.d.DateTrunc(fr.reset, `"s"."t"`)+" AS DATE)")
	}
	if len(parts) > 0 {
		over.WriteString("PARTITION BY " + strings.Join(parts, ", ") + " ")
	}
	over.WriteString(`ORDER BY "s"."t"`)
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
