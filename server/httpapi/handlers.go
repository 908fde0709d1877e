package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/queryjson"
)

func (s *api) handleList(w http.ResponseWriter, r *http.Request) {
	problem.WriteJSON(w, http.StatusOK, map[string]any{"models": s.VisibleModels(r.Context())})
}

func (s *api) handleDetail(w http.ResponseWriter, r *http.Request) {
	d, err := s.DescribeModel(r.Context(), modelPath(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	problem.WriteJSON(w, http.StatusOK, d)
}

func (s *api) handleSQL(w http.ResponseWriter, r *http.Request) {
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

// readQuery is readQueryRequest for /sql, which plans without running:
// total, a count of the rows run, is refused there (OSS4001 at total).
func (s *api) readQuery(w http.ResponseWriter, r *http.Request, name string) (*plan.Query, *problem.Error) {
	req, err := s.readQueryRequest(w, r, name)
	if err != nil {
		return nil, err
	}
	if perr := req.ForPlan(); perr != nil {
		return nil, perr
	}
	return &req.Query, nil
}

// readQueryRequest checks the model first (an unknown model is 404 whatever
// the body), then reads at most MaxBodyBytes and decodes the request
// (queryjson.Decode).
func (s *api) readQueryRequest(w http.ResponseWriter, r *http.Request, name string) (*queryjson.Request, *problem.Error) {
	if err := s.CheckModel(r.Context(), name); err != nil {
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
	return queryjson.Decode(body)
}

// handleQuery answers in the format the Accept header asks for (JSON by
// default, CSV, Arrow IPC stream), writing rows as the engine returns
// them. An error before the first bytes went out is a problem document;
// after that the response is aborted (the client sees an incomplete body,
// never a complete-looking one) and the error is logged.
func (s *api) handleQuery(w http.ResponseWriter, r *http.Request) {
	name := modelPath(r)
	req, perr := s.readQueryRequest(w, r, name)
	if perr != nil {
		problem.WriteProblem(w, r, perr)
		return
	}
	if perr := req.ForAnswer(); perr != nil {
		problem.WriteProblem(w, r, perr)
		return
	}
	sink, out := format.SinkFor(format.Negotiate(r.Header.Get("Accept")), w)
	_, err := s.Stream(r.Context(), name, &req.Query, server.AnswerOptions{Total: req.Total}, sink)
	defer func() { out().Release() }()
	if err == nil {
		return
	}
	if o := out(); o != nil && o.Started {
		s.cfg.Logger.Warn("answer cut after its first bytes", "request_id", problem.RequestIDFrom(r.Context()), "path", r.URL.Path, "error", err)
		panic(http.ErrAbortHandler)
	}
	if se := server.SinkFailure(err); se != nil {
		err = &problem.Error{Status: http.StatusInternalServerError, Code: compiler.CodeEngine, Title: "Cannot encode the answer", Detail: se.Error(), Cause: se}
	}
	if o := out(); o != nil {
		for _, k := range []string{"Content-Type", format.HdrCache, "Age", format.HdrTruncated, format.HdrRowCount, format.HdrTotal, "Trailer"} {
			w.Header().Del(k)
		}
	}
	s.fail(w, r, err)
}

// modelPath is the model a request addresses: {model}, or
// {namespace}/{model} on the namespaced routes.
func modelPath(r *http.Request) string {
	if ns := r.PathValue("namespace"); ns != "" {
		return ns + "/" + r.PathValue("model")
	}
	return r.PathValue("model")
}

func (s *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *problem.Error
	if !errors.As(err, &e) {
		e = &problem.Error{Status: http.StatusInternalServerError, Title: "Internal error", Detail: "internal error", Cause: err}
	}
	if e.Status >= 500 || e.Status == 499 {
		s.cfg.Logger.Warn("query failed", "request_id", problem.RequestIDFrom(r.Context()), "path", r.URL.Path, "status", e.Status, "code", e.Code, "error", e.Cause)
	}
	problem.WriteProblem(w, r, e)
}

func (s *api) handleHealth(w http.ResponseWriter, r *http.Request) {
	problem.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyDoc is the /readyz body: ready or not, and every model name with
// the version and source serving it and the last load error of that
// source. When ready it also carries "status": "ready"; when not, it is a
// problem document (status 503) with these members added.
type readyDoc struct {
	Ready  bool                          `json:"ready"`
	Models map[string]server.ModelStatus `json:"models"`
}

func (s *api) handleReady(w http.ResponseWriter, r *http.Request) {
	models := s.Status()
	err := s.Ready(r.Context())
	if err == nil {
		problem.WriteJSON(w, http.StatusOK, struct {
			Status string `json:"status"`
			readyDoc
		}{server.ReadyStatus(models), readyDoc{Ready: true, Models: models}})
		return
	}
	if !errors.Is(err, context.Canceled) {
		s.cfg.Logger.Warn("not ready", "error", err)
	}
	detail := server.ReadyDetail(err)
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
