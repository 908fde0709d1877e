package pgwire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// Semantic SQL → plan.Query (docs/sql-api.md, "Accepted SQL"). A SELECT
// over one model table names dimensions and metrics; the planner decides
// how each metric aggregates, so the SQL around a metric column never
// changes its value: MEASURE(m), m bare, and SUM/AVG/MIN/MAX/COUNT(m) all
// mean the metric m as the model defines it. Every construct outside this
// subset is refused with a SQLSTATE and a message naming it; nothing is
// passed to the engine as SQL.

// semantic is one translated SELECT: the model, the query, and the result
// columns in SELECT order.
type semantic struct {
	table *table
	query plan.Query
	cols  []outCol
}

// outCol is one result column: its name, its PostgreSQL type, and the
// index of the planned answer column it shows.
type outCol struct {
	Name string
	OID  uint32
	src  int
}

// selItem is one resolved member reference.
type selItem struct {
	col   *column
	grain string // dimensions only
}

// key is the item's name in the planned answer (plan.Dimension.Name, and
// "@via" for a dimension along a chosen path), which order_by names.
func (it selItem) key() string {
	k := it.col.Member
	if it.grain != "" {
		k += "." + it.grain
	}
	if it.col.Via != "" {
		k += "@" + it.col.Via
	}
	return k
}

// oid is the PostgreSQL type of the item's values (a grain makes a date,
// or a timestamp for hours, as the planner types the bucket).
func (it selItem) oid() uint32 {
	if it.grain != "" {
		if it.grain == string(dialect.Hour) {
			return oidTimestamp
		}
		return oidDate
	}
	return oidFor(it.col.Datatype, it.col.Metric)
}

// translator turns one statement into a semantic query for one caller.
type translator struct {
	cat    *catalog
	params *paramSet
	zone   string
}

func (tr *translator) selectStmt(s *pg_query.SelectStmt) (*semantic, error) {
	if err := refuseClauses(s); err != nil {
		return nil, err
	}
	if len(s.GetFromClause()) != 1 {
		if len(s.GetFromClause()) == 0 {
			return nil, refusef(codeFeature, "a SELECT without FROM: select from a model table (SELECT ... FROM model.model)")
		}
		return nil, refusef(codeFeature, "several tables in FROM: a model's relationships join its datasets; select from one model table")
	}
	from := s.GetFromClause()[0]
	if sub := from.GetRangeSubselect(); sub != nil {
		return tr.wrapped(s, sub)
	}
	rv := from.GetRangeVar()
	if rv == nil {
		if from.GetJoinExpr() != nil {
			return nil, refusef(codeFeature, "JOIN: a model's relationships join its datasets; select from one model table")
		}
		return nil, refusef(codeFeature, "this FROM item: select from a model table")
	}
	t, ok := tr.cat.find(rv.GetSchemaname(), rv.GetRelname())
	if !ok {
		name := rv.GetRelname()
		if rv.GetSchemaname() != "" {
			name = rv.GetSchemaname() + "." + name
		}
		return nil, &sqlError{Code: codeUndefinedTable, Message: fmt.Sprintf("relation %q does not exist", name),
			Hint: "each model is a schema holding one table of the model's name, e.g. flights.flights"}
	}
	r := &resolver{t: t, alias: rv.GetRelname()}
	if a := rv.GetAlias(); a != nil {
		r.alias = a.GetAliasname()
	}
	sem := &semantic{table: t}
	sem.query.Timezone = tr.zone
	var items []selItem
	var names []string
	for _, n := range s.GetTargetList() {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && isStar(cr) {
			for i := range t.Columns {
				items = append(items, selItem{col: &t.Columns[i]})
				names = append(names, t.Columns[i].Name)
			}
			continue
		}
		it, err := r.member(rt.GetVal())
		if err != nil {
			return nil, err
		}
		name := rt.GetName()
		if name == "" {
			name = it.col.Name
		}
		items = append(items, it)
		names = append(names, name)
	}
	dims, metrics := map[string]int{}, map[string]int{}
	for _, it := range items {
		if it.col.Metric {
			if _, ok := metrics[it.key()]; !ok {
				metrics[it.key()] = len(sem.query.Metrics)
				sem.query.Metrics = append(sem.query.Metrics, it.col.Member)
			}
		} else if _, ok := dims[it.key()]; !ok {
			dims[it.key()] = len(sem.query.Dimensions)
			sem.query.Dimensions = append(sem.query.Dimensions, plan.Dimension{Field: it.col.Member, Grain: it.grain, Via: it.col.Via})
		}
	}
	for i, it := range items {
		src := dims[it.key()]
		if it.col.Metric {
			src = len(sem.query.Dimensions) + metrics[it.key()]
		}
		sem.cols = append(sem.cols, outCol{Name: names[i], OID: it.oid(), src: src})
	}
	if sem.query.Metrics == nil {
		sem.query.Metrics = []string{}
	}
	if err := r.groupBy(s.GetGroupClause(), items, names, dims); err != nil {
		return nil, err
	}
	var err error
	if sem.query.Filters, err = tr.predicates(r, s.GetWhereClause(), false, nil); err != nil {
		return nil, err
	}
	if sem.query.Filters, err = tr.predicates(r, s.GetHavingClause(), true, sem.query.Filters); err != nil {
		return nil, err
	}
	for _, n := range s.GetSortClause() {
		o, err := tr.orderItem(r, n.GetSortBy(), items, names)
		if err != nil {
			return nil, err
		}
		sem.query.OrderBy = append(sem.query.OrderBy, o)
	}
	if sem.query.Limit, sem.query.Offset, err = tr.limits(s); err != nil {
		return nil, err
	}
	if len(sem.query.Metrics) == 0 {
		sem.query.Through = r.t.throughOfVias(&sem.query)
	}
	return sem, nil
}

// wrapped is the form BI tools generate around a query: SELECT * (or some
// of its columns) FROM (SELECT ...) AS t, with an optional ORDER BY of
// the inner columns and LIMIT/OFFSET. The outer limit and offset apply to
// the inner answer's rows.
func (tr *translator) wrapped(s *pg_query.SelectStmt, sub *pg_query.RangeSubselect) (*semantic, error) {
	if s.GetWhereClause() != nil || len(s.GetGroupClause()) > 0 || s.GetHavingClause() != nil {
		return nil, refusef(codeFeature, "WHERE, GROUP BY or HAVING around a subquery: put them in the inner SELECT")
	}
	in := sub.GetSubquery().GetSelectStmt()
	if in == nil {
		return nil, refusef(codeFeature, "this subquery: only a SELECT may be wrapped")
	}
	sem, err := tr.selectStmt(in)
	if err != nil {
		return nil, err
	}
	var cols []outCol
	for _, n := range s.GetTargetList() {
		rt := n.GetResTarget()
		cr := rt.GetVal().GetColumnRef()
		if cr == nil {
			return nil, refusef(codeFeature, "an expression around a subquery: select its columns by name")
		}
		if isStar(cr) {
			cols = append(cols, sem.cols...)
			continue
		}
		i, ok := outIndex(sem.cols, lastName(cr))
		if !ok {
			return nil, &sqlError{Code: codeUndefinedColumn, Message: fmt.Sprintf("column %q does not exist in the subquery", lastName(cr))}
		}
		c := sem.cols[i]
		if rt.GetName() != "" {
			c.Name = rt.GetName()
		}
		cols = append(cols, c)
	}
	limit, offset, err := tr.limits(s)
	if err != nil {
		return nil, err
	}
	if len(s.GetSortClause()) > 0 {
		if sem.query.Limit != nil || sem.query.Offset != 0 {
			return nil, refusef(codeFeature, "ORDER BY around a subquery that has LIMIT or OFFSET: order inside it")
		}
		sem.query.OrderBy = nil
		for _, n := range s.GetSortClause() {
			sb := n.GetSortBy()
			cr := sb.GetNode().GetColumnRef()
			if cr == nil {
				return nil, refusef(codeFeature, "ORDER BY around a subquery: order by its columns' names")
			}
			i, ok := outIndex(sem.cols, lastName(cr))
			if !ok {
				return nil, &sqlError{Code: codeUndefinedColumn, Message: fmt.Sprintf("column %q does not exist in the subquery", lastName(cr))}
			}
			o, err := orderOf(sb, keyOfSrc(sem, sem.cols[i].src))
			if err != nil {
				return nil, err
			}
			sem.query.OrderBy = append(sem.query.OrderBy, o)
		}
	}
	// Rows [offset, offset+limit) of the inner rows [inOff, inOff+inLim).
	sem.query.Offset += offset
	if sem.query.Limit != nil {
		left := max(*sem.query.Limit-offset, 0)
		if limit == nil || *limit > left {
			limit = &left
		}
	}
	sem.query.Limit = limit
	sem.cols = cols
	return sem, nil
}

// keyOfSrc is the order_by key of planned answer column src.
func keyOfSrc(sem *semantic, src int) string {
	if src < len(sem.query.Dimensions) {
		return sem.query.Dimensions[src].Name()
	}
	return sem.query.Metrics[src-len(sem.query.Dimensions)]
}

func outIndex(cols []outCol, name string) (int, bool) {
	for i, c := range cols {
		if c.Name == name {
			return i, true
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i, true
		}
	}
	return 0, false
}

// refuseClauses names the SELECT clauses semantic SQL has no meaning for.
func refuseClauses(s *pg_query.SelectStmt) error {
	switch {
	case s.GetOp() != pg_query.SetOperation_SETOP_NONE:
		return refusef(codeFeature, "UNION, INTERSECT or EXCEPT: send each SELECT on its own")
	case s.GetWithClause() != nil:
		return refusef(codeFeature, "WITH (common table expressions)")
	case len(s.GetValuesLists()) > 0:
		return refusef(codeFeature, "VALUES")
	case s.GetIntoClause() != nil:
		return refusef(codeFeature, "SELECT INTO")
	case len(s.GetLockingClause()) > 0:
		return refusef(codeFeature, "FOR UPDATE/SHARE")
	case len(s.GetWindowClause()) > 0:
		return refusef(codeFeature, "WINDOW clauses: windowed metrics are defined in the model")
	case s.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES:
		return refusef(codeFeature, "FETCH ... WITH TIES")
	}
	if d := s.GetDistinctClause(); len(d) > 0 && !(len(d) == 1 && d[0].GetNode() == nil) {
		return refusef(codeFeature, "DISTINCT ON: the answer has one row per combination of its dimensions")
	}
	return nil
}

// resolver resolves column references against one model table.
type resolver struct {
	t     *table
	alias string
}

func isStar(cr *pg_query.ColumnRef) bool {
	f := cr.GetFields()
	return len(f) > 0 && f[len(f)-1].GetAStar() != nil
}

func lastName(cr *pg_query.ColumnRef) string {
	f := cr.GetFields()
	return f[len(f)-1].GetString_().GetSval()
}

// column resolves a column reference: col, table.col, schema.table.col,
// or dataset.field written as a qualified name.
func (r *resolver) column(cr *pg_query.ColumnRef) (*column, error) {
	var parts []string
	for _, f := range cr.GetFields() {
		if f.GetAStar() != nil {
			return nil, refusef(codeFeature, "* inside an expression")
		}
		parts = append(parts, f.GetString_().GetSval())
	}
	name := parts[len(parts)-1]
	switch {
	case len(parts) == 2 && !strings.EqualFold(parts[0], r.alias) && !strings.EqualFold(parts[0], r.t.Name):
		name = parts[0] + "." + parts[1] // dataset.field
	case len(parts) == 3 && !strings.EqualFold(parts[1], r.t.Name):
		return nil, &sqlError{Code: codeUndefinedTable, Message: fmt.Sprintf("missing FROM-clause entry for table %q", parts[1])}
	case len(parts) > 3:
		return nil, refusef(codeFeature, "a column reference with more than three parts")
	}
	i, ok := r.t.lookup(name)
	if !ok {
		return nil, &sqlError{Code: codeUndefinedColumn, Message: fmt.Sprintf("column %q does not exist in %s.%s", name, r.t.Schema, r.t.Name),
			Hint: "the columns are the model's dimensions (dataset_field) and metrics; \\d " + r.t.Schema + "." + r.t.Name + " lists them"}
	}
	return &r.t.Columns[i], nil
}

// aggregates BI tools wrap around a measure; each means the metric itself.
var measureWrappers = map[string]bool{"measure": true, "sum": true, "avg": true, "min": true, "max": true, "count": true}

// member resolves a SELECT, GROUP BY, ORDER BY or predicate operand.
func (r *resolver) member(n *pg_query.Node) (selItem, error) {
	if cr := n.GetColumnRef(); cr != nil {
		c, err := r.column(cr)
		return selItem{col: c}, err
	}
	fc := n.GetFuncCall()
	if fc == nil {
		return selItem{}, refusef(codeFeature, "%s: select a dimension, a metric, MEASURE(metric) or DATE_TRUNC('grain', time_dimension)", nodeName(n))
	}
	fn := funcName(fc)
	if fc.GetOver() != nil || fc.GetAggFilter() != nil || len(fc.GetAggOrder()) > 0 {
		return selItem{}, refusef(codeFeature, "%s with OVER, FILTER or ORDER BY", strings.ToUpper(fn))
	}
	args := fc.GetArgs()
	switch {
	case measureWrappers[fn]:
		if fc.GetAggStar() || len(args) != 1 || fc.GetAggDistinct() {
			return selItem{}, refusef(codeFeature, "%s(%s): aggregate a metric column (MEASURE(metric)); counts are metrics of the model", strings.ToUpper(fn), argText(fc))
		}
		it, err := r.member(args[0])
		if err != nil {
			return selItem{}, err
		}
		if !it.col.Metric || it.grain != "" {
			return selItem{}, &sqlError{Code: codeGrouping, Message: fmt.Sprintf("%s(%s): %s is a dimension, not a metric; aggregates are metrics defined in the model", strings.ToUpper(fn), it.col.Name, it.col.Name)}
		}
		return it, nil
	case fn == "date_trunc":
		if len(args) != 2 {
			return selItem{}, refusef(codeFeature, "DATE_TRUNC with %d arguments: use DATE_TRUNC('grain', time_dimension)", len(args))
		}
		g := args[0].GetAConst().GetSval().GetSval()
		if args[0].GetAConst() == nil || args[0].GetAConst().GetSval() == nil {
			return selItem{}, refusef(codeFeature, "DATE_TRUNC with a grain that is not a string literal")
		}
		g = strings.ToLower(g)
		known := false
		for _, k := range dialect.Grains {
			known = known || string(k) == g
		}
		if !known {
			return selItem{}, refusef(codeFeature, "DATE_TRUNC('%s', ...): the grains are hour, day, week, month, quarter and year", g)
		}
		it, err := r.member(args[1])
		if err != nil {
			return selItem{}, err
		}
		if it.col.Metric || it.grain != "" || !it.col.IsTime {
			return selItem{}, &sqlError{Code: codeDatatype, Message: fmt.Sprintf("DATE_TRUNC('%s', %s): %s is not a time dimension", g, it.col.Name, it.col.Name)}
		}
		it.grain = g
		return it, nil
	}
	return selItem{}, refusef(codeFunction, "function %s(): the SQL endpoint accepts MEASURE() and DATE_TRUNC() over model columns", fn)
}

func funcName(fc *pg_query.FuncCall) string {
	parts := fc.GetFuncname()
	return strings.ToLower(parts[len(parts)-1].GetString_().GetSval())
}

func argText(fc *pg_query.FuncCall) string {
	if fc.GetAggStar() {
		return "*"
	}
	if fc.GetAggDistinct() {
		return "DISTINCT ..."
	}
	return "..."
}

// nodeName names an expression node for a refusal.
func nodeName(n *pg_query.Node) string {
	switch {
	case n.GetAConst() != nil:
		return "a constant"
	case n.GetTypeCast() != nil:
		return "CAST"
	case n.GetAExpr() != nil:
		return "an operator expression"
	case n.GetCaseExpr() != nil:
		return "CASE"
	case n.GetSubLink() != nil:
		return "a subquery"
	case n.GetCoalesceExpr() != nil:
		return "COALESCE"
	case n.GetParamRef() != nil:
		return "a parameter"
	}
	return "this expression"
}

// groupBy checks GROUP BY against the selected dimensions: the answer has
// one row per combination of them, so GROUP BY, when present, must list
// exactly those (by position, name or expression).
func (r *resolver) groupBy(group []*pg_query.Node, items []selItem, names []string, dims map[string]int) error {
	if len(group) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, g := range group {
		it, err := r.itemRef(g, items, names)
		if err != nil {
			return err
		}
		if it.col.Metric {
			return &sqlError{Code: codeGrouping, Message: fmt.Sprintf("GROUP BY %s: a metric cannot be grouped by", it.col.Name)}
		}
		if _, ok := dims[it.key()]; !ok {
			return &sqlError{Code: codeGrouping, Message: fmt.Sprintf("GROUP BY %s: a dimension that is not selected; select it, or leave it out of GROUP BY", it.col.Name)}
		}
		seen[it.key()] = true
	}
	for k := range dims {
		if !seen[k] {
			return &sqlError{Code: codeGrouping, Message: fmt.Sprintf("column %q must appear in the GROUP BY clause", k)}
		}
	}
	return nil
}

// itemRef resolves a GROUP BY or ORDER BY item: an ordinal of the SELECT
// list, an output name, or a member expression.
func (r *resolver) itemRef(n *pg_query.Node, items []selItem, names []string) (selItem, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().GetIval())
		if i < 1 || i > len(items) {
			return selItem{}, &sqlError{Code: codeInvalidColumnRef, Message: fmt.Sprintf("position %d is not in select list", i)}
		}
		return items[i-1], nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.GetFields()) == 1 && !isStar(cr) {
		for i, nm := range names {
			if nm == lastName(cr) {
				return items[i], nil
			}
		}
	}
	return r.member(n)
}

func (tr *translator) orderItem(r *resolver, sb *pg_query.SortBy, items []selItem, names []string) (plan.Order, error) {
	it, err := r.itemRef(sb.GetNode(), items, names)
	if err != nil {
		return plan.Order{}, err
	}
	return orderOf(sb, it.key())
}

func orderOf(sb *pg_query.SortBy, key string) (plan.Order, error) {
	if sb.GetSortbyNulls() != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
		return plan.Order{}, refusef(codeFeature, "NULLS FIRST/LAST: the planner's order of NULLs applies")
	}
	o := plan.Order{Key: key}
	switch sb.GetSortbyDir() {
	case pg_query.SortByDir_SORTBY_DESC:
		o.Dir = "desc"
	case pg_query.SortByDir_SORTBY_USING:
		return plan.Order{}, refusef(codeFeature, "ORDER BY ... USING")
	}
	return o, nil
}

// limits reads LIMIT and OFFSET: integer constants or parameters.
func (tr *translator) limits(s *pg_query.SelectStmt) (*int, int, error) {
	var limit *int
	if n := s.GetLimitCount(); n != nil {
		if c := n.GetAConst(); c == nil || !c.GetIsnull() { // LIMIT ALL / NULL: none
			v, err := tr.intValue(n, "LIMIT")
			if err != nil {
				return nil, 0, err
			}
			if v != nil {
				limit = v
			}
		}
	}
	off := 0
	if n := s.GetLimitOffset(); n != nil {
		v, err := tr.intValue(n, "OFFSET")
		if err != nil {
			return nil, 0, err
		}
		if v != nil {
			off = *v
		}
	}
	return limit, off, nil
}

// intValue is a non-negative integer constant or parameter; nil for a
// parameter not yet bound.
func (tr *translator) intValue(n *pg_query.Node, clause string) (*int, error) {
	var text string
	switch {
	case n.GetAConst() != nil && n.GetAConst().GetIval() != nil:
		v := int(n.GetAConst().GetIval().GetIval())
		text = strconv.Itoa(v)
	case n.GetParamRef() != nil:
		v, err := tr.params.value(int(n.GetParamRef().GetNumber()), oidInt8)
		if err != nil || v == nil {
			return nil, err
		}
		text = fmt.Sprint(v)
	case n.GetAConst() != nil && n.GetAConst().GetFval() != nil:
		text = n.GetAConst().GetFval().GetFval()
	default:
		return nil, refusef(codeFeature, "%s with %s: use an integer or a parameter", clause, nodeName(n))
	}
	v, err := strconv.Atoi(text)
	if err != nil || v < 0 {
		return nil, &sqlError{Code: codeInvalidRowCount, Message: fmt.Sprintf("%s %s: must be a non-negative integer", clause, text)}
	}
	return &v, nil
}

// predicates appends the filters of a WHERE (dimensions) or HAVING
// (metrics) clause: a conjunction of comparisons, IN, BETWEEN, LIKE
// 'prefix%' or '%part%', and IS [NOT] NULL.
func (tr *translator) predicates(r *resolver, n *pg_query.Node, having bool, out []plan.Filter) ([]plan.Filter, error) {
	if n == nil {
		return out, nil
	}
	if b := n.GetBoolExpr(); b != nil {
		if b.GetBoolop() != pg_query.BoolExprType_AND_EXPR {
			return nil, refusef(codeFeature, "OR and NOT in WHERE/HAVING: filters combine with AND; use IN for alternatives")
		}
		var err error
		for _, a := range b.GetArgs() {
			if out, err = tr.predicates(r, a, having, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if nt := n.GetNullTest(); nt != nil {
		it, err := tr.operand(r, nt.GetArg(), having)
		if err != nil {
			return nil, err
		}
		op := "is_null"
		if nt.GetNulltesttype() == pg_query.NullTestType_IS_NOT_NULL {
			op = "is_not_null"
		}
		return append(out, filterOf(it, op, nil)), nil
	}
	e := n.GetAExpr()
	if e == nil {
		return nil, refusef(codeFeature, "%s in WHERE/HAVING: compare a dimension (WHERE) or a metric (HAVING) with values", nodeName(n))
	}
	opName := ""
	if len(e.GetName()) > 0 {
		opName = e.GetName()[0].GetString_().GetSval()
	}
	left, right := e.GetLexpr(), e.GetRexpr()
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		ops := map[string]string{"=": "=", "<>": "!=", "!=": "!=", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}
		flip := map[string]string{"lt": "gt", "lte": "gte", "gt": "lt", "gte": "lte", "=": "=", "!=": "!="}
		op, ok := ops[opName]
		if !ok || left == nil {
			return nil, refusef(codeFeature, "operator %s in WHERE/HAVING", opName)
		}
		if isValue(left) && !isValue(right) {
			left, right, op = right, left, flip[op]
		}
		it, err := tr.operand(r, left, having)
		if err != nil {
			return nil, err
		}
		v, err := tr.value(right, it)
		if err != nil {
			return nil, err
		}
		return append(out, filterOf(it, op, []any{v})), nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		it, err := tr.operand(r, left, having)
		if err != nil {
			return nil, err
		}
		var vals []any
		for _, x := range right.GetList().GetItems() {
			v, err := tr.value(x, it)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		op := "in"
		if opName == "<>" {
			op = "not_in"
		}
		return append(out, filterOf(it, op, vals)), nil
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN:
		it, err := tr.operand(r, left, having)
		if err != nil {
			return nil, err
		}
		bounds := right.GetList().GetItems()
		var vals []any
		for _, x := range bounds {
			v, err := tr.value(x, it)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return append(out, filterOf(it, "between", vals)), nil
	case pg_query.A_Expr_Kind_AEXPR_LIKE:
		if opName != "~~" {
			return nil, refusef(codeFeature, "NOT LIKE")
		}
		it, err := tr.operand(r, left, having)
		if err != nil {
			return nil, err
		}
		v, err := tr.value(right, it)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, refusef(codeFeature, "LIKE with a pattern that is not text")
		}
		op, arg, err := likeOp(s)
		if err != nil {
			return nil, err
		}
		return append(out, filterOf(it, op, []any{arg})), nil
	}
	return nil, refusef(codeFeature, "this comparison (%s) in WHERE/HAVING", strings.TrimPrefix(e.GetKind().String(), "AEXPR_"))
}

// likeOp maps a LIKE pattern onto a filter: 'x%' starts_with, '%x%'
// contains, 'x' equals (backslash escapes honoured). Other patterns have
// no filter operator.
func likeOp(p string) (op, arg string, err error) {
	var b strings.Builder
	var wild []int // positions of unescaped % in the unescaped text
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case c == '%':
			wild = append(wild, b.Len())
		case c == '_':
			return "", "", refusef(codeFeature, "LIKE with _: only 'text%%' (starts with) and '%%text%%' (contains) patterns are filters")
		default:
			b.WriteByte(c)
		}
	}
	s := b.String()
	switch {
	case len(wild) == 0:
		return "=", s, nil
	case len(wild) == 1 && wild[0] == len(s):
		return "starts_with", s, nil
	case len(wild) == 2 && wild[0] == 0 && wild[1] == len(s):
		return "contains", s, nil
	}
	return "", "", refusef(codeFeature, "LIKE '%s': only 'text%%' (starts with) and '%%text%%' (contains) patterns are filters", p)
}

func filterOf(it selItem, op string, vals []any) plan.Filter {
	if it.col.Metric {
		return plan.Filter{Metric: it.col.Member, Op: op, Values: vals}
	}
	return plan.Filter{Field: it.col.Member, Grain: it.grain, Via: it.col.Via, Op: op, Values: vals}
}

// operand is the member side of a predicate: a dimension in WHERE, a
// metric in HAVING.
func (tr *translator) operand(r *resolver, n *pg_query.Node, having bool) (selItem, error) {
	it, err := r.member(n)
	if err != nil {
		return selItem{}, err
	}
	switch {
	case having && !it.col.Metric:
		return selItem{}, &sqlError{Code: codeGrouping, Message: fmt.Sprintf("HAVING on %s: a dimension; filter dimensions in WHERE", it.col.Name)}
	case !having && it.col.Metric:
		return selItem{}, &sqlError{Code: codeGrouping, Message: fmt.Sprintf("aggregate functions are not allowed in WHERE: %s is a metric; filter metrics in HAVING", it.col.Name)}
	}
	return it, nil
}

func isValue(n *pg_query.Node) bool {
	return n.GetAConst() != nil || n.GetParamRef() != nil || n.GetTypeCast() != nil
}

// value is a literal or a parameter compared with it: numbers stay exact
// (json.Number), text and dates are strings, booleans bool.
func (tr *translator) value(n *pg_query.Node, it selItem) (any, error) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg() // '2024-01-01'::date, DATE '2024-01-01': the text is the value
	}
	if p := n.GetParamRef(); p != nil {
		v, err := tr.params.value(int(p.GetNumber()), it.oid())
		if err != nil {
			return nil, err
		}
		if v == nil {
			return "", nil // not bound yet (Parse, Describe)
		}
		return v, nil
	}
	c := n.GetAConst()
	switch {
	case c == nil:
		return nil, refusef(codeFeature, "%s as a filter value: use a literal or a parameter", nodeName(n))
	case c.GetIsnull():
		return nil, refusef(codeFeature, "a comparison with NULL: use IS NULL or IS NOT NULL")
	case c.GetIval() != nil:
		return json.Number(strconv.Itoa(int(c.GetIval().GetIval()))), nil
	case c.GetFval() != nil:
		return json.Number(c.GetFval().GetFval()), nil
	case c.GetSval() != nil:
		return c.GetSval().GetSval(), nil
	case c.GetBoolval() != nil:
		return c.GetBoolval().GetBoolval(), nil
	}
	return nil, refusef(codeFeature, "this constant as a filter value")
}
