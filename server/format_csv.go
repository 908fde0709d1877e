package server

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"time"
)

// csvSink writes the answer as CSV (RFC 4180, comma, CRLF line ends as
// encoding/csv writes them) with a header row of the column names. Values:
// NULL is an empty field, numbers as in JSON, timestamps RFC 3339, lists
// and structs as their JSON text. Truncation, row count and total are the
// Ossie-Truncated, Ossie-Row-Count and Ossie-Total headers or trailers
// (respond.go).
type csvSink struct {
	w      http.ResponseWriter
	out    *httpOut
	csv    *csv.Writer
	fields []string
	buf    []byte
}

func (c *csvSink) begin(h *answerHead) error {
	c.out = newHTTPOut(c.w, mediaCSV+"; charset=utf-8; header=present", h)
	c.csv = csv.NewWriter(c.out.buf)
	c.fields = make([]string, len(h.Columns))
	for i, col := range h.Columns {
		c.fields[i] = col.Name
	}
	return c.csv.Write(c.fields)
}

func (c *csvSink) row(r []any) error {
	for i, v := range r {
		s, err := c.text(v)
		if err != nil {
			return err
		}
		c.fields[i] = s
	}
	return c.csv.Write(c.fields)
}

// text is the CSV field of one value.
func (c *csvSink) text(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	}
	b, err := appendJSONValue(c.buf[:0], v)
	c.buf = b
	return string(b), err
}

func (c *csvSink) end(t *answerTail) error {
	c.csv.Flush()
	if err := c.csv.Error(); err != nil {
		return err
	}
	return c.out.finish(t)
}
