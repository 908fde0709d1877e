package server

import (
	"context"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
)

// The surface the PostgreSQL-wire SQL endpoint (server/pgwire) uses: it
// authenticates a password into the same Identity as a bearer token,
// lists and describes what that caller may read, and answers a plan.Query
// through stream, the one path behind REST and MCP (governance, cache,
// rollups, limits, timeouts, audit). It never plans or runs SQL itself.

// RowSink receives one streamed answer: Begin once with the columns,
// Row per row (the slice is reused after Row returns), End once with the
// row count and whether the row cap cut the answer. An error ends it.
type RowSink interface {
	Begin(cols []format.ResultColumn) error
	Row(r []any) error
	End(rowCount int, truncated bool) error
}

type rowSinkAdapter struct{ sink RowSink }

func (a rowSinkAdapter) Begin(h *format.AnswerHead) error { return a.sink.Begin(h.Columns) }
func (a rowSinkAdapter) Row(r []any) error                { return a.sink.Row(r) }
func (a rowSinkAdapter) End(t *format.AnswerTail) error   { return a.sink.End(t.RowCount, t.Truncated) }

// ViaSQL marks ctx as a query of the SQL endpoint for the audit line
// ("via": "pgwire").
func ViaSQL(ctx context.Context) context.Context { return WithVia(ctx, "pgwire") }

// StreamAnswer answers q against model under the Identity of ctx, exactly
// as POST /v1/models/{model}/query does, handing rows to sink as the
// engine returns them. Errors are *Error as documented on Answer; an
// error of sink is returned as it is (wrapped in a *sinkError, which
// errors.As/Is see through).
func (s *Server) StreamAnswer(ctx context.Context, model string, q *plan.Query, sink RowSink) error {
	_, err := s.stream(ctx, model, q, AnswerOptions{}, rowSinkAdapter{sink})
	return err
}

// AuthRequired reports whether callers must authenticate (Config.Auth is
// set); without it every caller is ungoverned.
func (s *Server) AuthRequired() bool { return s.cfg.Auth != nil }

// AuthenticatePassword maps the password a SQL client sent onto the
// caller it stands for (Auth.AuthenticatePassword); without Config.Auth
// it returns nil, true: ungoverned.
func (s *Server) AuthenticatePassword(password string) (*auth.Identity, bool) {
	return s.cfg.Auth.AuthenticatePassword(password)
}

// VisibleModels lists the models the caller of ctx may read, as GET
// /v1/models does.
func (s *Server) VisibleModels(ctx context.Context) []ModelSummary { return s.visibleSummaries(ctx) }

// DescribeModel is GET /v1/models/{model} for the caller of ctx: only the
// datasets, dimensions and metrics its roles may read. Errors are *Error
// (404 OSS5003 for a model it cannot see).
func (s *Server) DescribeModel(ctx context.Context, name string) (ModelDetail, error) {
	d, err := s.describe(ctx, name)
	if err != nil {
		return ModelDetail{}, err
	}
	return d, nil
}
