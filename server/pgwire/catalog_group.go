package pgwire

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// GROUP BY in catalog queries: SQLAlchemy's inspector groups a table's
// key columns per constraint (array_agg(attname ORDER BY ord) ... GROUP
// BY conrelid, conname). Groups are formed from the GROUP BY
// expressions (an integer constant is an output position, as in
// PostgreSQL); each output column is an aggregate over its group or an
// expression of the group's first row. HAVING is refused: no client
// sends it on connect.

// groups partitions rows by s's GROUP BY keys, in order of first
// appearance. Without GROUP BY (an aggregate over every row) the one
// group is all the rows, even none.
func (ev *evaluator) groups(s *pg_query.SelectStmt, targets []*pg_query.ResTarget, rows []*frame) ([][]*frame, error) {
	if s.GetHavingClause() != nil {
		return nil, refusef(codeFeature, "HAVING in a catalog query")
	}
	by := s.GetGroupClause()
	if len(by) == 0 {
		return [][]*frame{rows}, nil
	}
	index := map[string]int{}
	var out [][]*frame
	for _, f := range rows {
		var key strings.Builder
		for _, n := range by {
			if c := n.GetAConst(); c != nil && c.GetIval() != nil {
				pos := int(c.GetIval().GetIval())
				if pos < 1 || pos > len(targets) {
					return nil, &sqlError{Code: codeInvalidColumnRef, Message: fmt.Sprintf("GROUP BY position %d is not in select list", pos)}
				}
				n = targets[pos-1].GetVal()
			}
			v, err := ev.eval(n, f)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&key, "%T:%v\x00", v, v)
		}
		i, ok := index[key.String()]
		if !ok {
			i = len(out)
			index[key.String()] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out, nil
}

// collect is array_agg(v [ORDER BY ...]) as an array's text form
// ({a,b}; the catalog's arrays are text) and string_agg(v, sep [ORDER
// BY ...]); NULL over no rows, as in PostgreSQL.
func (ev *evaluator) collect(fc *pg_query.FuncCall, rows []*frame) (any, error) {
	if len(fc.GetArgs()) == 0 || len(rows) == 0 {
		return nil, nil
	}
	type item struct {
		v    any
		keys []any
	}
	var items []item
	for _, f := range rows {
		v, err := ev.eval(fc.GetArgs()[0], f)
		if err != nil {
			return nil, err
		}
		it := item{v: v}
		for _, sb := range fc.GetAggOrder() {
			k, err := ev.eval(sb.GetSortBy().GetNode(), f)
			if err != nil {
				return nil, err
			}
			it.keys = append(it.keys, k)
		}
		items = append(items, it)
	}
	if order := fc.GetAggOrder(); len(order) > 0 {
		slices.SortStableFunc(items, func(a, b item) int { return compareSortKeys(order, a.keys, b.keys) })
	}
	var parts []string
	for _, it := range items {
		if it.v == nil {
			if funcName(fc) == "array_agg" {
				parts = append(parts, "NULL")
			}
			continue
		}
		parts = append(parts, textValue(oidText, it.v))
	}
	if funcName(fc) == "array_agg" {
		return "{" + strings.Join(parts, ",") + "}", nil
	}
	sep := ""
	if len(fc.GetArgs()) > 1 {
		v, err := ev.eval(fc.GetArgs()[1], rows[0])
		if err != nil {
			return nil, err
		}
		sep = textValue(oidText, v)
	}
	return strings.Join(parts, sep), nil
}
