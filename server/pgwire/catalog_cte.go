package pgwire

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Common table expressions in catalog queries: Metabase reads the
// caller's table privileges through `WITH table_privileges AS (...)
// SELECT t.* FROM table_privileges t`. A CTE is evaluated once, in
// order, so each may read the ones before it (PostgreSQL 7.8, WITH
// queries); RECURSIVE is refused, no client sends it on connect.

// catalogCTEs: every CTE of w is a catalog query, so the statement is
// one (its main query reads them or catalog relations).
func catalogCTEs(w *pg_query.WithClause) bool {
	if len(w.GetCtes()) == 0 {
		return false
	}
	for _, n := range w.GetCtes() {
		q := n.GetCommonTableExpr().GetCtequery().GetSelectStmt()
		if q == nil || !isCatalogQuery(q) {
			return false
		}
	}
	return true
}

// with evaluates the CTEs of w into a new scope; pop removes it.
func (ev *evaluator) with(w *pg_query.WithClause, outer *frame) (pop func(), err error) {
	if w.GetRecursive() {
		return nil, refusef(codeFeature, "WITH RECURSIVE in a catalog query")
	}
	scope := map[string]*relation{}
	ev.ctes = append(ev.ctes, scope)
	pop = func() { ev.ctes = ev.ctes[:len(ev.ctes)-1] }
	for _, n := range w.GetCtes() {
		cte := n.GetCommonTableExpr()
		r, err := ev.query(cte.GetCtequery().GetSelectStmt(), outer)
		if err != nil {
			pop()
			return nil, err
		}
		if names := cte.GetAliascolnames(); len(names) > 0 {
			r = &relation{cols: append([]string(nil), r.cols...), types: r.types, rows: r.rows}
			for i, a := range names {
				if i < len(r.cols) {
					r.cols[i] = a.GetString_().GetSval()
				}
			}
		}
		scope[strings.ToLower(cte.GetCtename())] = r
	}
	return pop, nil
}

// cte returns the CTE an unqualified relation name refers to, innermost
// scope first.
func (ev *evaluator) cte(rv *pg_query.RangeVar) (*relation, bool) {
	if rv.GetSchemaname() != "" {
		return nil, false
	}
	for i := len(ev.ctes) - 1; i >= 0; i-- {
		if r, ok := ev.ctes[i][strings.ToLower(rv.GetRelname())]; ok {
			return r, true
		}
	}
	return nil, false
}
