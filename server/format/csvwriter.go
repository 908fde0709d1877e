package format

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
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
type CSVWriter struct {
	raw    io.Writer
	csv    *csv.Writer
	fields []string
	buf    []byte
}

// NewCSVWriter writes to w; Flush writes what is buffered.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{raw: w, csv: csv.NewWriter(w)}
}

// Header writes the header row: the column names.
func (c *CSVWriter) Header(cols []ResultColumn) error {
	c.fields = make([]string, len(cols))
	for i, col := range cols {
		c.fields[i] = col.Name
	}
	return c.write()
}

// Row writes one answer row (values as Response.Rows holds them); it has
// as many values as the header has columns.
func (c *CSVWriter) Row(r []any) error {
	if cap(c.fields) < len(r) {
		c.fields = make([]string, len(r))
	}
	c.fields = c.fields[:len(r)]
	for i, v := range r {
		s, err := c.text(v)
		if err != nil {
			return err
		}
		c.fields[i] = s
	}
	return c.write()
}

// write writes c.fields as one record.
func (c *CSVWriter) write() error {
	if len(c.fields) == 1 && c.fields[0] == "" {
		// encoding/csv never quotes an empty field, so the record would be
		// an empty line.
		c.csv.Flush()
		if err := c.csv.Error(); err != nil {
			return err
		}
		_, err := io.WriteString(c.raw, "\"\"\n")
		return err
	}
	return c.csv.Write(c.fields)
}

// Flush writes the buffered records to the underlying writer.
func (c *CSVWriter) Flush() error {
	c.csv.Flush()
	return c.csv.Error()
}

// text is the CSV field of one value.
func (c *CSVWriter) text(v any) (string, error) {
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
