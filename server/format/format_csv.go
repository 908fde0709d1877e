package format

import (
	"net/http"
)

// csvSink writes the answer over HTTP as CSV (CSVWriter: a header row of
// the column names, then the rows). Truncation, row count and total are
// the Ossie-Truncated, Ossie-Row-Count and Ossie-Total headers or
// trailers (respond.go).
type csvSink struct {
	w   http.ResponseWriter
	out *httpOut
	csv *CSVWriter
}

func (c *csvSink) Begin(h *AnswerHead) error {
	c.out = newHTTPOut(c.w, mediaCSV+"; charset=utf-8; header=present", h)
	c.csv = NewCSVWriter(c.out.buf)
	return c.csv.Header(h.Columns)
}

func (c *csvSink) Row(r []any) error { return c.csv.Row(r) }

func (c *csvSink) End(t *AnswerTail) error {
	if err := c.csv.Flush(); err != nil {
		return err
	}
	return c.out.finish(t)
}
