package format

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// jsonSink writes the answer as the Response document, rows as they come:
//
//	{"model":…,"model_version":…,"columns":[…],"cached":false,
//	 "rows":[[…],…],
//	 "row_count":N,"truncated":false[,"total":T]}
//
// row_count, truncated and total are the trailer: they follow the rows.
type jsonSink struct {
	w     http.ResponseWriter
	out   *httpOut
	buf   []byte
	first bool
}

func (j *jsonSink) Begin(h *AnswerHead) error {
	j.out = newHTTPOut(j.w, mediaJSON, h)
	b := append(j.buf[:0], `{"model":`...)
	b = appendJSONString(b, h.Model)
	b = append(b, `,"model_version":`...)
	b = appendJSONString(b, h.ModelVersion)
	cols, err := json.Marshal(h.Columns)
	if err != nil {
		return err
	}
	b = append(b, `,"columns":`...)
	b = append(b, cols...)
	b = append(b, `,"cached":`...)
	b = strconv.AppendBool(b, h.Cached)
	if h.Cached {
		b = append(b, `,"age_ms":`...)
		b = strconv.AppendInt(b, h.Age.Milliseconds(), 10)
	}
	b = append(b, `,"rows":[`...)
	j.buf, j.first = b, true
	_, err = j.out.buf.Write(b)
	return err
}

func (j *jsonSink) Row(r []any) error {
	b := j.buf[:0]
	if !j.first {
		b = append(b, ',')
	}
	j.first = false
	b = append(b, '[')
	for i, v := range r {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSONValue(b, v); err != nil {
			return err
		}
	}
	b = append(b, ']')
	j.buf = b
	_, err := j.out.buf.Write(b)
	return err
}

func (j *jsonSink) End(t *AnswerTail) error {
	b := append(j.buf[:0], `],"row_count":`...)
	b = strconv.AppendInt(b, int64(t.RowCount), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, t.Truncated)
	if t.Total != nil {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, *t.Total, 10)
	}
	b = append(b, "}\n"...)
	if _, err := j.out.buf.Write(b); err != nil {
		return err
	}
	return j.out.finish(t)
}

// appendJSONValue appends v as encoding/json would (same number and
// string forms), with fast paths for the scalar types engines return.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...), nil
		}
		return appendFloat(b, x), nil
	case string:
		return appendJSONString(b, x), nil
	case time.Time:
		return append(x.AppendFormat(append(b, '"'), time.RFC3339Nano), '"'), nil
	}
	m, err := marshalNoHTML(v)
	return append(b, m...), err
}

// marshalNoHTML is json.Marshal without HTML escaping and without the
// encoder's trailing newline.
func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendFloat formats like encoding/json: shortest representation, 'e'
// notation below 1e-6 and from 1e21 on, exponent without a leading zero.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString quotes s like the server's other JSON (encoding/json
// without HTML escaping): plain printable ASCII is copied as is, any other
// string goes through encoding/json (escapes, invalid UTF-8 replaced).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			m, _ := marshalNoHTML(s)
			return append(b, m...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
