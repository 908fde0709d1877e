package pgwire

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
)

// SQLFor writes q as the semantic SQL this endpoint translates back into
// q, over the table of model d (as DescribeModel shows it to the caller):
// each answer column aliased with the planner's column name
// (`dataset.field`, `dataset.field.grain`, the metric), dimension filters
// in WHERE, metric filters in HAVING, values as escaped literals. It is
// the SQL entry point of the differential test (test/differential): a
// case's query JSON, sent as SQLFor's statement after `SET TIME ZONE`
// (when timeZone is not ""), must give the answer the HTTP API gives.
// Queries with no SQL form (week_start, compare_date_range, relative
// date ranges, a through other than the one the path columns imply) are
// an error; a via is its column (`dataset_field@via`).
func SQLFor(d *server.ModelDetail, q *plan.Query) (sql, timeZone string, err error) {
	t := newTable(d.Name, d)
	col := func(member, via string) (string, error) {
		if via != "" {
			member += "@" + via
		}
		i, ok := t.byMember[member]
		if !ok {
			return "", fmt.Errorf("%q is not a column of %s", member, d.Name)
		}
		return quoteIdent(t.Columns[i].Name), nil
	}
	expr := func(member, grain, via string) (string, error) {
		c, err := col(member, via)
		if err != nil || grain == "" {
			return c, err
		}
		return "DATE_TRUNC('" + grain + "', " + c + ")", nil
	}
	implied := ""
	if len(q.Metrics) == 0 {
		implied = t.throughOfVias(q)
	}
	if q.Through != implied {
		// One table per model: the fact whose rows a dimension-only
		// query lists is only the one its path columns imply
		// (docs/sql-api.md).
		return "", "", fmt.Errorf("through %q has no SQL form", q.Through)
	}
	var sel, group []string
	for i, dm := range q.Dimensions {
		if dm.WeekStart != "" || dm.CompareDateRange != nil {
			return "", "", fmt.Errorf("dimensions[%d]: week_start and compare_date_range have no SQL form", i)
		}
		e, err := expr(dm.Field, dm.Grain, dm.Via)
		if err != nil {
			return "", "", err
		}
		sel = append(sel, e+" AS "+quoteIdent(answerName(dm)))
		group = append(group, strconv.Itoa(len(sel)))
	}
	for _, m := range q.Metrics {
		c, err := col(m, "")
		if err != nil {
			return "", "", err
		}
		sel = append(sel, "MEASURE("+c+") AS "+quoteIdent(m))
	}
	var where, having []string
	for i, f := range q.Filters {
		member := f.Field
		if f.Metric != "" {
			member = f.Metric
		}
		lhs, err := expr(member, f.Grain, f.Via)
		if err != nil {
			return "", "", err
		}
		p, err := predicate(lhs, f)
		if err != nil {
			return "", "", fmt.Errorf("filters[%d]: %w", i, err)
		}
		if f.Metric != "" {
			having = append(having, p)
		} else {
			where = append(where, p)
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if len(q.Metrics) == 0 {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(sel, ", "))
	b.WriteString(" FROM " + quoteIdent(t.Schema) + "." + quoteIdent(t.Name))
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(group) > 0 && len(q.Metrics) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(group, ", "))
	}
	if len(having) > 0 {
		b.WriteString(" HAVING " + strings.Join(having, " AND "))
	}
	var order []string
	for _, o := range q.OrderBy {
		e, err := orderPosition(q.Dimensions, o.Key)
		if err != nil {
			return "", "", err
		}
		if k := o.Key; e == "" {
			i, ok := t.byMember[k]
			if !ok || !t.Columns[i].Metric {
				return "", "", fmt.Errorf("order_by %q is neither a metric nor a selected dimension", k)
			}
			e = quoteIdent(t.Columns[i].Name)
		}
		if strings.EqualFold(o.Dir, "desc") {
			e += " DESC"
		}
		order = append(order, e)
	}
	if len(order) > 0 {
		b.WriteString(" ORDER BY " + strings.Join(order, ", "))
	}
	if q.Limit != nil {
		b.WriteString(" LIMIT " + strconv.Itoa(*q.Limit))
	}
	if q.Offset != 0 {
		b.WriteString(" OFFSET " + strconv.Itoa(q.Offset))
	}
	return b.String(), q.Timezone, nil
}

// answerName is the planner's column name of dm: its Name, and "@via"
// for a dimension along a chosen path.
func answerName(dm plan.Dimension) string {
	if dm.Via != "" {
		return dm.Name() + "@" + dm.Via
	}
	return dm.Name()
}

// orderPosition is the SELECT position of the dimension an order_by key
// names, as the planner reads it (compiler/plan orderDim): the answer
// column's name, else the first dimension of that field, else of that
// field and via; "" when none. A bare field selected along two paths is
// ambiguous, which the planner refuses: then an error, as the key has no
// one SQL form.
func orderPosition(dims []plan.Dimension, key string) (string, error) {
	for i, dm := range dims {
		if answerName(dm) == key {
			return strconv.Itoa(i + 1), nil
		}
	}
	pos := ""
	var vias []string
	for i, dm := range dims {
		if dm.Field == key || (dm.Via != "" && dm.Field+"@"+dm.Via == key) {
			if pos == "" {
				pos = strconv.Itoa(i + 1)
			}
			if !slices.Contains(vias, dm.Via) {
				vias = append(vias, dm.Via)
			}
		}
	}
	if len(vias) > 1 {
		return "", fmt.Errorf("order_by %q names a field selected along several paths", key)
	}
	return pos, nil
}

func predicate(lhs string, f plan.Filter) (string, error) {
	vals := f.Values
	if f.Value != nil {
		vals = append([]any{f.Value}, vals...)
	}
	lits := make([]string, len(vals))
	for i, v := range vals {
		l, err := literalSQL(v)
		if err != nil {
			return "", err
		}
		lits[i] = l
	}
	one := func() (string, error) {
		if len(lits) != 1 {
			return "", fmt.Errorf("op %s takes one value, got %d", f.Op, len(lits))
		}
		return lits[0], nil
	}
	ops := map[string]string{"=": "=", "==": "=", "eq": "=", "equals": "=", "!=": "<>", "<>": "<>", "ne": "<>", "not_equals": "<>",
		"gt": ">", ">": ">", "gte": ">=", ">=": ">=", "lt": "<", "<": "<", "lte": "<=", "<=": "<="}
	op := strings.ToLower(f.Op)
	if sqlOp, ok := ops[op]; ok {
		l, err := one()
		return lhs + " " + sqlOp + " " + l, err
	}
	switch op {
	case "in", "not_in":
		kw := " IN ("
		if op == "not_in" {
			kw = " NOT IN ("
		}
		return lhs + kw + strings.Join(lits, ", ") + ")", nil
	case "between", "in_date_range":
		if len(lits) != 2 {
			return "", fmt.Errorf("op %s with %d values has no SQL form (relative date ranges have none)", f.Op, len(lits))
		}
		return lhs + " BETWEEN " + lits[0] + " AND " + lits[1], nil
	case "contains", "starts_with":
		if len(vals) != 1 {
			return "", fmt.Errorf("op %s takes one value", f.Op)
		}
		s, ok := vals[0].(string)
		if !ok {
			return "", fmt.Errorf("op %s takes text", f.Op)
		}
		pat := likeEscaper.Replace(s) + "%"
		if op == "contains" {
			pat = "%" + pat
		}
		return lhs + " LIKE " + quoteString(pat), nil
	case "is_null", "isnull", "not_set":
		return lhs + " IS NULL", nil
	case "is_not_null", "isnotnull", "set":
		return lhs + " IS NOT NULL", nil
	}
	return "", fmt.Errorf("op %q has no SQL form", f.Op)
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

var sqlNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// literalSQL spells a filter value: numbers checked, text quoted.
func literalSQL(v any) (string, error) {
	switch x := v.(type) {
	case json.Number:
		if !sqlNumber.MatchString(string(x)) {
			return "", fmt.Errorf("%q is not a number", string(x))
		}
		return string(x), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return quoteString(x), nil
	}
	return "", fmt.Errorf("value %v has no SQL form", v)
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
