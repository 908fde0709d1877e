package pgwire

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
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
	if err := w.finish(); err != nil {
		return err
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
// and formats. It encodes them into its own buffer and writes that to the
// connection every flushEvery bytes, so rows flow while the engine still
// produces them and the buffer is reused: pgproto3's Backend shrinks its
// write buffer to 1 KiB after each flush, which would regrow it by
// doubling for every 64 KiB of rows (81 MB of allocations for a 17 MB
// answer, BenchmarkLargeAnswer). Messages queued on the Backend before
// the rows (RowDescription) are flushed first; the rows still buffered
// are written by End (and finish), before CommandComplete is queued.
type rowWriter struct {
	c       *conn
	cols    []outCol
	formats []int16
	n       int
	vals    [][]byte
	offs    []int
	buf     []byte // one row's values
	msg     pgproto3.DataRow
	out     []byte // encoded DataRows not yet written
	flushed bool   // the Backend's queued messages went out
}

func (w *rowWriter) Begin(cols []format.ResultColumn) error {
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
	w.offs = w.offs[:0]
	for i, col := range w.cols {
		v := r[col.src]
		if v == nil {
			w.offs = append(w.offs, -1, -1)
			continue
		}
		start := len(w.buf)
		var err error
		w.buf, err = w.c.enc.encode(col.OID, formatOf(w.formats, i), v, w.buf)
		if err != nil {
			return &sqlError{Code: codeDatatype, Message: fmt.Sprintf("column %q: value %v does not encode as %s: %v", col.Name, v, typeName(col.OID), err)}
		}
		w.offs = append(w.offs, start, len(w.buf))
	}
	for i := range w.cols {
		if w.offs[2*i] < 0 {
			w.vals[i] = nil
		} else {
			w.vals[i] = w.buf[w.offs[2*i]:w.offs[2*i+1]:w.offs[2*i+1]]
		}
	}
	w.msg.Values = w.vals
	out, err := w.msg.Encode(w.out)
	if err != nil {
		return &sqlError{Code: codeLimit, Message: err.Error()}
	}
	w.out = out
	w.n++
	if len(w.out) >= flushEvery {
		return w.finish()
	}
	return nil
}

// finish writes the rows still buffered, after what the Backend had
// queued, within the write timeout.
func (w *rowWriter) finish() error {
	if len(w.out) == 0 {
		return nil
	}
	if !w.flushed {
		w.flushed = true
		if err := w.c.flush(); err != nil {
			return &connError{err}
		}
	}
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(w.c.e.opts.WriteTimeout))
	_, err := w.c.nc.Write(w.out)
	w.out = w.out[:0]
	if err != nil {
		return &connError{err}
	}
	return nil
}

// End writes the last rows, then refuses a cut answer: the rows sent are
// followed by an error, so a client never takes a truncated answer for a
// complete one.
func (w *rowWriter) End(rowCount int, truncated bool) error {
	if err := w.finish(); err != nil {
		return err
	}
	if truncated {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("the answer has more than %d rows, the server's row cap: add LIMIT, or filters", rowCount),
			Hint: "rows already sent are incomplete"}
	}
	return nil
}

// bufferSink keeps an answer in memory (a portal read page by page).
type bufferSink struct{ rows [][]any }

func (b *bufferSink) Begin([]format.ResultColumn) error { return nil }
func (b *bufferSink) Row(r []any) error                 { b.rows = append(b.rows, slices.Clone(r)); return nil }
func (b *bufferSink) End(n int, truncated bool) error {
	if truncated {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("the answer has more than %d rows, the server's row cap: add LIMIT, or filters", n)}
	}
	return nil
}
