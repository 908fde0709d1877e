package pgwire

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// windows computes the window functions of a catalog query's select list
// over its rows (after WHERE), into each frame's window values. Only
// row_number() OVER (PARTITION BY ... ORDER BY ...) is known: pgjdbc's
// DatabaseMetaData.getColumns numbers a table's columns with it
// (ORDINAL_POSITION). Other window functions are refused.
func (ev *evaluator) windows(targets []*pg_query.ResTarget, frames []*frame) error {
	for _, t := range targets {
		fc := t.GetVal().GetFuncCall()
		if fc == nil || fc.GetOver() == nil {
			continue
		}
		if name := funcName(fc); name != "row_number" {
			return refusef(codeFeature, "the window function %s in a catalog query", name)
		}
		over := fc.GetOver()
		type keyed struct {
			f         *frame
			partition string
			order     []any
		}
		rows := make([]keyed, len(frames))
		for i, f := range frames {
			rows[i].f = f
			var part []any
			for _, p := range over.GetPartitionClause() {
				v, err := ev.eval(p, f)
				if err != nil {
					return err
				}
				part = append(part, v)
			}
			rows[i].partition = fmt.Sprint(part...)
			for _, sb := range over.GetOrderClause() {
				v, err := ev.eval(sb.GetSortBy().GetNode(), f)
				if err != nil {
					return err
				}
				rows[i].order = append(rows[i].order, v)
			}
		}
		slices.SortStableFunc(rows, func(a, b keyed) int { return compareSortKeys(over.GetOrderClause(), a.order, b.order) })
		n := map[string]int64{}
		for _, r := range rows {
			n[r.partition]++
			if r.f.window == nil {
				r.f.window = map[*pg_query.FuncCall]any{}
			}
			r.f.window[fc] = n[r.partition]
		}
	}
	return nil
}

// compareSortKeys orders two rows by their keys under the SortBy clauses
// sc (ORDER BY of a query or a window): NULLs last ascending, first
// descending, as PostgreSQL's default.
func compareSortKeys(sc []*pg_query.Node, a, b []any) int {
	for i, sb := range sc {
		c := compareNullsLast(a[i], b[i])
		if sb.GetSortBy().GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
