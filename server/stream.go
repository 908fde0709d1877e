package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
)

// sinkError marks an error of the sink (a client gone, a value a format
// cannot hold) as opposed to one of the engine.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// AnswerOptions are the per-request options of an answer that are not
// part of the planned query.
type AnswerOptions struct {
	// Total asks for the row count of the whole answer, without limit
	// and offset, next to the page (Cube's `total`).
	Total bool
}

// capQuery returns q with the row cap pushed into its limit: LIMIT
// MaxRows+1 unless q's own limit is smaller, so the engine stops early and
// one row beyond the cap tells that more existed. mayTruncate is false
// when q's own limit already fits the cap.
func (s *Server) capQuery(q *plan.Query) (capped *plan.Query, mayTruncate bool) {
	if q == nil || (q.Limit != nil && *q.Limit <= s.cfg.MaxRows) {
		return q, false
	}
	c := *q
	n := s.cfg.MaxRows + 1
	c.Limit = &n
	return &c, true
}

// stream plans q against model under the Identity of ctx, and hands the
// answer to sink: from the result cache when an identical question was
// answered recently, else from the engine row by row, stopping at the
// row cap. It returns the SQL that answers q. Errors before sink.begin are
// *Error as documented on Answer; after it, the answer is cut and the
// error says so (a *sinkError when the sink failed).
func (s *Server) stream(ctx context.Context, model string, q *plan.Query, opts AnswerOptions, sink format.AnswerSink) (sql string, err error) {
	var a *auditSink
	if s.cfg.Audit != nil {
		a = &auditSink{AnswerSink: sink, start: time.Now()}
		sink = a
		defer func() { s.audit(ctx, model, q, a, err) }()
	}
	m, perr := s.lookupFor(ctx, model)
	if perr != nil {
		return "", perr
	}
	if a != nil {
		// A refusal or an engine failure is the version's too.
		a.version = m.art.Version
	}
	start := time.Now()
	defer func() { s.metrics.observeQuery(m.art.Name, time.Since(start), err) }()
	capped, mayTruncate := s.capQuery(q)
	p, err := s.plan(ctx, m, capped)
	if err != nil {
		return "", err
	}
	if s.cfg.Engine == nil {
		return p.SQL, &problem.Error{Status: http.StatusServiceUnavailable, Code: compiler.CodeEngine, Title: "Engine unavailable", Detail: "no engine is configured"}
	}
	var countSQL string
	if opts.Total {
		all := *q
		all.Limit, all.Offset = nil, 0
		tp, err := s.plan(ctx, m, &all)
		if err != nil {
			return "", err
		}
		countSQL = "SELECT COUNT(*) FROM (" + tp.SQL + ") AS ossie_total"
	}
	run := runSpec{m: m, q: q, sql: p.SQL, countSQL: countSQL, cols: p.Columns, mayTruncate: mayTruncate}
	run.key = keyFor(m.art.Name, m.art.Version, auth.IdentityFrom(ctx), p.SQL, countSQL)
	if s.cache != nil {
		if e, ok := s.cache.Get(run.key); ok {
			s.cache.hits.Inc()
			return p.SQL, replay(e, s.cache.now(), sink)
		}
	}
	return p.SQL, s.shareRun(ctx, run, sink)
}

// runSpec is one planned question ready to run.
type runSpec struct {
	m           *model
	q           *plan.Query
	sql         string
	countSQL    string
	cols        []plan.Column
	mayTruncate bool
	key         cacheKey
}

// run answers r on the engine; with rec set it records the answer
// (flight.go), up to rec's bound.
func (s *Server) run(ctx context.Context, r runSpec, sink format.AnswerSink, rec *answerRecorder) error {
	release, err := s.admit(ctx)
	if err != nil {
		return err
	}
	defer release()
	if rec != nil {
		rec.admitted = true
	}
	qctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	tail := &format.AnswerTail{}
	if r.countSQL != "" {
		res, err := s.cfg.Engine.Query(qctx, r.countSQL, 1)
		if err != nil {
			return s.engineError(ctx, qctx, r.q, err)
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			return errUnexpectedColumns
		}
		n, ok := engine.Int64(res.Rows[0][0])
		if !ok {
			return errUnexpectedColumns
		}
		tail.Total = &n
	}
	err = s.cfg.Engine.Stream(qctx, r.sql, func(cols []engine.Column) error {
		if len(cols) != len(r.cols) {
			return errUnexpectedColumns
		}
		head := format.AnswerHead{Model: r.m.art.Name, ModelVersion: r.m.art.Version, Columns: resultColumns(r.cols, cols)}
		if rec != nil && rec.entry != nil {
			rec.entry.head = head
		}
		if err := sink.Begin(&head); err != nil {
			return &sinkError{err}
		}
		return nil
	}, func(row []any) error {
		if r.mayTruncate && tail.RowCount == s.cfg.MaxRows {
			tail.Truncated = true
			return engine.ErrStop
		}
		tail.RowCount++
		if rec != nil {
			rec.add(row)
		}
		if err := sink.Row(row); err != nil {
			return &sinkError{err}
		}
		return nil
	})
	var se *sinkError
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, errUnexpectedColumns):
		return errUnexpectedColumns
	case err != nil:
		return s.engineError(ctx, qctx, r.q, err)
	}
	if err := sink.End(tail); err != nil {
		return &sinkError{err}
	}
	if rec != nil {
		rec.finish(*tail)
	}
	return nil
}

var errUnexpectedColumns = &problem.Error{Status: http.StatusInternalServerError, Code: compiler.CodeEngine, Title: "Engine error",
	Detail: "the planned query returned an unexpected number of columns"}

// replay hands a cached answer to sink.
func replay(e *cacheEntry, now time.Time, sink format.AnswerSink) error {
	return replayAnswer(e, true, now.Sub(e.created), sink)
}

// replayAnswer hands a recorded answer to sink: one from the result cache
// (cached, computed age ago) or one of an identical query in flight.
func replayAnswer(e *cacheEntry, cached bool, age time.Duration, sink format.AnswerSink) error {
	head := e.head
	head.Cached, head.Age = cached, age
	if err := sink.Begin(&head); err != nil {
		return &sinkError{err}
	}
	for _, r := range e.rows {
		if err := sink.Row(r); err != nil {
			return &sinkError{err}
		}
	}
	tail := e.tail
	if err := sink.End(&tail); err != nil {
		return &sinkError{err}
	}
	return nil
}

// collectSink builds a Response (Answer's in-memory form).
type collectSink struct{ resp Response }

func (c *collectSink) Begin(h *format.AnswerHead) error {
	c.resp.Model, c.resp.ModelVersion, c.resp.Columns = h.Model, h.ModelVersion, h.Columns
	c.resp.Cached, c.resp.AgeMillis = h.Cached, h.Age.Milliseconds()
	c.resp.Rows = [][]any{}
	return nil
}

func (c *collectSink) Row(r []any) error {
	c.resp.Rows = append(c.resp.Rows, slices.Clone(r))
	return nil
}

func (c *collectSink) End(t *format.AnswerTail) error {
	c.resp.RowCount, c.resp.Truncated, c.resp.Total = t.RowCount, t.Truncated, t.Total
	return nil
}
