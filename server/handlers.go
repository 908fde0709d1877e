package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/compiler/sqlfmt"
	"github.com/ossie-dev/ossie/server/problem"
)

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	problem.WriteJSON(w, http.StatusOK, map[string]any{"models": s.visibleSummaries(r.Context())})
}

func (s *Server) handleDetail(w http.ResponseWriter, r *http.Request) {
	d, err := s.describe(r.Context(), modelPath(r))
	if err != nil {
		problem.WriteProblem(w, r, err)
		return
	}
	problem.WriteJSON(w, http.StatusOK, d)
}

func (s *Server) handleSQL(w http.ResponseWriter, r *http.Request) {
	name := modelPath(r)
	q, perr := s.readQuery(w, r, name)
	if perr != nil {
		problem.WriteProblem(w, r, perr)
		return
	}
	resp, err := s.PlanSQL(r.Context(), name, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	problem.WriteJSON(w, http.StatusOK, resp)
}

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

// readQuery is readQueryRequest for /sql, which plans without running:
// total, a count of the rows run, is refused there (OSS4001 at total).
func (s *Server) readQuery(w http.ResponseWriter, r *http.Request, name string) (*plan.Query, *problem.Error) {
	req, err := s.readQueryRequest(w, r, name)
	if err != nil {
		return nil, err
	}
	if perr := req.forPlan(); perr != nil {
		return nil, perr
	}
	return &req.Query, nil
}

// readQueryRequest checks the model first (an unknown model is 404 whatever
// the body), then reads at most MaxBodyBytes and decodes the request
// (decodeQueryRequest).
func (s *Server) readQueryRequest(w http.ResponseWriter, r *http.Request, name string) (*queryRequest, *problem.Error) {
	if _, err := s.lookupFor(r.Context(), name); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, problem.BodyTooLarge(tooBig.Limit)
		}
		return nil, &problem.Error{Status: http.StatusBadRequest, Code: compiler.CodeBadQuery, Title: "Invalid query", Detail: "cannot read the request body"}
	}
	return decodeQueryRequest(body)
}

// decodeQueryRequest refuses a body over compiler.BodyLimits (OSS1021),
// then parses it strictly; only a body that fails to parse is decoded a
// second time, for a problem in plain words. The HTTP routes and the MCP
// query and explain tools read their queries with it, so both accept
// exactly the same forms.
func decodeQueryRequest(body []byte) (*queryRequest, *problem.Error) {
	if p := compiler.CheckBody(body); p != nil {
		return nil, problem.QueryProblems(compiler.Problems{*p})
	}
	req, err := parseQueryRequest(body)
	if err != nil {
		if probs := decodeProblems(body); len(probs) > 0 {
			return nil, problem.QueryProblems(probs)
		}
		return nil, problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "query body: " + err.Error()}})
	}
	if probs := duplicateKeys(body); len(probs) > 0 {
		return nil, problem.QueryProblems(probs)
	}
	return req, nil
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *problem.Error
	if !errors.As(err, &e) {
		e = &problem.Error{Status: http.StatusInternalServerError, Title: "Internal error", Detail: "internal error", Cause: err}
	}
	if e.Status >= 500 || e.Status == 499 {
		s.cfg.Logger.Warn("query failed", "request_id", problem.RequestIDFrom(r.Context()), "path", r.URL.Path, "status", e.Status, "code", e.Code, "error", e.Cause)
	}
	problem.WriteProblem(w, r, e)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	problem.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyDoc is the /readyz body: ready or not, and every model name with
// the version and source serving it and the last load error of that
// source. When ready it also carries "status": "ready"; when not, it is a
// problem document (status 503) with these members added.
type readyDoc struct {
	Ready  bool                   `json:"ready"`
	Models map[string]ModelStatus `json:"models"`
}

// Reasons for not being ready; safe to show (the engine's own error may
// carry connection details and is only logged).
var (
	errNotSynced = errors.New("the ConfigMap cache has not synced yet")
	errNoModels  = errors.New("no models loaded")
	errNoEngine  = errors.New("no engine configured")
)

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	models := s.store.Status()
	err := s.Ready(r.Context())
	if err == nil {
		problem.WriteJSON(w, http.StatusOK, struct {
			Status string `json:"status"`
			readyDoc
		}{readyStatus(models), readyDoc{Ready: true, Models: models}})
		return
	}
	if !errors.Is(err, context.Canceled) {
		s.cfg.Logger.Warn("not ready", "error", err)
	}
	detail := "the engine does not answer"
	for _, safe := range []error{errNotSynced, errNoModels, errNoEngine, errNotBound} {
		if errors.Is(err, safe) {
			detail = safe.Error()
		}
	}
	doc := struct {
		problem.Doc
		readyDoc
	}{problem.Doc{Type: "about:blank", Title: "Not ready", Status: http.StatusServiceUnavailable, Detail: detail, Instance: r.URL.Path, RequestID: problem.RequestIDFrom(r.Context())},
		readyDoc{Models: models}}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Retry-After", "5")
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = json.NewEncoder(w).Encode(doc)
}
