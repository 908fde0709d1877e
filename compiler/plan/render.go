package plan

import (
	"strconv"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// renderer writes one logical plan as one SQL statement. Every spelling
// that differs between engines (quoting, literals, date truncation,
// division, casts, limit) comes from the dialect; the renderer never asks
// which engine it is.
type renderer struct {
	p     *Planner
	pr    *prepared
	d     dialect.Dialect
	b     *bound
	sql   sqlBuilder
	probs compiler.Problems
	// numbered: the statement also returns rowNumberCol, each row's
	// position in the query's order (compare.go).
	numbered bool
	// aliases are those of the aggregate being written (rewrite_paths.go).
	aliases map[*dim]string
}

// render writes the statement of the plan rooted at root:
//
//	WITH "g0" AS (<aggregate>), …
//	SELECT <visible columns> FROM (SELECT <projection> FROM <combine>) AS "q"
//	[WHERE <metric filters>] [ORDER BY …] [LIMIT … OFFSET …]
//
// The plan's shape is fixed by build: limit ← sort ← filter ← project ←
// combine ← aggregates; the optional nodes may be absent.
func render(p *Planner, pr *prepared, b *bound, root node) (string, compiler.Problems) {
	r := &renderer{p: p, pr: pr, d: pr.d, b: b, numbered: b.q.numbered}
	r.sql.Grow(2048)
	var (
		lim   *limit
		order *sortNode
		where *filter
	)
	n := root
	if l, ok := n.(*limit); ok {
		lim, n = l, l.input
	}
	if s, ok := n.(*sortNode); ok {
		order, n = s, s.input
	}
	if f, ok := n.(*filter); ok {
		where, n = f, f.input
	}
	var win *window
	if wn, ok := n.(*window); ok {
		win, n = wn, wn.input
	}
	proj := n.(*project)
	r.statement(proj, win, where, order, lim)
	if len(r.probs) > 0 {
		return "", r.probs
	}
	return r.sql.String(), nil
}

func (r *renderer) fail(code, path, msg string) {
	r.probs = append(r.probs, compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg})
}

// statement writes the whole query: the CTEs (one per home dataset's
// group, then the window's), the outer SELECT of the answer columns, the
// metric filters, ORDER BY and LIMIT. It stops at the first problem.
func (r *renderer) statement(proj *project, win *window, where *filter, order *sortNode, lim *limit) {
	w := &r.sql
	if !r.ctes(proj, win) {
		return
	}
	w.WriteString(" SELECT ")
	r.answerColumns(proj)
	if r.numbered {
		w.WriteString(", ROW_NUMBER() OVER (")
		r.orderKeys(order)
		w.WriteString(`) AS "` + rowNumberCol + `"`)
	}
	if win != nil {
		w.WriteString(` FROM "` + windowOut(proj) + `" AS "q"`)
	} else {
		w.WriteString(" FROM (SELECT ")
		if !r.project(proj) {
			return
		}
		w.WriteString(`) AS "q"`)
	}
	conds := 0
	if win != nil && !r.periodFilters(win, &conds) {
		return
	}
	if where != nil && !r.metricFilters(where, &conds) {
		return
	}
	r.orderKeys(order)
	if lim != nil {
		w.WriteString(r.d.LimitOffset(lim.n, lim.offset))
	}
}

// ctes writes WITH and the common table expressions: one per home
// dataset's group, then, with a window, the window's. false on a problem.
func (r *renderer) ctes(proj *project, win *window) bool {
	w := &r.sql
	w.WriteString("WITH ")
	for i, g := range proj.input.groups {
		if i > 0 {
			w.WriteString(", ")
		}
		r.ident(g.alias)
		w.WriteString(" AS (")
		if !r.aggregate(g) {
			return false
		}
		w.WriteByte(')')
	}
	if win == nil {
		return true
	}
	if !r.windowCTEs(proj, win) {
		return false
	}
	r.overCTE(proj, win)
	return r.postCTE(proj)
}

// answerColumns writes the returned columns of "q": the dimensions, then
// the visible metrics.
func (r *renderer) answerColumns(proj *project) {
	w := &r.sql
	first := true
	for _, dm := range proj.dims {
		w.sep(&first)
		w.WriteString(`"q".`)
		r.ident(dm.name)
	}
	for _, m := range proj.metrics {
		if !m.visible {
			continue
		}
		w.sep(&first)
		if !m.mp.integer {
			w.WriteString(`"q".`)
			r.ident(m.name)
			continue
		}
		// An Integer metric is a BIGINT on every engine (compiler.MetricDatatypes):
		// PostgreSQL sums integers as NUMERIC and DuckDB as HUGEINT. A value
		// past int64 fails the statement, as it does on Trino.
		w.WriteString(`CAST("q".`)
		r.ident(m.name)
		w.WriteString(" AS " + r.d.TypeName("BIGINT") + ") AS ")
		r.ident(m.name)
	}
}

// metricFilters writes the filters on metrics, on the answer's values at
// the query grain (ANDed after conds earlier conditions). false on a
// problem.
func (r *renderer) metricFilters(where *filter, conds *int) bool {
	for _, f := range where.metrics {
		r.and(conds)
		pred, err := predicate(r.d, `"q".`+r.d.QuoteIdent(f.metric), f.op, f.val, kindNumber, r.b.now, r.b.loc)
		if err != nil {
			r.fail(compiler.CodeBadFilter, at("filters", f.index), err.Error())
			return false
		}
		r.sql.WriteString(pred)
	}
	return true
}

// orderKeys writes ORDER BY and the sort's keys; nothing without a sort.
func (r *renderer) orderKeys(order *sortNode) {
	if order == nil {
		return
	}
	w := &r.sql
	w.WriteString(" ORDER BY ")
	for i, k := range order.keys {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(`"q".`)
		r.ident(k.col)
		if k.desc {
			w.WriteString(" DESC NULLS LAST")
		} else {
			w.WriteString(" ASC NULLS LAST")
		}
	}
}

// project writes the projection list and its FROM item: the combined
// groups.
func (r *renderer) project(proj *project) bool {
	w := &r.sql
	c := proj.input
	dimSrc := c.groups[0].alias
	if c.mode == combineStack {
		dimSrc = "c"
	}
	first := true
	for i := range proj.dims {
		w.sep(&first)
		r.ident(dimSrc)
		w.WriteByte('.')
		r.ident(dimCol(i))
		w.WriteString(" AS ")
		r.ident(proj.dims[i].name)
	}
	for _, m := range proj.metrics {
		if m.mp.post != nil || m.mp.over != "" {
			continue // computed after the window (render_window.go, overCTE, postCTE)
		}
		sql, err := expr.Render(m.mp.combiner, r.d, func(ref expr.Ref) (string, error) {
			mr, ok := proj.refs[ref.Name]
			if ref.Qualifier != measureQualifier || !ok {
				return "", errUnresolved(ref)
			}
			src := mr.alias
			if c.mode == combineStack {
				src = "c"
			}
			// COUNT-family measures are 0, not NULL, where a group has no row.
			if mr.countLike {
				if ref, ok := r.pr.coalesced[[2]string{src, mr.col}]; ok {
					return ref, nil
				}
				return "COALESCE(" + r.identString(src) + "." + r.identString(mr.col) + ", 0)", nil
			}
			if ref, ok := r.pr.colRefs[[2]string{src, mr.col}]; ok {
				return ref, nil
			}
			return r.identString(src) + "." + r.identString(mr.col), nil
		})
		if err != nil {
			r.fail(compiler.CodeUnknownReference, "metrics."+m.name, err.Error())
			return false
		}
		w.sep(&first)
		w.WriteString(sql)
		w.WriteString(" AS ")
		r.ident(m.name)
	}
	w.WriteString(" FROM ")
	r.combine(c)
	return true
}

// combine writes the FROM item of the combined groups (rewrite_combine.go).
func (r *renderer) combine(c *combine) {
	w := &r.sql
	switch c.mode {
	case combineOne:
		r.ident(c.groups[0].alias)
		return
	case combineCross:
		r.crossJoin(c.groups)
		return
	}
	// Stacked: each group's rows padded with NULL for the other groups'
	// measures, grouped on the dimensions; each group has at most one row
	// per dimension key, so MAX picks it. A zero-row first branch over all
	// groups fixes every column's type before the untyped NULLs
	// (PostgreSQL resolves UNION types pairwise).
	w.WriteString("(SELECT ")
	first := true
	for i := 0; i < c.dims; i++ {
		w.sep(&first)
		r.ident(dimCol(i))
	}
	for _, g := range c.groups {
		for _, col := range g.cols {
			w.sep(&first)
			w.WriteString("MAX(")
			r.ident(col)
			w.WriteString(") AS ")
			r.ident(col)
		}
	}
	w.WriteString(" FROM (")
	r.branch(c, nil)
	w.WriteString(" FROM ")
	r.crossJoin(c.groups)
	w.WriteString(" WHERE 1 = 0")
	for _, g := range c.groups {
		w.WriteString(" UNION ALL ")
		r.branch(c, g)
		w.WriteString(" FROM ")
		r.ident(g.alias)
	}
	w.WriteString(`) AS "u"`)
	r.groupBy(c.dims)
	w.WriteString(`) AS "c"`)
}

// branch writes the SELECT list of one UNION ALL branch: of group g, or
// (g nil) the typed zero-row branch over all groups.
func (r *renderer) branch(c *combine, g *aggregate) {
	w := &r.sql
	w.WriteString("SELECT ")
	first := true
	for i := 0; i < c.dims; i++ {
		w.sep(&first)
		if g == nil {
			r.ident(c.groups[0].alias)
			w.WriteByte('.')
		}
		r.ident(dimCol(i))
	}
	for _, owner := range c.groups {
		for _, col := range owner.cols {
			w.sep(&first)
			switch {
			case g == nil:
				r.ident(owner.alias)
				w.WriteByte('.')
				r.ident(col)
			case owner == g:
				r.ident(col)
			default:
				w.WriteString("NULL")
			}
		}
	}
}

func (r *renderer) crossJoin(groups []*aggregate) {
	for i, g := range groups {
		if i > 0 {
			r.sql.WriteString(" CROSS JOIN ")
		}
		r.ident(g.alias)
	}
}

// aggregate writes one group's SELECT (rewrite_aggregate.go, and
// rewrite_fanout.go when keyed).
func (r *renderer) aggregate(g *aggregate) bool {
	r.aliases = g.aliases
	defer func() { r.aliases = nil }()
	w := &r.sql
	in := g.input
	var where *filter
	if !g.keyed {
		if f, ok := in.(*filter); ok {
			where, in = f, f.input
		}
	}
	if g.semi != nil {
		return r.renderSemi(g, in, where)
	}
	if g.rollup != nil {
		return r.rollupAggregate(g, where)
	}
	w.WriteString("SELECT ")
	first := true
	for i, dm := range g.dims {
		w.sep(&first)
		if g.keyed {
			w.WriteString(`"k".`)
			r.ident(dimCol(i))
			continue
		}
		r.dimSQL(dm)
		w.WriteString(" AS ")
		r.ident(dimCol(i))
	}
	for i, ms := range g.measures {
		w.sep(&first)
		w.WriteString(ms.sql)
		w.WriteString(" AS ")
		r.ident(g.cols[i])
	}
	w.WriteString(" FROM ")
	if !r.from(in) {
		return false
	}
	if where != nil && !r.where(where) {
		return false
	}
	r.groupBy(len(g.dims))
	return true
}

// from writes a FROM item: a scan or row filter with its alias, then the
// joins on it.
func (r *renderer) from(n node) bool {
	w := &r.sql
	switch n := n.(type) {
	case *scan:
		r.source(n.dataset, nil)
		w.WriteString(" AS ")
		r.ident(n.dataset)
	case *rowFilter:
		r.source(n.dataset, n)
		w.WriteString(" AS ")
		r.ident(n.dataset)
	case *join:
		if !r.from(n.left) {
			return false
		}
		if n.inner {
			w.WriteString(" JOIN ")
		} else {
			w.WriteString(" LEFT JOIN ")
		}
		if n.path != nil {
			r.aliasJoin(n)
		} else {
			r.from(n.right)
			w.WriteString(" ON ")
			r.joinCond(n.rel)
		}
	case *keyJoin:
		return r.keyJoin(n)
	case *convJoin:
		return r.convJoin(n)
	}
	return true
}

func (r *renderer) joinCond(rel *compiler.ArtifactRelationship) {
	for i := range rel.FromColumns {
		if i > 0 {
			r.sql.WriteString(" AND ")
		}
		r.sql.WriteString(r.pr.colSQL(rel.From, rel.FromColumns[i]))
		r.sql.WriteString(" = ")
		r.sql.WriteString(r.pr.colSQL(rel.To, rel.ToColumns[i]))
	}
}

// keyJoin writes `(SELECT DISTINCT <dims>, <key> FROM …) AS "k" JOIN
// <home> ON <key> = "k".<key>` (rewrite_fanout.go).
func (r *renderer) keyJoin(kj *keyJoin) bool {
	w := &r.sql
	dist := kj.left
	w.WriteString("(SELECT DISTINCT ")
	first := true
	for i, dm := range dist.dims {
		w.sep(&first)
		r.dimSQL(dm)
		w.WriteString(" AS ")
		r.ident(dimCol(i))
	}
	for i, pk := range dist.key {
		w.sep(&first)
		w.WriteString(r.pr.colSQL(dist.home, pk))
		w.WriteString(" AS ")
		r.ident(keyCol(i))
	}
	w.WriteString(" FROM ")
	in := dist.input
	var where *filter
	if f, ok := in.(*filter); ok {
		where, in = f, f.input
	}
	if !r.from(in) {
		return false
	}
	if where != nil && !r.where(where) {
		return false
	}
	w.WriteString(`) AS "k" JOIN `)
	r.from(kj.right)
	w.WriteString(" ON ")
	for i, pk := range dist.key {
		if i > 0 {
			w.WriteString(" AND ")
		}
		w.WriteString(r.pr.colSQL(dist.home, pk))
		w.WriteString(` = "k".`)
		r.ident(keyCol(i))
	}
	return true
}

// where writes the dimension filters of f, rendered over their datasets'
// aliases.
func (r *renderer) where(f *filter) bool {
	w := &r.sql
	w.WriteString(" WHERE ")
	for i, df := range f.dims {
		if i > 0 {
			w.WriteString(" AND ")
		}
		var x sqlBuilder
		r.dimSQLTo(&x, df.dm)
		pred, err := predicate(r.d, x.String(), df.op, df.val, kindOf(df.dm), r.b.now, r.b.loc)
		if err != nil {
			r.fail(compiler.CodeBadFilter, df.path(), err.Error())
			return false
		}
		w.WriteString(pred)
	}
	return true
}

func (r *renderer) groupBy(n int) {
	if n == 0 {
		return
	}
	r.sql.WriteString(" GROUP BY ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			r.sql.WriteString(", ")
		}
		r.sql.WriteString(strconv.Itoa(i))
	}
}

func (r *renderer) dimSQL(dm *dim) { r.dimSQLTo(&r.sql, dm) }

// dimSQLTo writes a dimension over its dataset alias: the mask when the
// governance rewrite set one; else time zone conversion when the query
// time zone rewrite set a zone, then truncation to the grain.
func (r *renderer) dimSQLTo(w *sqlBuilder, dm *dim) {
	if alias, ok := r.aliases[dm]; ok {
		r.valueSQLTo(w, dm, r.fieldSQLAt(dm.ds, dm.field, alias))
		return
	}
	r.valueSQLTo(w, dm, r.pr.fieldSQL[fieldKey(dm.ds, dm.field)])
}

// valueSQLTo writes dm's value computed from x, the SQL of its field's
// value (or of a rollup column holding it).
func (r *renderer) valueSQLTo(w *sqlBuilder, dm *dim, x string) {
	if dm.masked != nil {
		w.WriteString(maskSQL(r.d, *dm.masked, x))
		return
	}
	if dm.storedZone != "" && dm.zone != "" {
		x = r.d.FromZone(x, dm.storedZone)
	}
	if dm.zone != "" {
		x = r.d.AtTimeZone(x, dm.zone)
	}
	switch {
	case dm.grain == "":
		w.WriteString(x)
	case dm.weekStart == "sunday":
		w.WriteString("CAST((")
		w.WriteString(r.d.DateTrunc(dialect.Week, "("+x+" + INTERVAL '1' DAY)"))
		w.WriteString(" - INTERVAL '1' DAY) AS DATE)")
	case dm.grain == dialect.Hour:
		w.WriteString(r.d.DateTrunc(dm.grain, x))
	default:
		// Day and coarser buckets are dates on every engine (date_trunc
		// returns TIMESTAMP on DuckDB, PostgreSQL and Trino), so answers
		// compare equal.
		w.WriteString("CAST(")
		w.WriteString(r.d.DateTrunc(dm.grain, x))
		w.WriteString(" AS DATE)")
	}
}

// ident writes a quoted identifier; the model's names and the generated
// column names are quoted once per dialect (prepare.go).
func (r *renderer) ident(name string) { r.sql.WriteString(r.identString(name)) }

func (r *renderer) identString(name string) string {
	if q, ok := r.pr.quoted[name]; ok {
		return q
	}
	return r.d.QuoteIdent(name)
}
