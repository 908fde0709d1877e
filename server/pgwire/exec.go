package pgwire

import (
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ossie-dev/ossie/server"
)

// connError is a failure to write to the client: the connection ends.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

func isConnError(err error) bool {
	var ce *connError
	return errors.As(err, &ce)
}

// flushEvery is how many bytes of DataRows are buffered before they are
// written: rows flow to the client while the engine still produces them.
const flushEvery = 64 << 10

// execResult executes a bound statement: describe sends its
// RowDescription first (the simple protocol); maxRows > 0 pages the rows
// of portal pt (the extended protocol's Execute row limit).
func (c *conn) execResult(res *result, formats []int16, describe bool, maxRows int, pt *portal) error {
	if res.apply != nil {
		if err := res.apply(); err != nil {
			return err
		}
	}
	if res.sem == nil && res.cols == nil {
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.tag)})
		return nil
	}
	if describe {
		c.be.Send(rowDescription(res.columns(), formats))
	}
	if res.sem == nil || maxRows > 0 {
		rows := res.rows
		if res.sem != nil {
			if !pt.fetched {
				var buf bufferSink
				if err := c.answer(res.sem, &buf); err != nil {
					return err
				}
				pt.buffered, pt.fetched = buf.rows, true
			}
			rows = pt.buffered
		}
		return c.sendRows(res, rows, formats, maxRows, pt)
	}
	w := &rowWriter{c: c, cols: res.sem.cols, formats: formats}
	if err := c.answer(res.sem, w); err != nil {
		return err
	}
	c.be.Send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "SELECT %d", w.n)})
	return nil
}

// answer runs sem through the server's query path, cancellable by a
// cancel request.
func (c *conn) answer(sem *semantic, sink server.RowSink) error {
	ctx, done := c.queryContext()
	defer done()
	q := sem.query
	return c.e.b.StreamAnswer(ctx, sem.table.Schema, &q, sink)
}

// sendRows sends rows already in memory, maxRows at a time when set.
func (c *conn) sendRows(res *result, rows [][]any, formats []int16, maxRows int, pt *portal) error {
	start := 0
	if pt != nil {
		start = pt.sent
	}
	end := len(rows)
	if maxRows > 0 && start+maxRows < end {
		end = start + maxRows
	}
	w := &rowWriter{c: c, cols: res.columns(), formats: formats}
	for _, r := range rows[start:end] {
		if err := w.Row(r); err != nil {
			return err
		}
	}
	if pt != nil {
		pt.sent = end
	}
	if end < len(rows) {
		c.be.Send(&pgproto3.PortalSuspended{})
		return nil
	}
	tag := res.tag
	if tag == "" || tag == "SELECT" {
		tag = fmt.Sprintf("SELECT %d", len(rows))
	}
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// rowWriter sends an answer's rows as DataRows, in the columns' order
// and formats.
type rowWriter struct {
	c       *conn
	cols    []outCol
	formats []int16
	n       int
	pending int
	vals    [][]byte
	buf     []byte
}

func (w *rowWriter) Begin(cols []server.ResultColumn) error {
	for _, c := range w.cols {
		if c.src >= len(cols) {
			return &sqlError{Code: codeInternal, Message: "the answer has fewer columns than the statement describes"}
		}
	}
	return nil
}

func (w *rowWriter) Row(r []any) error {
	if w.vals == nil {
		w.vals = make([][]byte, len(w.cols))
	}
	w.buf = w.buf[:0]
	offs := make([]int, 0, 2*len(w.cols))
	for i, col := range w.cols {
		v := r[col.src]
		if v == nil {
			offs = append(offs, -1, -1)
			continue
		}
		start := len(w.buf)
		var err error
		w.buf, err = w.c.enc.encode(col.OID, formatOf(w.formats, i), v, w.buf)
		if err != nil {
			return &sqlError{Code: codeDatatype, Message: fmt.Sprintf("column %q: value %v does not encode as %s: %v", col.Name, v, typeName(col.OID), err)}
		}
		offs = append(offs, start, len(w.buf))
	}
	for i := range w.cols {
		if offs[2*i] < 0 {
			w.vals[i] = nil
		} else {
			w.vals[i] = w.buf[offs[2*i]:offs[2*i+1]:offs[2*i+1]]
		}
	}
	w.c.be.Send(&pgproto3.DataRow{Values: w.vals})
	w.n++
	w.pending += len(w.buf) + 8*len(w.cols)
	if w.pending >= flushEvery {
		w.pending = 0
		if err := w.c.flush(); err != nil {
			return &connError{err}
		}
	}
	return nil
}

// End refuses a cut answer: the rows sent are followed by an error, so a
// client never takes a truncated answer for a complete one.
func (w *rowWriter) End(rowCount int, truncated bool) error {
	if truncated {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("the answer has more than %d rows, the server's row cap: add LIMIT, or filters", rowCount),
			Hint: "rows already sent are incomplete"}
	}
	return nil
}

// bufferSink keeps an answer in memory (a portal read page by page).
type bufferSink struct{ rows [][]any }

func (b *bufferSink) Begin([]server.ResultColumn) error { return nil }
func (b *bufferSink) Row(r []any) error                 { b.rows = append(b.rows, slices.Clone(r)); return nil }
func (b *bufferSink) End(n int, truncated bool) error {
	if truncated {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("the answer has more than %d rows, the server's row cap: add LIMIT, or filters", n)}
	}
	return nil
}
