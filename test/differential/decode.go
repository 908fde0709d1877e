package differential

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// jsonAnswer is the part of an answer document (HTTP JSON, ossiectl -f
// json, the MCP query tool's structured content) a runner reads.
type jsonAnswer struct {
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows  [][]any `json:"rows"`
	Total *int64  `json:"total"`
}

// DecodeJSON reads an answer document with encoding/json (numbers kept as
// json.Number, trailing data refused) and converts each value by its
// column's datatype (canon).
func DecodeJSON(body []byte) (dcase.Result, error) {
	var a jsonAnswer
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return dcase.Result{}, fmt.Errorf("encoding/json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return dcase.Result{}, errors.New("encoding/json: trailing data after the answer")
	}
	res := dcase.Result{Total: a.Total}
	for _, c := range a.Columns {
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: c.Name, Datatype: c.Type})
	}
	for r, row := range a.Rows {
		if len(row) != len(res.Columns) {
			return res, fmt.Errorf("row %d has %d values for %d columns", r, len(row), len(res.Columns))
		}
		out := make([]any, len(row))
		for i, v := range row {
			var err error
			if out[i], err = canon(res.Columns[i].Datatype, v); err != nil {
				return res, fmt.Errorf("row %d column %s: %w", r, res.Columns[i].Name, err)
			}
		}
		res.Rows = append(res.Rows, out)
	}
	return res, nil
}

// canon converts one decoded JSON value (nil, bool, string, json.Number)
// into dcase's canonical value for an Ossie datatype; a value of the wrong
// JSON kind for its datatype is an error, never coerced.
func canon(datatype string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) { return nil, fmt.Errorf("%s value %T %v", datatype, v, v) }
	switch datatype {
	case "Integer":
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("Integer value %s: %w", n, err)
		}
		return i, nil
	case "Float", "Decimal":
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		return n.Float64()
	case "String":
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return s, nil
	case "Boolean":
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return b, nil
	case "Date", "DateTime", "DateTimeTz":
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return parseTime(datatype, s)
	}
	return nil, fmt.Errorf("no datatype for value %T %v", v, v)
}

// parseTime reads a temporal value's text: RFC 3339 (with offset) or the
// engine-neutral forms "2006-01-02" and "2006-01-02 15:04:05.999999". A
// DateTime is wall time (its clock reading, whatever offset it was
// written with), a DateTimeTz the instant, a Date midnight.
func parseTime(datatype, s string) (time.Time, error) {
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err = time.Parse(layout, s); err == nil {
			break
		}
	}
	if err != nil {
		return t, fmt.Errorf("%s value %q: not RFC 3339", datatype, s)
	}
	switch datatype {
	case "DateTimeTz":
		return t.UTC(), nil
	case "Date":
		if t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
			return t, fmt.Errorf("Date value %q has a time of day", s)
		}
	}
	return wall(t), nil
}

// wall is t's clock reading in the UTC location.
func wall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// DecodeCSV reads a CSV answer with encoding/csv (header row of column
// names, every record as long as it) and converts the fields with the
// datatypes of want's columns, matched by name (CSV carries no type); a
// column whose datatype the reference leaves open takes the kind of its
// values there. An empty field is NULL.
func DecodeCSV(body []byte, want *dcase.Result) (dcase.Result, error) {
	r := csv.NewReader(bytes.NewReader(body))
	recs, err := r.ReadAll()
	if err != nil {
		return dcase.Result{}, fmt.Errorf("encoding/csv: %w", err)
	}
	if len(recs) == 0 {
		return dcase.Result{}, errors.New("encoding/csv: no header row")
	}
	types := wantTypes(want)
	var res dcase.Result
	for _, name := range recs[0] {
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: name})
	}
	for n, rec := range recs[1:] {
		row := make([]any, len(rec))
		for i, f := range rec {
			if row[i], err = csvValue(types[recs[0][i]], f); err != nil {
				return res, fmt.Errorf("record %d column %s: %w", n+1, recs[0][i], err)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// wantTypes are the datatypes of want's columns by name: the reference's,
// or where it gives none the kind of the column's first non-NULL value.
func wantTypes(want *dcase.Result) map[string]string {
	types := map[string]string{}
	if want == nil {
		return types
	}
	for i, c := range want.Columns {
		t := c.Datatype
		for _, r := range want.Rows {
			if t != "" {
				break
			}
			switch v := r[i].(type) {
			case int64:
				t = "Integer"
			case float64:
				t = "Float"
			case bool:
				t = "Boolean"
			case string:
				t = "String"
			case time.Time:
				t = "DateTimeTz"
				if v.Location() == time.UTC {
					t = "DateTime"
				}
			}
		}
		types[c.Name] = t
	}
	return types
}

func csvValue(datatype, f string) (any, error) {
	if f == "" {
		return nil, nil
	}
	switch datatype {
	case "Integer":
		return strconv.ParseInt(f, 10, 64)
	case "Float", "Decimal":
		return strconv.ParseFloat(f, 64)
	case "Boolean":
		return strconv.ParseBool(f)
	case "Date", "DateTime", "DateTimeTz":
		return parseTime(datatype, f)
	case "String", "":
		return f, nil
	}
	return nil, fmt.Errorf("datatype %q", datatype)
}

// CSVWant is want as CSV can carry it: an empty string is indistinguishable
// from NULL there (RFC 4180 has no NULL), so it is NULL.
func CSVWant(want dcase.Result) dcase.Result {
	out := dcase.Result{Columns: want.Columns}
	for _, r := range want.Rows {
		row := append([]any(nil), r...)
		for i, v := range row {
			if v == "" {
				row[i] = nil
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// DecodeArrow reads an Arrow IPC stream with arrow-go's ipc reader; a
// column's datatype is its field's ossie.type metadata, its values
// converted from the Arrow type (a timestamp without a zone is wall time,
// one with a zone an instant).
func DecodeArrow(body []byte) (dcase.Result, error) {
	rd, err := ipc.NewReader(bytes.NewReader(body))
	if err != nil {
		return dcase.Result{}, fmt.Errorf("arrow ipc: %w", err)
	}
	defer rd.Release()
	var res dcase.Result
	for _, f := range rd.Schema().Fields() {
		typ, _ := f.Metadata.GetValue("ossie.type")
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: f.Name, Datatype: typ})
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				if row[c], err = arrowValue(rec.Column(c), r); err != nil {
					return res, fmt.Errorf("column %s: %w", res.Columns[c].Name, err)
				}
			}
			res.Rows = append(res.Rows, row)
		}
	}
	if err := rd.Err(); err != nil {
		return res, fmt.Errorf("arrow ipc: %w", err)
	}
	return res, nil
}

func arrowValue(col arrow.Array, r int) (any, error) {
	if col.IsNull(r) {
		return nil, nil
	}
	switch a := col.(type) {
	case *array.Int64:
		return a.Value(r), nil
	case *array.Float64:
		v := a.Value(r)
		if math.IsNaN(v) {
			return nil, errors.New("NaN")
		}
		return v, nil
	case *array.String:
		return a.Value(r), nil
	case *array.Boolean:
		return a.Value(r), nil
	case *array.Date32:
		return a.Value(r).ToTime().UTC(), nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		t := a.Value(r).ToTime(tt.Unit)
		if tt.TimeZone == "" {
			return wall(t.UTC()), nil
		}
		return t.UTC(), nil
	}
	return nil, fmt.Errorf("arrow type %s", col.DataType())
}

// problemCodes are the OSSnnnn codes in an error text (a problem
// document, ossiectl's stderr, an MCP error).
func problemCodes(text string) []string {
	var out []string
	for i := 0; i+7 <= len(text); i++ {
		if strings.HasPrefix(text[i:], "OSS") && isDigits(text[i+3:i+7]) {
			out = append(out, text[i:i+7])
			i += 6
		}
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// hasKey reports whether the query body has the top-level key.
func hasKey(query []byte, key string) bool {
	var q map[string]json.RawMessage
	_ = json.Unmarshal(query, &q)
	_, ok := q[key]
	return ok
}
