package reference

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Numbers are computed exactly (big.Rat) and converted to the answer's
// kind at the end, so that sums of decimals cancel exactly as they do in
// the engines' DECIMAL arithmetic.

// ratOf is the exact value of a canonical number (nil when v is not one).
// A DECIMAL column's float64 is read as the decimal it prints as.
func ratOf(v any, ct dcase.ColumnType) *big.Rat {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x)
	case int:
		return new(big.Rat).SetInt64(int64(x))
	case float64:
		if ct == dcase.Decimal {
			r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'f', -1, 64))
			if ok {
				return r
			}
		}
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil
		}
		return r
	case json.Number:
		r, ok := new(big.Rat).SetString(x.String())
		if ok {
			return r
		}
	case *big.Rat:
		return x
	}
	return nil
}

// DatatypeOf is the Ossie datatype a column type has in every engine.
func DatatypeOf(ct dcase.ColumnType) string {
	switch ct {
	case dcase.Integer:
		return "Integer"
	case dcase.Double:
		return "Float"
	case dcase.Decimal:
		return "Decimal"
	case dcase.Varchar:
		return "String"
	case dcase.Boolean:
		return "Boolean"
	case dcase.Date:
		return "Date"
	case dcase.Timestamp:
		return "DateTime"
	case dcase.TimestampTz:
		return "DateTimeTz"
	}
	return ""
}

func isNumeric(dt string) bool { return dt == "Integer" || dt == "Float" || dt == "Decimal" }
func isTimeType(dt string) bool {
	return dt == "Date" || dt == "DateTime" || dt == "DateTimeTz"
}

// compare orders two non-NULL values of one kind: numbers exactly,
// strings by bytes, booleans false < true, times by instant (wall times
// are all in UTC). ok is false when they are not comparable.
func compare(a, b any) (c int, ok bool) {
	ra, rb := ratOf(a, dcase.Decimal), ratOf(b, dcase.Decimal)
	if ra != nil && rb != nil {
		return ra.Cmp(rb), true
	}
	switch x := a.(type) {
	case string:
		if y, isStr := b.(string); isStr {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, isBool := b.(bool); isBool {
			switch {
			case x == y:
				return 0, true
			case !x:
				return -1, true
			default:
				return 1, true
			}
		}
	case time.Time:
		if y, isTime := b.(time.Time); isTime {
			return x.Compare(y), true
		}
	}
	return 0, false
}

// wall is t's wall clock as a time in the UTC location.
func wall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// truncate is the start of t's period at grain (t is wall time in UTC):
// week is ISO (Monday) unless weekStart is "sunday".
func truncate(t time.Time, grain, weekStart string) time.Time {
	y, m, d := t.Date()
	switch grain {
	case "hour":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case "day":
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "week":
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		back := (int(day.Weekday()) + 6) % 7 // days since Monday
		if weekStart == "sunday" {
			back = int(day.Weekday())
		}
		return day.AddDate(0, 0, -back)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(y, m-(m-1)%3, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

// step is the period after (n > 0) or before (n < 0) the period p.
func step(p time.Time, grain string, n int) time.Time {
	switch grain {
	case "hour":
		return p.Add(time.Duration(n) * time.Hour)
	case "day":
		return p.AddDate(0, 0, n)
	case "week":
		return p.AddDate(0, 0, 7*n)
	case "month":
		return p.AddDate(0, n, 0)
	case "quarter":
		return p.AddDate(0, 3*n, 0)
	case "year":
		return p.AddDate(n, 0, 0)
	}
	return p
}

// parseTimeValue reads a filter's time value: a date YYYY-MM-DD (isDate),
// a timestamp YYYY-MM-DD hh:mm[:ss] (space or T), both wall time in the
// query zone, or RFC 3339 with an offset, converted to wall time in loc.
func parseTimeValue(v any, loc *time.Location) (t time.Time, isDate bool, err error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false, fmt.Errorf("time value %v is not a string", v)
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, false, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return wall(t.In(loc)), false, nil
	}
	return time.Time{}, false, fmt.Errorf("time value %q is neither a date nor a timestamp", s)
}

// numberOut converts an exact number to the answer's canonical kind.
func numberOut(r *big.Rat, dt string) any {
	if r == nil {
		return nil
	}
	if dt == "Integer" && r.IsInt() && r.Num().IsInt64() {
		return r.Num().Int64()
	}
	f, _ := r.Float64()
	return f
}
