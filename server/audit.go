package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
)

// AuditOptions configures the query audit log (Config.Audit).
type AuditOptions struct {
	// Logger receives one "query" line per answered or refused query;
	// nil: Config.Logger.
	Logger *slog.Logger
	// FilterValues adds the filter values to the line. Off by default:
	// values may be personal data (a customer id, an e-mail) that the
	// audit trail must not copy.
	FilterValues bool
}

type viaKey struct{}

// WithVia records which front end a query came through ("mcp",
// "pgwire") for the audit line. The HTTP routes set none (their request
// id marks them "http"), nor do in-process callers ("in-process").
func WithVia(ctx context.Context, via string) context.Context {
	return context.WithValue(ctx, viaKey{}, via)
}

// auditFilter is one filter as the audit line shows it.
type auditFilter struct {
	Member string `json:"member"`
	Op     string `json:"op"`
	Values []any  `json:"values,omitempty"`
}

// auditSink passes an answer through and keeps what the audit line
// reports: the version asked (set by stream once the model is found) and
// the row count and truncation.
type auditSink struct {
	format.AnswerSink
	start   time.Time
	version string
	tail    format.AnswerTail
}

func (a *auditSink) End(t *format.AnswerTail) error {
	a.tail = *t
	return a.AnswerSink.End(t)
}

// audit writes the audit line of one answer (stream: REST /query in
// every format, MCP, Answer): who asked (caller, roles,
// how authenticated, request id), what (model and version, metrics,
// dimensions, filter members and operators), how long it took and how it
// ended (rows, truncated, outcome: "ok" or the problem code, HTTP status).
// model_version is the version asked, refused or failed as well as
// answered; "" only when no model of that name is served.
func (s *Server) audit(ctx context.Context, model string, q *plan.Query, a *auditSink, err error) {
	log := s.cfg.Audit.Logger
	if log == nil {
		log = s.cfg.Logger
	}
	attrs := []slog.Attr{slog.String("model", model), slog.String("model_version", a.version)}
	id := auth.IdentityFrom(ctx)
	if id != nil {
		attrs = append(attrs, slog.String("caller", id.Name), slog.Any("roles", id.Roles), slog.String("auth", id.Method))
	} else {
		attrs = append(attrs, slog.String("caller", ""), slog.Any("roles", []string{}))
	}
	via, _ := ctx.Value(viaKey{}).(string)
	if via == "" {
		via = "in-process"
		if problem.RequestIDFrom(ctx) != "" {
			via = "http"
		}
	}
	attrs = append(attrs, slog.String("via", via))
	if rid := problem.RequestIDFrom(ctx); rid != "" {
		attrs = append(attrs, slog.String("request_id", rid))
	}
	if q != nil {
		dims := make([]string, len(q.Dimensions))
		for i, d := range q.Dimensions {
			dims[i] = d.Name()
		}
		filters := make([]auditFilter, len(q.Filters))
		for i, f := range q.Filters {
			filters[i] = auditFilter{Member: f.Field + f.Metric, Op: f.Op}
			if s.cfg.Audit.FilterValues {
				filters[i].Values = f.AllValues()
			}
		}
		attrs = append(attrs, slog.Any("metrics", q.Metrics), slog.Any("dimensions", dims), slog.Any("filters", filters))
	}
	attrs = append(attrs, slog.Float64("duration_ms", float64(time.Since(a.start).Microseconds())/1000))
	outcome, status := "ok", http.StatusOK
	if err != nil {
		outcome, status = "error", http.StatusInternalServerError
		var e *problem.Error
		if errors.As(err, &e) {
			outcome, status = e.Code, e.Status
		}
	}
	rows, truncated := a.tail.RowCount, a.tail.Truncated
	attrs = append(attrs, slog.Int("rows", rows), slog.Bool("truncated", truncated), slog.String("outcome", outcome), slog.Int("status", status))
	log.LogAttrs(ctx, slog.LevelInfo, "query", attrs...)
}
