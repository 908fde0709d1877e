package plan

import "github.com/ossie-dev/ossie/compiler"

// rollupAggregate writes a group answered from a rollup
// (rewrite_rollup.go):
//
//	SELECT <dimensions from the rollup's columns> AS "dN", <re-aggregated measures> AS "mN"
//	FROM <rollup table> AS "r" [WHERE <dimension filters> AND <row filters>] GROUP BY …
//
// A column holding a dimension at a finer grain than the query's is
// truncated as the field would be; masks apply to the column as to the
// field. The rollup's times are UTC wall times already, so no zone is
// applied (the rewrite refuses another zone).
func (r *renderer) rollupAggregate(g *aggregate, where *filter) bool {
	w := &r.sql
	u := g.rollup
	w.WriteString("SELECT ")
	first := true
	for i, dm := range g.dims {
		w.sep(&first)
		r.rollupValue(w, dm, u.dims[i])
		w.WriteString(" AS ")
		r.ident(dimCol(i))
	}
	for i, ms := range g.measures {
		w.sep(&first)
		w.WriteString(u.measures[ms.key])
		w.WriteString(" AS ")
		r.ident(g.cols[i])
	}
	w.WriteString(" FROM ")
	for i, part := range u.state.Table {
		if i > 0 {
			w.WriteByte('.')
		}
		r.ident(part)
	}
	w.WriteString(` AS "r"`)
	conds := 0
	if where != nil {
		for i, df := range where.dims {
			r.and(&conds)
			var x sqlBuilder
			r.rollupValue(&x, df.dm, u.filters[i])
			pred, err := predicate(r.d, x.String(), df.op, df.val, kindOf(df.dm), r.b.now, r.b.loc)
			if err != nil {
				r.fail(compiler.CodeBadFilter, df.path(), err.Error())
				return false
			}
			w.WriteString(pred)
		}
	}
	if u.home != "" { // restricted, even with no alternative (which admits nothing)
		r.and(&conds)
		pred, _ := r.rowPredicateOver(u.home, u.rows, func(key string) (string, bool) {
			col, ok := u.cols[key]
			return `"r".` + r.d.QuoteIdent(col), ok
		})
		w.WriteString(pred)
	}
	r.groupBy(len(g.dims))
	return true
}

// rollupValue writes dm's value from its rollup column, truncated to
// v.grain when set.
func (r *renderer) rollupValue(w *sqlBuilder, dm *dim, v rollupValue) {
	d := *dm
	d.zone, d.storedZone, d.grain = "", "", v.grain
	if v.grain == "" {
		d.weekStart = ""
	}
	r.valueSQLTo(w, &d, `"r".`+r.d.QuoteIdent(v.col))
}
