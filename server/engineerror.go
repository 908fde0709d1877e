package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// Client-facing details of engine failures, one per engine error class
// (the Detail of the *problem.Error an answer fails with).
// They are fixed strings on purpose: an engine's own message quotes the
// planned SQL, which under governance holds the caller's row filters and
// the physical table and column names the model hides (DESIGN.md section
// 6), so it is only logged, under the request id the problem carries.
const (
	DetailInvalidInput = "a filter value cannot be converted to the type of the field it is compared with"
	DetailNotFound     = "the model's source (a table, view or column a dataset reads) is missing in the engine (drift)"
	DetailPermission   = "the engine's user may not read a source of the model"
	DetailSandboxed    = "the model's source reads a file or setting outside the engine's sandbox, which allows only the database's relations and the files --allow-read names"
	DetailUnavailable  = "the engine cannot be reached right now; retry later"
	DetailOutOfMemory  = "the engine ran out of memory for this query; ask for fewer rows or groups (a narrower date range, fewer dimensions) or raise the engine's memory limit (--engine-memory-limit for the embedded DuckDB)"
	DetailEngine       = "the engine failed the query"
	// DetailInLog ends the details above whose engine message is kept
	// back; with Config.DebugErrors the message itself is given instead.
	DetailInLog = "; an operator can find the engine's message in the server log under this request_id"
)

// engineError maps an engine failure of q to a problem with a generic
// Detail per class (engine.ErrInvalidInput 400 OSS4005 with the filter's
// path when only one filter carries values, ErrNotFound and
// ErrPermissionDenied 502 OSS5001, ErrSandboxed 403 OSS5014,
// ErrOutOfMemory and ErrUnavailable 503 OSS5001, else 502
// OSS5001), logs the engine's message with the request id, and keeps that
// message in EngineMessage for in-process callers. Config.DebugErrors adds
// it to Detail for ungoverned callers (no Identity in ctx).
func (s *Server) engineError(parent, qctx context.Context, q *plan.Query, err error) *problem.Error {
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		return &problem.Error{Status: 499, Code: compiler.CodeTimeout, Title: "Request cancelled", Detail: "the request was cancelled before the query finished", Cause: err}
	case qctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return &problem.Error{Status: http.StatusGatewayTimeout, Code: compiler.CodeTimeout, Title: "Query timed out",
			Detail: "the query did not finish within " + s.cfg.QueryTimeout.String(), Cause: err}
	}
	e := &problem.Error{Status: http.StatusBadGateway, Code: compiler.CodeEngine, Title: "Engine error", Detail: DetailEngine, Cause: err}
	var ee *engine.Error
	if errors.As(err, &ee) {
		e.EngineMessage = ee.Message
	} else {
		e.EngineMessage = err.Error()
	}
	// The engine's message is only logged; a detail whose class says what
	// to do on its own (retry, fix the filter value) does not point there.
	pointsToLog := true
	switch {
	case errors.Is(err, engine.ErrOutOfMemory):
		e.Status, e.Title, e.Detail = http.StatusServiceUnavailable, "Engine out of memory", DetailOutOfMemory
		pointsToLog = false
	case errors.Is(err, engine.ErrUnavailable):
		e.Status, e.Title, e.Detail = http.StatusServiceUnavailable, "Engine unavailable", DetailUnavailable
		pointsToLog = false
	case errors.Is(err, engine.ErrInvalidInput):
		// A filter value of the wrong type for an undeclared datatype: the
		// request is at fault. Declaring datatype in the model catches it
		// in the planner with the filter's path instead.
		e.Status, e.Code, e.Title, e.Detail = http.StatusBadRequest, compiler.CodeBadFilter, "Invalid filter value", DetailInvalidInput
		path := valuedFilterPath(q)
		if path != "" {
			e.Detail += " (" + path + ")"
		}
		e.Problems = compiler.Problems{{Code: compiler.CodeBadFilter, Severity: compiler.SeverityError, Path: path, Message: e.Detail}}
		pointsToLog = false
	case errors.Is(err, engine.ErrNotFound):
		e.Detail = DetailNotFound
	case errors.Is(err, engine.ErrSandboxed):
		// The model's source, not the engine's grants, is at fault.
		e.Status, e.Code, e.Title, e.Detail = http.StatusForbidden, compiler.CodeSandboxed, "Source outside the engine sandbox", DetailSandboxed
	case errors.Is(err, engine.ErrPermissionDenied):
		e.Detail = DetailPermission
	}
	id := problem.RequestIDFrom(parent)
	s.cfg.Logger.Warn("engine error", "request_id", id, "status", e.Status, "code", e.Code, "error", err)
	switch {
	case s.cfg.DebugErrors && auth.IdentityFrom(parent) == nil:
		e.Detail += "; engine: " + e.EngineMessage
	case pointsToLog:
		e.Detail += DetailInLog
	}
	return e
}

// valuedFilterPath is the path of the one filter of q that compares with
// values ("filters[2].values"), or "" when none or several do: only then
// is it known which value the engine could not convert.
func valuedFilterPath(q *plan.Query) string {
	if q == nil {
		return ""
	}
	found := -1
	for i, f := range q.Filters {
		if len(f.Values) == 0 && f.Value == nil {
			continue
		}
		if found >= 0 {
			return ""
		}
		found = i
	}
	if found < 0 {
		return ""
	}
	if len(q.Filters[found].Values) == 0 {
		return fmt.Sprintf("filters[%d].value", found)
	}
	return fmt.Sprintf("filters[%d].values", found)
}
