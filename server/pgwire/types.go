package pgwire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ossie-dev/ossie/api/ossie"
)

// PostgreSQL type OIDs (pg_type.dat) of the values the endpoint sends.
const (
	oidBool        = 16
	oidInt8        = 20
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidFloat8      = 701
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestampTz = 1184
	oidNumeric     = 1700
	oidName        = 19
	oidChar        = 18
	oidInt2        = 21
	oidRegclass    = 2205
)

// oidFor maps an Ossie datatype onto the PostgreSQL type announced for
// it. A metric without a declared or inferred datatype is numeric: its
// values are numbers of whatever kind the engine returns.
func oidFor(t ossie.Datatype, metric bool) uint32 {
	switch t {
	case ossie.TypeBoolean:
		return oidBool
	case ossie.TypeInteger:
		return oidInt8
	case ossie.TypeDecimal:
		return oidNumeric
	case ossie.TypeFloat:
		return oidFloat8
	case ossie.TypeDate:
		return oidDate
	case ossie.TypeTime:
		return oidTime
	case ossie.TypeDateTime:
		return oidTimestamp
	case ossie.TypeDateTimeTz:
		return oidTimestampTz
	case ossie.TypeString:
		return oidText
	}
	if metric {
		return oidNumeric
	}
	return oidText
}

// typeName is format_type() of an OID.
func typeName(oid uint32) string {
	switch oid {
	case oidBool:
		return "boolean"
	case oidInt8:
		return "bigint"
	case oidInt4:
		return "integer"
	case oidInt2:
		return "smallint"
	case oidFloat8:
		return "double precision"
	case oidNumeric:
		return "numeric"
	case oidDate:
		return "date"
	case oidTime:
		return "time without time zone"
	case oidTimestamp:
		return "timestamp without time zone"
	case oidTimestampTz:
		return "timestamp with time zone"
	case oidName:
		return "name"
	case oidOID:
		return "oid"
	case oidChar:
		return "\"char\""
	case oidVarchar:
		return "character varying"
	}
	return "text"
}

// typeSize is pg_type.typlen of an OID (-1: variable).
func typeSize(oid uint32) int16 {
	switch oid {
	case oidBool, oidChar:
		return 1
	case oidInt2:
		return 2
	case oidInt4, oidOID, oidDate:
		return 4
	case oidInt8, oidFloat8, oidTime, oidTimestamp, oidTimestampTz:
		return 8
	case oidName:
		return 64
	}
	return -1
}

var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// encoder writes result values in the text or binary format of their
// column's type. Values come from the server's answer: nil, bool, int64,
// float64, string (decimals, dates and text), time.Time (UTC).
type encoder struct{ m *pgtype.Map }

func newEncoder() *encoder { return &encoder{m: pgtype.NewMap()} }

// text is the PostgreSQL text form of v for a column of type oid.
func textValue(oid uint32, v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "t"
		}
		return "f"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		switch oid {
		case oidDate:
			return x.Format("2006-01-02")
		case oidTimestampTz:
			return x.UTC().Format("2006-01-02 15:04:05.999999") + "+00"
		case oidTime:
			return x.Format("15:04:05.999999")
		}
		return x.Format("2006-01-02 15:04:05.999999")
	case string:
		if oid == oidDate && len(x) > 10 && x[10] == 'T' {
			return x[:10]
		}
		return x
	case []byte:
		return string(x)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

// encode appends the wire form of v (format 0 text, 1 binary) to buf.
func (e *encoder) encode(oid uint32, format int16, v any, buf []byte) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	// The binary form of text, name and "char" is the text's bytes.
	if format == 0 || oid == oidText || oid == oidVarchar || oid == oidName || oid == oidChar {
		return append(buf, textValue(oid, v)...), nil
	}
	// Binary: the value converted to the Go type pgtype encodes for oid.
	switch oid {
	case oidNumeric:
		var n pgtype.Numeric
		if err := n.Scan(textValue(oid, v)); err != nil {
			return nil, err
		}
		v = n
	case oidDate, oidTimestamp, oidTimestampTz:
		if s, ok := v.(string); ok {
			t, err := parseTime(s)
			if err != nil {
				return nil, err
			}
			v = t
		}
	case oidFloat8:
		switch x := v.(type) {
		case int64:
			v = float64(x)
		case string:
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, err
			}
			v = f
		}
	case oidInt8:
		if s, ok := v.(string); ok {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, err
			}
			v = i
		}
	}
	out, err := e.m.Encode(oid, 1, v, buf)
	if err != nil {
		return nil, err
	}
	if out == nil { // pgtype encodes NULL as nil; a value is never NULL here
		out = buf
	}
	return out, nil
}

// dateTimeParam reads the text forms PostgreSQL's date and timestamp
// input accepts with a zone offset, as drivers send them: pgjdbc's
// setDate sends "2024-01-01 +00" and setTimestamp "2024-01-01
// 10:00:00+00" (the JVM zone's offset). As in PostgreSQL, a date keeps
// its day and a timestamp without time zone its wall clock (the offset
// is ignored); a timestamptz becomes RFC 3339 (the instant). Other text
// is returned as is, for the planner to judge.
func dateTimeParam(oid uint32, s string) string {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 -07", "2006-01-02 -07:00", "2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999-07:00",
		"2006-01-02 15:04:05.999999999 -07", "2006-01-02 15:04:05.999999999 -07:00"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		switch oid {
		case oidDate:
			return t.Format("2006-01-02")
		case oidTimestamp:
			return t.Format("2006-01-02T15:04:05.999999999")
		}
		return t.Format(time.RFC3339Nano)
	}
	return s
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date or timestamp", s)
}

// paramSet holds the parameters of one statement: their types (declared
// by Parse or inferred from what each is compared with) and, once bound,
// their values.
type paramSet struct {
	types  []uint32
	values []any // nil until Bind
	bound  bool
	max    int
}

// value returns parameter n (1-based), recording oid as its type when
// none was declared; nil before Bind.
func (p *paramSet) value(n int, oid uint32) (any, error) {
	if n < 1 || n > p.max {
		return nil, &sqlError{Code: codeLimit, Message: fmt.Sprintf("parameter $%d: at most %d parameters", n, p.max)}
	}
	for len(p.types) < n {
		p.types = append(p.types, 0)
	}
	if p.types[n-1] == 0 {
		p.types[n-1] = oid
	}
	if !p.bound {
		return nil, nil
	}
	if n > len(p.values) {
		return nil, &sqlError{Code: codeProtocol, Message: fmt.Sprintf("parameter $%d has no value", n)}
	}
	return p.values[n-1], nil
}

// decodeParam turns one Bind value into a filter value: numbers as
// json.Number (exact), booleans bool, the rest text; NULL is refused.
func decodeParam(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, &sqlError{Code: codeFeature, Message: "not supported by the Ossie SQL endpoint: a NULL parameter; use IS NULL"}
	}
	if format == 0 {
		s := string(src)
		switch oid {
		case oidInt8, oidInt4, oidInt2, oidNumeric, oidFloat8, 700:
			if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				return nil, &sqlError{Code: codeTextRep, Message: fmt.Sprintf("invalid input syntax for type %s: %q", typeName(oid), s)}
			}
			return json.Number(strings.TrimSpace(s)), nil
		case oidBool:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, &sqlError{Code: codeTextRep, Message: fmt.Sprintf("invalid input syntax for type boolean: %q", s)}
			}
			return b, nil
		case oidDate, oidTimestamp, oidTimestampTz:
			return dateTimeParam(oid, s), nil
		}
		return s, nil
	}
	var v any
	if err := m.Scan(oid, 1, src, &v); err != nil {
		return nil, &sqlError{Code: codeTextRep, Message: fmt.Sprintf("a binary parameter of type %s that does not decode", typeName(oid))}
	}
	switch x := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int16:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case float32:
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32)), nil
	case pgtype.Numeric:
		b, err := x.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return json.Number(b), nil
	case time.Time:
		if oid == oidDate {
			return x.Format("2006-01-02"), nil
		}
		return x.Format("2006-01-02T15:04:05.999999"), nil
	case bool, string:
		return x, nil
	}
	return fmt.Sprint(v), nil
}
