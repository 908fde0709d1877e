package pgwire

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// A small evaluator of the catalog queries clients send (psql's \d
// family, JDBC DatabaseMetaData, SQLAlchemy's inspector, BI tools'
// connection checks): SELECT over the virtual catalog relations of
// catalog_tables.go with joins, WHERE, scalar subqueries, CASE, the
// catalog functions drivers call, DISTINCT, ORDER BY and LIMIT. It reads
// only model metadata the caller may see; model tables themselves are
// never read here. Functions it does not know return NULL, so a client's
// optional probe (say, for a PostgreSQL feature model tables lack) gets
// an empty answer instead of an error.

// isCatalogQuery: a SELECT without FROM, or one reading a catalog relation.
func isCatalogQuery(s *pg_query.SelectStmt) bool {
	if w := s.GetWithClause(); w != nil {
		return catalogCTEs(w)
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return isCatalogQuery(s.GetLarg())
	}
	if len(s.GetFromClause()) == 0 {
		return len(s.GetValuesLists()) == 0
	}
	for _, f := range s.GetFromClause() {
		if fromIsCatalog(f) {
			return true
		}
	}
	return false
}

func fromIsCatalog(n *pg_query.Node) bool {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		s := strings.ToLower(rv.GetSchemaname())
		return s == "pg_catalog" || s == "information_schema" || (s == "" && strings.HasPrefix(strings.ToLower(rv.GetRelname()), "pg_"))
	case n.GetJoinExpr() != nil:
		return fromIsCatalog(n.GetJoinExpr().GetLarg()) || fromIsCatalog(n.GetJoinExpr().GetRarg())
	case n.GetRangeSubselect() != nil:
		return isCatalogQuery(n.GetRangeSubselect().GetSubquery().GetSelectStmt())
	case n.GetRangeFunction() != nil:
		return true
	}
	return false
}

// evaluator answers catalog queries for one connection and caller.
type evaluator struct {
	c      *conn
	cat    *catalog
	params *paramSet
	depth  int
	// ctes are the common table expressions in scope, innermost last
	// (catalog_cte.go).
	ctes []map[string]*relation
}

// frame is the row being evaluated: one value slice per FROM relation,
// and the frame of the enclosing query (correlated subqueries).
type frame struct {
	names []string
	rels  []*relation
	vals  [][]any
	outer *frame
	// window holds the row's window function values (catalog_window.go).
	window map[*pg_query.FuncCall]any
}

func (c *conn) catalogQuery(s *pg_query.SelectStmt, params *paramSet) (*result, error) {
	ev := &evaluator{c: c, cat: loadCatalog(c.ctx, c.e.b), params: params}
	r, err := ev.query(s, nil)
	if err != nil {
		return nil, err
	}
	res := &result{tag: "SELECT", rows: r.rows, cols: make([]outCol, len(r.cols))}
	for i := range r.cols {
		res.cols[i] = outCol{Name: r.cols[i], OID: r.types[i], src: i}
	}
	return res, nil
}

func (ev *evaluator) query(s *pg_query.SelectStmt, outer *frame) (*relation, error) {
	ev.depth++
	defer func() { ev.depth-- }()
	if ev.depth > 16 {
		return nil, refusef(codeLimit, "catalog query nested too deeply")
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return ev.setOp(s, outer)
	}
	if w := s.GetWithClause(); w != nil {
		pop, err := ev.with(w, outer)
		if err != nil {
			return nil, err
		}
		defer pop()
	}
	if len(s.GetValuesLists()) > 0 {
		return nil, refusef(codeFeature, "VALUES in a catalog query")
	}
	frames, err := ev.from(s.GetFromClause(), outer)
	if err != nil {
		return nil, err
	}
	var kept []*frame
	for _, f := range frames {
		if s.GetWhereClause() != nil {
			v, err := ev.eval(s.GetWhereClause(), f)
			if err != nil {
				return nil, err
			}
			if v != true {
				continue
			}
		}
		kept = append(kept, f)
	}
	out := &relation{}
	var targets []*pg_query.ResTarget
	proto := &frame{outer: outer}
	if len(frames) > 0 {
		proto = frames[0]
	} else if len(s.GetFromClause()) > 0 {
		proto = ev.emptyFrame(s.GetFromClause(), outer)
	}
	for _, n := range s.GetTargetList() {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && isStar(cr) {
			for i, r := range proto.rels {
				if len(cr.GetFields()) == 2 && !strings.EqualFold(proto.names[i], cr.GetFields()[0].GetString_().GetSval()) {
					continue
				}
				for j, name := range r.cols {
					out.cols = append(out.cols, name)
					out.types = append(out.types, r.types[j])
					targets = append(targets, &pg_query.ResTarget{Val: pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(proto.names[i]), pg_query.MakeStrNode(name)}, 0)})
				}
			}
			continue
		}
		out.cols = append(out.cols, targetName(rt))
		out.types = append(out.types, ev.typeOf(rt.GetVal(), proto))
		targets = append(targets, rt)
	}
	type sorted struct {
		row  []any
		keys []any
	}
	var rows []sorted
	// add appends the output row computed from frame f, with its sort keys.
	add := func(row []any, f *frame) error {
		var keys []any
		for _, sb := range s.GetSortClause() {
			k, err := ev.sortKey(sb.GetSortBy().GetNode(), f, row, out.cols)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		rows = append(rows, sorted{row, keys})
		return nil
	}
	if len(s.GetGroupClause()) > 0 || hasAggregate(targets) {
		groups, err := ev.groups(s, targets, kept)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			row := make([]any, len(targets))
			for i, t := range targets {
				if row[i], err = ev.aggregate(t.GetVal(), g); err != nil {
					return nil, err
				}
			}
			f := proto
			if len(g) > 0 {
				f = g[0]
			}
			if err := add(row, f); err != nil {
				return nil, err
			}
		}
	} else {
		if err := ev.windows(targets, kept); err != nil {
			return nil, err
		}
		for _, f := range kept {
			row := make([]any, len(targets))
			for i, t := range targets {
				v, err := ev.eval(t.GetVal(), f)
				if err != nil {
					return nil, err
				}
				row[i] = v
			}
			if err := add(row, f); err != nil {
				return nil, err
			}
		}
	}
	if d := s.GetDistinctClause(); len(d) > 0 {
		seen := map[string]bool{}
		var uniq []sorted
		for _, r := range rows {
			k := fmt.Sprint(r.row...)
			if !seen[k] {
				seen[k] = true
				uniq = append(uniq, r)
			}
		}
		rows = uniq
	}
	if sc := s.GetSortClause(); len(sc) > 0 {
		slices.SortStableFunc(rows, func(a, b sorted) int { return compareSortKeys(sc, a.keys, b.keys) })
	}
	off := 0
	if n := s.GetLimitOffset(); n != nil {
		v, _ := ev.eval(n, proto)
		if i, ok := toInt(v); ok {
			off = int(i)
		}
	}
	lim := -1
	if n := s.GetLimitCount(); n != nil {
		v, _ := ev.eval(n, proto)
		if i, ok := toInt(v); ok {
			lim = int(i)
		}
	}
	for i, r := range rows {
		if i < off {
			continue
		}
		if lim >= 0 && len(out.rows) >= lim {
			break
		}
		out.rows = append(out.rows, r.row)
	}
	return out, nil
}

func (ev *evaluator) setOp(s *pg_query.SelectStmt, outer *frame) (*relation, error) {
	l, err := ev.query(s.GetLarg(), outer)
	if err != nil {
		return nil, err
	}
	r, err := ev.query(s.GetRarg(), outer)
	if err != nil {
		return nil, err
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_UNION || len(l.cols) != len(r.cols) {
		return nil, refusef(codeFeature, "INTERSECT or EXCEPT in a catalog query")
	}
	out := &relation{cols: l.cols, types: l.types, rows: append(slices.Clone(l.rows), r.rows...)}
	if !s.GetAll() {
		seen := map[string]bool{}
		var uniq [][]any
		for _, row := range out.rows {
			if k := fmt.Sprint(row...); !seen[k] {
				seen[k] = true
				uniq = append(uniq, row)
			}
		}
		out.rows = uniq
	}
	return out, nil
}

// sortKey is an ORDER BY value: an output position or name, else an
// expression over the row.
func (ev *evaluator) sortKey(n *pg_query.Node, f *frame, row []any, names []string) (any, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().GetIval())
		if i < 1 || i > len(row) {
			return nil, &sqlError{Code: codeInvalidColumnRef, Message: fmt.Sprintf("ORDER BY position %d is not in select list", i)}
		}
		return row[i-1], nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.GetFields()) == 1 {
		for i, nm := range names {
			if nm == lastName(cr) {
				return row[i], nil
			}
		}
	}
	return ev.eval(n, f)
}

func targetName(rt *pg_query.ResTarget) string {
	if rt.GetName() != "" {
		return rt.GetName()
	}
	return exprName(rt.GetVal())
}

func exprName(n *pg_query.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		return lastName(n.GetColumnRef())
	case n.GetFuncCall() != nil:
		return funcName(n.GetFuncCall())
	case n.GetTypeCast() != nil:
		if inner := exprName(n.GetTypeCast().GetArg()); inner != "?column?" {
			return inner
		}
		names := n.GetTypeCast().GetTypeName().GetNames()
		return names[len(names)-1].GetString_().GetSval()
	case n.GetCaseExpr() != nil:
		return "case"
	case n.GetSqlvalueFunction() != nil:
		return strings.ToLower(strings.TrimPrefix(n.GetSqlvalueFunction().GetOp().String(), "SVFOP_"))
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetSubLink() != nil && n.GetSubLink().GetSubLinkType() == pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists"
	case n.GetSubLink() != nil && n.GetSubLink().GetSubLinkType() == pg_query.SubLinkType_ARRAY_SUBLINK:
		return "array"
	}
	return "?column?"
}

// from builds the rows of a FROM list (comma items are a cross join).
func (ev *evaluator) from(items []*pg_query.Node, outer *frame) ([]*frame, error) {
	frames := []*frame{{outer: outer}}
	for _, it := range items {
		var next []*frame
		right, err := ev.fromItem(it, outer)
		if err != nil {
			return nil, err
		}
		for _, l := range frames {
			for _, r := range right {
				next = append(next, joinFrames(l, r))
			}
		}
		frames = next
	}
	return frames, nil
}

func joinFrames(l, r *frame) *frame {
	return &frame{names: append(slices.Clone(l.names), r.names...), rels: append(slices.Clone(l.rels), r.rels...),
		vals: append(slices.Clone(l.vals), r.vals...), outer: l.outer}
}

// emptyFrame is a frame of NULLs over the FROM relations, so the output
// columns of a query without rows still have types.
func (ev *evaluator) emptyFrame(items []*pg_query.Node, outer *frame) *frame {
	f := &frame{outer: outer}
	var add func(n *pg_query.Node)
	add = func(n *pg_query.Node) {
		switch {
		case n.GetJoinExpr() != nil:
			add(n.GetJoinExpr().GetLarg())
			add(n.GetJoinExpr().GetRarg())
		default:
			name, r := ev.namedRelation(n, outer)
			if r != nil {
				f.names, f.rels, f.vals = append(f.names, name), append(f.rels, r), append(f.vals, make([]any, len(r.cols)))
			}
		}
	}
	for _, it := range items {
		add(it)
	}
	return f
}

func (ev *evaluator) namedRelation(n *pg_query.Node, outer *frame) (string, *relation) {
	if rv := n.GetRangeVar(); rv != nil {
		r, ok := ev.cte(rv)
		if !ok {
			r, ok = ev.cat.relation(rv.GetSchemaname(), rv.GetRelname(), ev.c.user, ev.c.database())
		}
		if !ok {
			return "", nil
		}
		name := rv.GetRelname()
		if a := rv.GetAlias(); a != nil {
			name = a.GetAliasname()
		}
		return name, r
	}
	if sub := n.GetRangeSubselect(); sub != nil {
		r, err := ev.query(sub.GetSubquery().GetSelectStmt(), outer)
		if err != nil {
			return "", nil
		}
		return sub.GetAlias().GetAliasname(), r
	}
	return "", nil
}

func (ev *evaluator) fromItem(n *pg_query.Node, outer *frame) ([]*frame, error) {
	if j := n.GetJoinExpr(); j != nil {
		return ev.join(j, outer)
	}
	if rf := n.GetRangeFunction(); rf != nil {
		// unnest(reloptions), generate_series...: over arrays model
		// tables never have, so no rows.
		return nil, nil
	}
	if rv := n.GetRangeVar(); rv != nil {
		_, isCTE := ev.cte(rv)
		if _, ok := ev.cat.relation(rv.GetSchemaname(), rv.GetRelname(), ev.c.user, ev.c.database()); !ok && !isCTE {
			name := rv.GetRelname()
			if rv.GetSchemaname() != "" {
				name = rv.GetSchemaname() + "." + name
			}
			return nil, &sqlError{Code: codeUndefinedTable, Message: fmt.Sprintf("relation %q does not exist (or is a model table, which a catalog query cannot join)", name)}
		}
	}
	name, r := ev.namedRelation(n, outer)
	if r == nil {
		if sub := n.GetRangeSubselect(); sub != nil {
			_, err := ev.query(sub.GetSubquery().GetSelectStmt(), outer)
			return nil, err
		}
		return nil, refusef(codeFeature, "this FROM item in a catalog query")
	}
	out := make([]*frame, len(r.rows))
	for i, row := range r.rows {
		out[i] = &frame{names: []string{name}, rels: []*relation{r}, vals: [][]any{row}, outer: outer}
	}
	return out, nil
}

func (ev *evaluator) join(j *pg_query.JoinExpr, outer *frame) ([]*frame, error) {
	left, err := ev.fromItem(j.GetLarg(), outer)
	if err != nil {
		return nil, err
	}
	right, err := ev.fromItem(j.GetRarg(), outer)
	if err != nil {
		return nil, err
	}
	nullRight := ev.emptyFrame([]*pg_query.Node{j.GetRarg()}, outer)
	nullLeft := ev.emptyFrame([]*pg_query.Node{j.GetLarg()}, outer)
	var out []*frame
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		matched := false
		for ri, r := range right {
			f := joinFrames(l, r)
			if q := j.GetQuals(); q != nil {
				v, err := ev.eval(q, f)
				if err != nil {
					return nil, err
				}
				if v != true {
					continue
				}
			}
			matched, rightMatched[ri] = true, true
			out = append(out, f)
		}
		if !matched && (j.GetJointype() == pg_query.JoinType_JOIN_LEFT || j.GetJointype() == pg_query.JoinType_JOIN_FULL) {
			out = append(out, joinFrames(l, nullRight))
		}
	}
	if j.GetJointype() == pg_query.JoinType_JOIN_RIGHT || j.GetJointype() == pg_query.JoinType_JOIN_FULL {
		for ri, r := range right {
			if !rightMatched[ri] {
				out = append(out, joinFrames(nullLeft, r))
			}
		}
	}
	return out, nil
}

// column finds a column reference in the frame or an enclosing one.
func (f *frame) column(parts []string) (any, uint32, bool) {
	col := strings.ToLower(parts[len(parts)-1])
	qual := ""
	if len(parts) >= 2 {
		qual = strings.ToLower(parts[len(parts)-2])
	}
	for fr := f; fr != nil; fr = fr.outer {
		for i, r := range fr.rels {
			if qual != "" && strings.ToLower(fr.names[i]) != qual {
				continue
			}
			if k := r.index(col); k >= 0 {
				return fr.vals[i][k], r.types[k], true
			}
			if qual != "" {
				// A catalog column this endpoint does not model (a
				// PostgreSQL feature model tables lack): NULL, so clients
				// probing newer or older catalogs still get an answer.
				return nil, oidText, true
			}
		}
	}
	return nil, 0, false
}

var aggregates = map[string]bool{"count": true, "max": true, "min": true, "sum": true, "bool_or": true, "bool_and": true,
	"array_agg": true, "string_agg": true}

func hasAggregate(ts []*pg_query.ResTarget) bool {
	for _, t := range ts {
		if fc := t.GetVal().GetFuncCall(); fc != nil && aggregates[funcName(fc)] && fc.GetOver() == nil {
			return true
		}
	}
	return false
}

func (ev *evaluator) aggregate(n *pg_query.Node, rows []*frame) (any, error) {
	fc := n.GetFuncCall()
	if fc == nil || !aggregates[funcName(fc)] {
		if len(rows) == 0 {
			return nil, nil
		}
		return ev.eval(n, rows[0])
	}
	name := funcName(fc)
	if name == "count" && fc.GetAggStar() {
		return int64(len(rows)), nil
	}
	if name == "array_agg" || name == "string_agg" {
		return ev.collect(fc, rows)
	}
	var acc any
	var count int64
	for _, f := range rows {
		if len(fc.GetArgs()) == 0 {
			continue
		}
		v, err := ev.eval(fc.GetArgs()[0], f)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		count++
		switch {
		case acc == nil:
			acc = v
		case name == "max" && compareNullsLast(v, acc) > 0, name == "min" && compareNullsLast(v, acc) < 0:
			acc = v
		case name == "sum":
			a, _ := toInt(acc)
			b, _ := toInt(v)
			acc = a + b
		case name == "bool_or":
			acc = acc == true || v == true
		case name == "bool_and":
			acc = acc == true && v == true
		}
	}
	if name == "count" {
		return count, nil
	}
	return acc, nil
}

// typeOf is the static type of an output expression.
func (ev *evaluator) typeOf(n *pg_query.Node, f *frame) uint32 {
	switch {
	case n.GetColumnRef() != nil:
		if _, t, ok := f.column(columnParts(n.GetColumnRef())); ok && t != 0 {
			return t
		}
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.GetIval() != nil:
			return oidInt4
		case c.GetFval() != nil:
			return oidNumeric
		case c.GetBoolval() != nil:
			return oidBool
		}
	case n.GetTypeCast() != nil:
		if t, ok := castType(n.GetTypeCast()); ok {
			return t
		}
		return ev.typeOf(n.GetTypeCast().GetArg(), f)
	case n.GetBoolExpr() != nil, n.GetNullTest() != nil:
		return oidBool
	case n.GetAExpr() != nil:
		name := ""
		if len(n.GetAExpr().GetName()) > 0 {
			name = n.GetAExpr().GetName()[0].GetString_().GetSval()
		}
		if name == "||" {
			return oidText
		}
		if name == "+" || name == "-" || name == "*" {
			return ev.typeOf(n.GetAExpr().GetLexpr(), f)
		}
		return oidBool
	case n.GetCaseExpr() != nil:
		if ws := n.GetCaseExpr().GetArgs(); len(ws) > 0 {
			return ev.typeOf(ws[0].GetCaseWhen().GetResult(), f)
		}
	case n.GetCoalesceExpr() != nil:
		if as := n.GetCoalesceExpr().GetArgs(); len(as) > 0 {
			return ev.typeOf(as[0], f)
		}
	case n.GetSubLink() != nil:
		if n.GetSubLink().GetSubLinkType() == pg_query.SubLinkType_EXISTS_SUBLINK {
			return oidBool
		}
	case n.GetFuncCall() != nil:
		if t, ok := funcTypes[funcName(n.GetFuncCall())]; ok {
			return t
		}
		if fc := n.GetFuncCall(); (funcName(fc) == "max" || funcName(fc) == "min") && len(fc.GetArgs()) == 1 {
			return ev.typeOf(fc.GetArgs()[0], f)
		}
	}
	return oidText
}

var funcTypes = map[string]uint32{"count": oidInt8, "pg_backend_pid": oidInt4, "pg_table_is_visible": oidBool, "pg_type_is_visible": oidBool,
	"has_table_privilege": oidBool, "has_schema_privilege": oidBool, "has_database_privilege": oidBool, "pg_is_in_recovery": oidBool,
	"pg_relation_size": oidInt8, "pg_total_relation_size": oidInt8, "pg_has_role": oidBool, "has_column_privilege": oidBool,
	"pg_function_is_visible": oidBool, "current_schemas": oidText, "array_lower": oidInt4, "array_upper": oidInt4,
	"row_number": oidInt8, "has_any_column_privilege": oidBool, "has_sequence_privilege": oidBool, "has_function_privilege": oidBool}

func castType(tc *pg_query.TypeCast) (uint32, bool) {
	names := tc.GetTypeName().GetNames()
	if len(names) == 0 {
		return 0, false
	}
	switch strings.ToLower(names[len(names)-1].GetString_().GetSval()) {
	case "oid", "regclass", "regproc", "regnamespace":
		return oidOID, true
	case "int2", "smallint":
		return oidInt2, true
	case "int4", "integer", "int":
		return oidInt4, true
	case "int8", "bigint":
		return oidInt8, true
	case "bool", "boolean":
		return oidBool, true
	case "text", "varchar", "regtype", "name", "bpchar":
		return oidText, true
	case "char":
		return oidChar, true
	}
	return 0, false
}

func columnParts(cr *pg_query.ColumnRef) []string {
	var parts []string
	for _, f := range cr.GetFields() {
		parts = append(parts, f.GetString_().GetSval())
	}
	return parts
}

// eval evaluates an expression over one row: SQL three-valued logic with
// nil as NULL.
func (ev *evaluator) eval(n *pg_query.Node, f *frame) (any, error) {
	switch {
	case n == nil:
		return nil, nil
	case n.GetColumnRef() != nil:
		parts := columnParts(n.GetColumnRef())
		v, _, ok := f.column(parts)
		if !ok {
			return nil, &sqlError{Code: codeUndefinedColumn, Message: fmt.Sprintf("column %q does not exist", strings.Join(parts, "."))}
		}
		return v, nil
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.GetIsnull():
			return nil, nil
		case c.GetIval() != nil:
			return int64(c.GetIval().GetIval()), nil
		case c.GetFval() != nil:
			return c.GetFval().GetFval(), nil
		case c.GetSval() != nil:
			return c.GetSval().GetSval(), nil
		case c.GetBoolval() != nil:
			return c.GetBoolval().GetBoolval(), nil
		}
		return nil, nil
	case n.GetParamRef() != nil:
		return catalogParam(ev.params.value(int(n.GetParamRef().GetNumber()), oidText))
	case n.GetTypeCast() != nil:
		castParam(ev.params, n.GetTypeCast())
		v, err := ev.eval(n.GetTypeCast().GetArg(), f)
		if err != nil {
			return nil, err
		}
		return ev.cast(v, n.GetTypeCast())
	case n.GetBoolExpr() != nil:
		return ev.boolExpr(n.GetBoolExpr(), f)
	case n.GetNullTest() != nil:
		v, err := ev.eval(n.GetNullTest().GetArg(), f)
		if err != nil {
			return nil, err
		}
		return (v == nil) == (n.GetNullTest().GetNulltesttype() == pg_query.NullTestType_IS_NULL), nil
	case n.GetAExpr() != nil:
		return ev.aexpr(n.GetAExpr(), f)
	case n.GetCaseExpr() != nil:
		return ev.caseExpr(n.GetCaseExpr(), f)
	case n.GetCoalesceExpr() != nil:
		for _, a := range n.GetCoalesceExpr().GetArgs() {
			v, err := ev.eval(a, f)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	case n.GetSubLink() != nil:
		return ev.subLink(n.GetSubLink(), f)
	case n.GetFuncCall() != nil:
		return ev.call(n.GetFuncCall(), f)
	case n.GetSqlvalueFunction() != nil:
		switch n.GetSqlvalueFunction().GetOp() {
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER,
			pg_query.SQLValueFunctionOp_SVFOP_USER, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return ev.c.user, nil
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
			return ev.c.database(), nil
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
			return ev.currentSchema(), nil
		}
		return nil, nil
	case n.GetAArrayExpr() != nil:
		var vals []any
		for _, e := range n.GetAArrayExpr().GetElements() {
			v, err := ev.eval(e, f)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return vals, nil
	case n.GetCollateClause() != nil:
		return ev.eval(n.GetCollateClause().GetArg(), f)
	}
	return nil, nil
}

func (ev *evaluator) currentSchema() any {
	if len(ev.cat.tables) > 0 {
		return ev.cat.tables[0].Schema
	}
	return nil
}

func (ev *evaluator) cast(v any, tc *pg_query.TypeCast) (any, error) {
	names := tc.GetTypeName().GetNames()
	typ := strings.ToLower(names[len(names)-1].GetString_().GetSval())
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "regclass":
		if s, ok := v.(string); ok {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
			schema, name, found := strings.Cut(strings.ReplaceAll(s, `"`, ""), ".")
			if !found {
				schema, name = "", schema
			}
			if oid, ok := systemRelOID(schema, name); ok {
				return oid, nil
			}
			for i, t := range ev.cat.tables {
				if strings.EqualFold(t.Name, name) && (schema == "" || strings.EqualFold(t.Schema, schema)) {
					return relOID(i), nil
				}
			}
			return nil, &sqlError{Code: codeUndefinedTable, Message: fmt.Sprintf("relation %q does not exist", s)}
		}
		return v, nil
	case "oid", "int2", "int4", "int8", "integer", "smallint", "bigint", "int", "regproc", "regnamespace":
		if i, ok := toInt(v); ok {
			return i, nil
		}
		return nil, &sqlError{Code: codeTextRep, Message: fmt.Sprintf("invalid input syntax for type %s: %q", typ, fmt.Sprint(v))}
	case "bool", "boolean":
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			return x == "t" || x == "true" || x == "on" || x == "1", nil
		}
	case "regtype":
		if i, ok := toInt(v); ok {
			return typeName(uint32(i)), nil
		}
	case "text", "varchar", "name", "char", "bpchar":
		return textValue(oidText, v), nil
	}
	return v, nil
}

func (ev *evaluator) boolExpr(b *pg_query.BoolExpr, f *frame) (any, error) {
	switch b.GetBoolop() {
	case pg_query.BoolExprType_NOT_EXPR:
		v, err := ev.eval(b.GetArgs()[0], f)
		if err != nil || v == nil {
			return nil, err
		}
		return v != true, nil
	case pg_query.BoolExprType_AND_EXPR:
		var null bool
		for _, a := range b.GetArgs() {
			v, err := ev.eval(a, f)
			if err != nil {
				return nil, err
			}
			if v == nil {
				null = true
			} else if v != true {
				return false, nil
			}
		}
		if null {
			return nil, nil
		}
		return true, nil
	}
	var null bool
	for _, a := range b.GetArgs() {
		v, err := ev.eval(a, f)
		if err != nil {
			return nil, err
		}
		if v == true {
			return true, nil
		}
		null = null || v == nil
	}
	if null {
		return nil, nil
	}
	return false, nil
}

func (ev *evaluator) aexpr(e *pg_query.A_Expr, f *frame) (any, error) {
	op := ""
	if names := e.GetName(); len(names) > 0 {
		op = names[len(names)-1].GetString_().GetSval()
	}
	l, err := ev.eval(e.GetLexpr(), f)
	if err != nil {
		return nil, err
	}
	if e.GetKind() == pg_query.A_Expr_Kind_AEXPR_IN {
		items := e.GetRexpr().GetList().GetItems()
		var vals []any
		for _, it := range items {
			v, err := ev.eval(it, f)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		in := anyEqual(l, vals)
		if in == nil {
			return nil, nil
		}
		return (in == true) == (op == "="), nil
	}
	r, err := ev.eval(e.GetRexpr(), f)
	if err != nil {
		return nil, err
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY:
		vals, _ := r.([]any)
		if op == "=" {
			return anyEqual(l, vals), nil
		}
		for _, v := range vals {
			if b, _ := binaryOp(op, l, v); b == true {
				return true, nil
			}
		}
		return false, nil
	case pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		vals, _ := r.([]any)
		for _, v := range vals {
			if b, _ := binaryOp(op, l, v); b != true {
				return false, nil
			}
		}
		return true, nil
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		if l == nil || r == nil {
			return nil, nil
		}
		re := likeRegexp(fmt.Sprint(r), e.GetKind() == pg_query.A_Expr_Kind_AEXPR_ILIKE)
		m := re.MatchString(fmt.Sprint(l))
		return m != strings.HasPrefix(op, "!"), nil
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		vals, _ := r.([]any)
		items := e.GetRexpr().GetList().GetItems()
		if len(items) == 2 {
			lo, _ := ev.eval(items[0], f)
			hi, _ := ev.eval(items[1], f)
			vals = []any{lo, hi}
		}
		if len(vals) != 2 || l == nil {
			return nil, nil
		}
		in := compareNullsLast(l, vals[0]) >= 0 && compareNullsLast(l, vals[1]) <= 0
		return in == (e.GetKind() == pg_query.A_Expr_Kind_AEXPR_BETWEEN), nil
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT:
		return compareNullsLast(l, r) != 0 || (l == nil) != (r == nil), nil
	case pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return compareNullsLast(l, r) == 0 && (l == nil) == (r == nil), nil
	}
	return binaryOp(op, l, r)
}

func anyEqual(l any, vals []any) any {
	if l == nil {
		return nil
	}
	null := false
	for _, v := range vals {
		if v == nil {
			null = true
		} else if compareNullsLast(l, v) == 0 {
			return true
		}
	}
	if null {
		return nil
	}
	return false
}

func binaryOp(op string, l, r any) (any, error) {
	if l == nil || r == nil {
		return nil, nil
	}
	switch op {
	case "=":
		return compareNullsLast(l, r) == 0, nil
	case "<>", "!=":
		return compareNullsLast(l, r) != 0, nil
	case "<":
		return compareNullsLast(l, r) < 0, nil
	case "<=":
		return compareNullsLast(l, r) <= 0, nil
	case ">":
		return compareNullsLast(l, r) > 0, nil
	case ">=":
		return compareNullsLast(l, r) >= 0, nil
	case "~", "!~", "~*", "!~*":
		pat := fmt.Sprint(r)
		if strings.Contains(op, "*") {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, &sqlError{Code: "2201B", Message: "invalid regular expression: " + err.Error()}
		}
		return re.MatchString(textValue(oidText, l)) != strings.HasPrefix(op, "!"), nil
	case "||":
		return textValue(oidText, l) + textValue(oidText, r), nil
	case "+", "-", "*":
		a, ok1 := toInt(l)
		b, ok2 := toInt(r)
		if !ok1 || !ok2 {
			return nil, nil
		}
		switch op {
		case "+":
			return a + b, nil
		case "-":
			return a - b, nil
		}
		return a * b, nil
	}
	return nil, refusef(codeFeature, "operator %s in a catalog query", op)
}

func likeRegexp(p string, fold bool) *regexp.Regexp {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(string(p[i])))
			}
		case '%':
			b.WriteString("(?s:.*)")
		case '_':
			b.WriteString("(?s:.)")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return i, err == nil
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// compareNullsLast orders values: numbers numerically (a numeric string
// against a number too, as oid = '16384' compares), else as text; NULL
// sorts last.
func compareNullsLast(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	_, aNum := a.(int64)
	_, bNum := b.(int64)
	if aNum || bNum {
		x, ok1 := toInt(a)
		y, ok2 := toInt(b)
		if ok1 && ok2 {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	if ab, ok := a.(bool); ok {
		if bb, ok := b.(bool); ok {
			switch {
			case ab == bb:
				return 0
			case !ab:
				return -1
			}
			return 1
		}
	}
	return strings.Compare(textValue(oidText, a), textValue(oidText, b))
}

func (ev *evaluator) caseExpr(c *pg_query.CaseExpr, f *frame) (any, error) {
	var subject any
	if c.GetArg() != nil {
		v, err := ev.eval(c.GetArg(), f)
		if err != nil {
			return nil, err
		}
		subject = v
	}
	for _, w := range c.GetArgs() {
		cw := w.GetCaseWhen()
		v, err := ev.eval(cw.GetExpr(), f)
		if err != nil {
			return nil, err
		}
		hit := v == true
		if c.GetArg() != nil {
			hit = subject != nil && v != nil && compareNullsLast(subject, v) == 0
		}
		if hit {
			return ev.eval(cw.GetResult(), f)
		}
	}
	return ev.eval(c.GetDefresult(), f)
}

func (ev *evaluator) subLink(s *pg_query.SubLink, f *frame) (any, error) {
	sel := s.GetSubselect().GetSelectStmt()
	if sel == nil {
		return nil, nil
	}
	r, err := ev.query(sel, f)
	if err != nil {
		return nil, err
	}
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return len(r.rows) > 0, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(r.rows) == 0 || len(r.rows[0]) == 0 {
			return nil, nil
		}
		return r.rows[0][0], nil
	case pg_query.SubLinkType_ANY_SUBLINK:
		l, err := ev.eval(s.GetTestexpr(), f)
		if err != nil {
			return nil, err
		}
		var vals []any
		for _, row := range r.rows {
			vals = append(vals, row[0])
		}
		return anyEqual(l, vals), nil
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		var parts []string
		for _, row := range r.rows {
			parts = append(parts, textValue(oidText, row[0]))
		}
		return "{" + strings.Join(parts, ",") + "}", nil
	}
	return nil, nil
}

// call evaluates the functions catalog queries use.
func (ev *evaluator) call(fc *pg_query.FuncCall, f *frame) (any, error) {
	name := funcName(fc)
	if fc.GetOver() != nil {
		return f.window[fc], nil
	}
	var args []any
	for _, a := range fc.GetArgs() {
		v, err := ev.eval(a, f)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	switch name {
	case "version":
		return "PostgreSQL " + ServerVersion + " (Ossie semantic layer SQL endpoint)", nil
	case "current_schema":
		return ev.currentSchema(), nil
	case "current_schemas":
		var names []string
		for _, t := range ev.cat.tables {
			names = append(names, t.Schema)
		}
		return "{" + strings.Join(names, ",") + "}", nil
	case "current_database":
		return ev.c.database(), nil
	case "current_user", "session_user", "user":
		return ev.c.user, nil
	case "current_setting":
		return ev.c.sess.get(fmt.Sprint(arg(0))), nil
	case "set_config":
		return arg(1), nil
	case "pg_backend_pid":
		return int64(ev.c.pid), nil
	case "pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_has_role":
		return true, nil
	case "has_table_privilege", "has_schema_privilege", "has_database_privilege", "has_column_privilege", "has_any_column_privilege",
		"has_sequence_privilege", "has_function_privilege":
		return readPrivilege(arg(len(args) - 1)), nil
	case "replace":
		if arg(0) == nil || arg(1) == nil || arg(2) == nil {
			return nil, nil
		}
		return strings.ReplaceAll(textValue(oidText, arg(0)), textValue(oidText, arg(1)), textValue(oidText, arg(2))), nil
	case "format":
		return formatText(args)
	case "pg_is_in_recovery":
		return false, nil
	case "pg_get_userbyid":
		return ev.c.user, nil
	case "format_type":
		if i, ok := toInt(arg(0)); ok {
			return typeName(uint32(i)), nil
		}
		return nil, nil
	case "obj_description", "col_description":
		relid, ok := toInt(arg(0))
		if !ok {
			return nil, nil
		}
		sub := int64(0)
		if name == "col_description" {
			sub, _ = toInt(arg(1))
		}
		for i, t := range ev.cat.tables {
			if relOID(i) == relid {
				if sub == 0 {
					return nonEmpty(t.Description), nil
				}
				if sub >= 1 && int(sub) <= len(t.Columns) {
					return nonEmpty(t.Columns[sub-1].Description), nil
				}
			}
		}
		return nil, nil
	case "pg_encoding_to_char":
		return "UTF8", nil
	case "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size":
		return int64(0), nil
	case "lower":
		if arg(0) == nil {
			return nil, nil
		}
		return strings.ToLower(fmt.Sprint(arg(0))), nil
	case "upper":
		if arg(0) == nil {
			return nil, nil
		}
		return strings.ToUpper(fmt.Sprint(arg(0))), nil
	case "quote_ident":
		return identText(fmt.Sprint(arg(0))), nil
	case "like_escape": // LIKE ... ESCAPE
		return likeEscape(arg(0), arg(1)), nil
	case "concat":
		var b strings.Builder
		for _, a := range args {
			if a != nil {
				b.WriteString(textValue(oidText, a))
			}
		}
		return b.String(), nil
	case "array_to_string":
		return "", nil
	}
	return nil, nil
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
