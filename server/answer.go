package server

import (
	"context"
	"errors"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
)

// Response is the answer to a metric query (POST /v1/models/{model}/query).
// Rows follow Columns; values are JSON scalars (numbers, strings, booleans,
// null), DATE as "YYYY-MM-DD" and timestamps as RFC 3339. Truncated is true
// when the engine had more rows than the server's row cap: results are
// complete or say they are not (DESIGN.md section 5). Over HTTP the JSON
// members come in this order, so row_count, truncated and total form a
// trailer after the streamed rows (docs/server.md).
type Response struct {
	Model        string                `json:"model"`
	ModelVersion string                `json:"model_version"`
	Columns      []format.ResultColumn `json:"columns"`
	// Cached: the answer comes from the result cache, computed AgeMillis
	// milliseconds ago.
	Cached    bool    `json:"cached"`
	AgeMillis int64   `json:"age_ms,omitempty"`
	Rows      [][]any `json:"rows"`
	RowCount  int     `json:"row_count"`
	Truncated bool    `json:"truncated"`
	// Total is the row count without limit and offset, when asked for
	// (AnswerOptions.Total, `"total": true` in the request).
	Total *int64 `json:"total,omitempty"`
	// SQL is the statement that ran; kept out of the query answer (the
	// /sql endpoint exists for that) but available to Go callers.
	SQL string `json:"-"`
}

// PlanResponse is the answer of POST /v1/models/{model}/sql. SQL is the
// statement laid out on lines for reading (compiler/sqlfmt: whitespace
// only, it runs as the one-line statement the engine is sent). Explain is
// the logical plan as an indented tree (plan.Plan.Explain), present when
// the query asked for it with "explain": true.
type PlanResponse struct {
	Model        string                `json:"model"`
	ModelVersion string                `json:"model_version"`
	SQL          string                `json:"sql"`
	Columns      []format.ResultColumn `json:"columns"`
	Explain      string                `json:"explain,omitempty"`
	// Rollup names the rollup the SQL reads instead of the base tables
	// (docs/rollups.md); absent when the base tables answer.
	Rollup string `json:"rollup,omitempty"`
}

// Plan plans q against model for the server's engine dialect (DuckDB when
// no engine is configured) without running it, under the Identity of ctx
// (IdentityFrom; none = ungoverned). Errors are *Error: 404 OSS5003 for
// an unknown model or one the caller can see nothing of, 400 with every
// planner problem for a bad query (a member the caller may not read is
// reported exactly like an unknown one).
func (s *Server) Plan(ctx context.Context, model string, q *plan.Query) (*plan.Plan, error) {
	m, perr := s.lookupFor(ctx, model)
	if perr != nil {
		return nil, perr
	}
	return s.plan(ctx, m, q)
}

func (s *Server) dialect() dialect.Dialect {
	if s.cfg.Engine != nil {
		return s.cfg.Engine.Dialect()
	}
	return dialect.DuckDB
}

// plan plans under the caller of ctx: its roles decide the readable
// members, row filters and masks (plan.PlanFor).
func (s *Server) plan(ctx context.Context, m *model, q *plan.Query) (*plan.Plan, error) {
	if q == nil {
		return nil, problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "empty query"}})
	}
	// Every front end (REST, MCP, Go callers) plans here, so the size
	// limits hold for all of them.
	if e := s.cfg.Limits.checkQuery(q); e != nil {
		return nil, e
	}
	p, probs := m.planner.PlanFor(q, s.dialect(), auth.IdentityFrom(ctx).Caller())
	if probs.HasErrors() || p == nil {
		if len(probs) == 0 {
			probs = compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "the planner returned no plan"}}
		}
		return nil, problem.QueryProblems(probs)
	}
	return p, nil
}

// Answer plans q against model under the Identity of ctx (IdentityFrom;
// none = ungoverned), runs it on the engine within the configured query
// timeout and row cap, and returns the rows. It is the one code path
// behind the HTTP query endpoint, the demo and `ossiectl query`.
// Errors are *Error: 404 OSS5003 unknown model; 400 planner problems;
// 504 OSS5002 timeout (499 when ctx was cancelled by the caller);
// 503 OSS5001 engine unavailable; 400 OSS4005 a filter value the engine
// cannot convert; 502 OSS5001 any other engine failure. Engine failures
// carry a generic Detail (engineerror.go); the engine's own message is in
// EngineMessage and the logs, never in a problem document.
func (s *Server) Answer(ctx context.Context, model string, q *plan.Query) (*Response, error) {
	return s.AnswerWith(ctx, model, q, AnswerOptions{})
}

// AnswerWith is Answer with per-request options (the pagination total).
func (s *Server) AnswerWith(ctx context.Context, model string, q *plan.Query, opts AnswerOptions) (*Response, error) {
	var c collectSink
	sql, err := s.stream(ctx, model, q, opts, &c)
	if err != nil {
		return nil, err
	}
	c.resp.SQL = sql
	return &c.resp, nil
}

// Stream is Answer handing the answer to sink as the engine returns it
// (POST /v1/models/{model}/query writes JSON, CSV or Arrow this way) and
// returning the SQL that answers q. Errors before sink.Begin are
// *problem.Error as documented on Answer; after it the answer is cut and
// the error says so: SinkFailure tells a failure of sink from one of the
// engine.
func (s *Server) Stream(ctx context.Context, model string, q *plan.Query, opts AnswerOptions, sink format.AnswerSink) (sql string, err error) {
	return s.stream(ctx, model, q, opts, sink)
}

// SinkFailure returns the error of the sink behind err (a client gone, a
// value a format cannot hold) when Stream failed because its sink did,
// and nil when err is not the sink's (the engine's, a refusal).
func SinkFailure(err error) error {
	var se *sinkError
	if errors.As(err, &se) {
		return se.err
	}
	return nil
}

func resultColumns(pc []plan.Column, ec []engine.Column) []format.ResultColumn {
	out := make([]format.ResultColumn, len(pc))
	for i, c := range pc {
		rc := format.ResultColumn{Name: c.Name, Kind: c.Kind, Grain: c.Grain, Type: c.Datatype, Timezone: c.Timezone, StoredTimezone: c.StoredTimezone}
		if i < len(ec) {
			rc.EngineType = ec[i].Type
			if t := engine.Datatype(ec[i].Type); t != ossie.TypeOpaque || rc.Type == "" {
				rc.Type = string(t)
			}
		}
		out[i] = rc
	}
	return out
}

func planColumns(pc []plan.Column) []format.ResultColumn {
	out := make([]format.ResultColumn, len(pc))
	for i, c := range pc {
		out[i] = format.ResultColumn{Name: c.Name, Kind: c.Kind, Type: c.Datatype, Grain: c.Grain, Timezone: c.Timezone, StoredTimezone: c.StoredTimezone}
	}
	return out
}
