package server

import (
	"context"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/compiler/sqlfmt"
	"github.com/ossie-dev/ossie/server/problem"
)

// PlanSQL plans q against model without running it and returns the SQL,
// the columns and, when q.Explain, the plan (POST /sql, the MCP explain
// tool). Errors are *Error: those of Plan, and 403 OSS5007 for a governed
// caller: the SQL of a governed caller spells out its row filters,
// physical sources and the expressions behind masked fields; its plan
// names the row filters and masks too.
func (s *Server) PlanSQL(ctx context.Context, model string, q *plan.Query) (*PlanResponse, error) {
	return s.planSQL(ctx, model, q, true)
}

// PlanSQLForOwner is PlanSQL for whoever wrote the model and its
// governance file: a governed caller's plan too, rules and all, which
// PlanSQL refuses because that caller must not read them. `ossiectl query
// --role R --explain` uses it (the local user holds both files, as
// `ossiectl sql --role R` does); never serve it to a request.
func (s *Server) PlanSQLForOwner(ctx context.Context, model string, q *plan.Query) (*PlanResponse, error) {
	return s.planSQL(ctx, model, q, false)
}

func (s *Server) planSQL(ctx context.Context, model string, q *plan.Query, gated bool) (*PlanResponse, error) {
	// One lookup for the plan and the version reported with it: a version
	// swapped in meanwhile must not be paired with this plan.
	m, perr := s.lookupFor(ctx, model)
	if perr != nil {
		return nil, perr
	}
	if v, _ := m.visibleTo(ctx); gated && v.Governed {
		return nil, &problem.Error{Status: http.StatusForbidden, Code: compiler.CodeSQLGoverned, Title: "SQL preview not available",
			Detail: "the planned SQL would show governance rules; use /query for answers, or ossiectl sql to preview the SQL without a role"}
	}
	p, err := s.plan(ctx, m, q)
	if err != nil {
		return nil, err
	}
	resp := &PlanResponse{Model: m.art.Name, ModelVersion: m.art.Version, SQL: sqlfmt.Format(p.SQL), Columns: planColumns(p.Columns), Rollup: p.Rollup}
	if q.Explain {
		resp.Explain = p.Explain()
	}
	return resp, nil
}
