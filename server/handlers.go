package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
)

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	out := make([]ModelSummary, len(s.names))
	for i, n := range s.names {
		out[i] = s.models[n].summary
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": out})
}

func (s *Server) handleDetail(w http.ResponseWriter, r *http.Request) {
	m, err := s.lookup(r.PathValue("model"))
	if err != nil {
		writeProblem(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, m.detail)
}

func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	q, perr := s.readQuery(w, r, name)
	if perr != nil {
		writeProblem(w, r, perr)
		return
	}
	resp, err := s.Answer(r.Context(), name, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.cfg.Logger.Debug("answered", "model", resp.Model, "version", resp.ModelVersion, "rows", resp.RowCount, "truncated", resp.Truncated)
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleSQL(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	q, perr := s.readQuery(w, r, name)
	if perr != nil {
		writeProblem(w, r, perr)
		return
	}
	p, err := s.Plan(r.Context(), name, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	m := s.models[name]
	writeJSON(w, http.StatusOK, PlanResponse{Model: m.art.Name, ModelVersion: m.art.Version, SQL: p.SQL, Columns: planColumns(p.Columns)})
}

// readQuery checks the model first (an unknown model is 404 whatever the
// body), then reads at most MaxBodyBytes and parses the query strictly.
func (s *Server) readQuery(w http.ResponseWriter, r *http.Request, name string) (*plan.Query, *Error) {
	if _, err := s.lookup(name); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: compiler.CodeTooLarge, Title: "Request body too large",
				Detail: "the request body exceeds the limit of " + strconv.FormatInt(tooBig.Limit, 10) + " bytes"}
		}
		return nil, &Error{Status: http.StatusBadRequest, Code: compiler.CodeBadQuery, Title: "Invalid query", Detail: "cannot read the request body"}
	}
	q, probs := plan.ParseQuery(body)
	if probs.HasErrors() {
		return nil, queryProblems(probs)
	}
	return q, nil
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Status: http.StatusInternalServerError, Title: "Internal error", Detail: "internal error", Cause: err}
	}
	if e.Status >= 500 || e.Status == 499 {
		s.cfg.Logger.Warn("query failed", "path", r.URL.Path, "status", e.Status, "code", e.Code, "error", e.Cause)
	}
	writeProblem(w, r, e)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if err := s.Ready(r.Context()); err != nil {
		if !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Warn("not ready", "error", err)
		}
		// The engine message may carry details meant for operators only.
		writeProblem(w, r, &Error{Status: http.StatusServiceUnavailable, Title: "Not ready", Detail: readyDetail(s)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "models": len(s.names)})
}

func readyDetail(s *Server) string {
	switch {
	case len(s.models) == 0:
		return "no models loaded"
	case s.cfg.Engine == nil:
		return "no engine configured"
	}
	return "the engine does not answer"
}
