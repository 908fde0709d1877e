package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
)

// queryRequest is the body of POST /v1/models/{model}/query: a query plus
// the request options that are not part of it.
type queryRequest struct {
	plan.Query
	// Total asks for the row count without limit and offset (Cube's
	// `total`), returned as `total` next to the page.
	Total bool `json:"total,omitempty"`
}

// forAnswer refuses the options an answer does not read: explain (the
// plan endpoints explain; /query and the MCP query tool run).
func (req *queryRequest) forAnswer() *problem.Error {
	if req.Explain {
		return problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: "explain",
			Message: "explain applies to POST /v1/models/{model}/sql and the MCP explain tool, which plan without running"}})
	}
	return nil
}

// forPlan refuses the options a plan does not read: total, a count of
// the rows run (/sql and the MCP explain tool run nothing).
func (req *queryRequest) forPlan() *problem.Error {
	if req.Total {
		return problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: "total",
			Message: "total applies to POST /v1/models/{model}/query and the MCP query tool, which count the rows they run; a plan runs nothing"}})
	}
	return nil
}

// parseQueryRequest decodes body strictly (unknown keys refused, numbers
// kept exact), like plan.ParseQuery.
func parseQueryRequest(body []byte) (*queryRequest, error) {
	var req queryRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return &req, nil
}

// handleQuery answers in the format the Accept header asks for (JSON by
// default, CSV, Arrow IPC stream), writing rows as the engine returns
// them. An error before the first bytes went out is a problem document;
// after that the response is aborted (the client sees an incomplete body,
// never a complete-looking one) and the error is logged.
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	name := modelPath(r)
	req, perr := s.readQueryRequest(w, r, name)
	if perr != nil {
		problem.WriteProblem(w, r, perr)
		return
	}
	if perr := req.forAnswer(); perr != nil {
		problem.WriteProblem(w, r, perr)
		return
	}
	sink, out := format.SinkFor(format.Negotiate(r.Header.Get("Accept")), w)
	_, err := s.stream(r.Context(), name, &req.Query, AnswerOptions{Total: req.Total}, sink)
	defer func() { out().Release() }()
	if err == nil {
		return
	}
	if o := out(); o != nil && o.Started {
		s.cfg.Logger.Warn("answer cut after its first bytes", "request_id", problem.RequestIDFrom(r.Context()), "path", r.URL.Path, "error", err)
		panic(http.ErrAbortHandler)
	}
	var se *sinkError
	if errors.As(err, &se) {
		err = &problem.Error{Status: http.StatusInternalServerError, Code: compiler.CodeEngine, Title: "Cannot encode the answer", Detail: se.Error(), Cause: se.err}
	}
	if o := out(); o != nil {
		for _, k := range []string{"Content-Type", format.HdrCache, "Age", format.HdrTruncated, format.HdrRowCount, format.HdrTotal, "Trailer"} {
			w.Header().Del(k)
		}
	}
	s.fail(w, r, err)
}
