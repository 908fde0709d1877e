package format

import (
	"io"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// CSVWriter writes an answer as CSV (RFC 4180 quoting by encoding/csv,
// comma, LF line ends), the one writer behind the HTTP API's text/csv
// answers and `ossiectl query --format csv`. Values: NULL and the empty
// string are both an empty field (CSV has no NULL; JSON and Arrow answers
// tell them apart), numbers as in JSON, booleans true/false, timestamps
// RFC 3339, lists and structs as their JSON text. A record whose only
// field is empty (a one-column answer's NULL) is written as `""`: an
// empty line, which encoding/csv, pandas and most readers skip, would
// lose the row.
//
// Records are spelled exactly as encoding/csv's Writer spells them (the
// same quoting rule, fieldNeedsQuotes), but appended straight into one
// buffer: no string per value and no []string per row, a third of
// the CSV answer's own CPU for an 84,000-row answer.
type CSVWriter struct {
	w io.Writer
	// buf holds the records not yet written; the current one starts at
	// start and has fields fields so far.
	buf    []byte
	start  int
	fields int
	field  []byte
}

// csvWriteAt is how many buffered bytes are written to the underlying
// writer at once.
const csvWriteAt = 4096

// NewCSVWriter writes to w; Flush writes what is buffered.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{w: w}
}

// Header writes the header row: the column names.
func (c *CSVWriter) Header(cols []ResultColumn) error {
	c.start, c.fields = len(c.buf), 0
	for _, col := range cols {
		c.appendField([]byte(col.Name))
	}
	return c.write()
}

// Row writes one answer row (values as Response.Rows holds them); it has
// as many values as the header has columns.
func (c *CSVWriter) Row(r []any) error {
	c.start, c.fields = len(c.buf), 0
	for _, v := range r {
		b, err := c.text(c.field[:0], v)
		c.field = b
		if err != nil {
			c.buf = c.buf[:c.start]
			return err
		}
		c.appendField(b)
	}
	return c.write()
}

// appendField appends one field to the record, quoted as encoding/csv
// quotes it (comma separator, LF line ends).
func (c *CSVWriter) appendField(f []byte) {
	if c.fields > 0 {
		c.buf = append(c.buf, ',')
	}
	c.fields++
	if !csvNeedsQuotes(f) {
		c.buf = append(c.buf, f...)
		return
	}
	c.buf = append(c.buf, '"')
	for _, b := range f {
		if b == '"' {
			c.buf = append(c.buf, '"')
		}
		c.buf = append(c.buf, b)
	}
	c.buf = append(c.buf, '"')
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes for a comma: a field
// holding a comma, quote, CR or LF, the field `\.`, or one starting with
// a space character is quoted; the empty field is not.
func csvNeedsQuotes(f []byte) bool {
	if len(f) == 0 {
		return false
	}
	if string(f) == `\.` {
		return true
	}
	for _, c := range f {
		if c == ',' || c == '"' || c == '\r' || c == '\n' {
			return true
		}
	}
	r, _ := utf8.DecodeRune(f)
	return unicode.IsSpace(r)
}

// write ends the record, writing what is buffered once it is large.
func (c *CSVWriter) write() error {
	if c.fields == 1 && len(c.buf) == c.start {
		// encoding/csv never quotes an empty field, so the record would be
		// an empty line.
		c.buf = append(c.buf, `""`...)
	}
	c.buf = append(c.buf, '\n')
	if len(c.buf) < csvWriteAt {
		return nil
	}
	return c.Flush()
}

// Flush writes the buffered records to the underlying writer.
func (c *CSVWriter) Flush() error {
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// text appends the CSV field of one value to b, unquoted.
func (c *CSVWriter) text(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return b, nil
	case string:
		return append(b, x...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case time.Time:
		return x.AppendFormat(b, time.RFC3339Nano), nil
	}
	return appendJSONValue(b, v)
}
