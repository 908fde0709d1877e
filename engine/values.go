package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"time"
)

// The value conversion every engine shares. A result value reaches the
// answer writers as one of nil, bool, int64, float64, string, []byte,
// time.Time (UTC), []any or map[string]any, whatever the driver handed
// over. Each engine adds only what its driver spells its own way (a Driver
// hook), so the same SQL value answers the same on every engine.

// Driver converts the values only one driver produces (its decimal,
// interval or map types). ok=false: not one of them, and Value goes on
// with the shared rules. Nested values are converted by Value, with the
// same hook.
type Driver func(v any) (out any, ok bool)

// Converter returns the conversion of one value of a result column whose
// type the engine reports as typ (upper-case SQL name):
//   - DATE given as time.Time → "2006-01-02", since the JSON form of a
//     time.Time would invent a time of day and a zone;
//   - TIME and TIME WITH TIME ZONE given as time.Time → TimeOfDay text;
//   - UUID given as 16 bytes → canonical text (FormatUUID);
//   - anything else, and any other Go type in those columns, → Value.
//
// The conversion is for one result (it keeps state): not safe for
// concurrent use.
func Converter(typ string, driver Driver) func(any) any {
	value := func(v any) any { return Value(v, driver) }
	switch typ {
	case "DATE":
		return dateText(value)
	case "TIME", "TIME WITH TIME ZONE":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return TimeOfDay(t)
			}
			return value(v)
		}
	case "UUID":
		return func(v any) any {
			if b, ok := v.([]byte); ok && len(b) == 16 {
				return FormatUUID(b)
			}
			return value(v)
		}
	}
	return value
}

// dateTextMemo bounds the dates one DATE column remembers the text of.
const dateTextMemo = 4096

// dateText converts a DATE column's time.Time values to "2006-01-02",
// other values by value. A large answer repeats few dates (a month or
// week column), so the text of each date seen is kept, boxed: formatting
// and boxing were a tenth of the server's CPU for an 84,000-row answer by
// week.
func dateText(value func(any) any) func(any) any {
	seen := map[int64]any{}
	return func(v any) any {
		t, ok := v.(time.Time)
		if !ok {
			return value(v)
		}
		y, m, d := t.Date()
		key := int64(y)<<9 | int64(m)<<5 | int64(d)
		if s, ok := seen[key]; ok {
			return s
		}
		if len(seen) == dateTextMemo {
			clear(seen)
		}
		s := any(t.Format(time.DateOnly))
		seen[key] = s
		return s
	}
}

// Value maps one driver value onto the answer's value set, driver's own
// types first (driver may be nil):
//   - every integer width → int64; uint64 above MaxInt64 and *big.Int
//     beyond int64 → decimal text;
//   - float32, float64 → float64, NaN and ±Infinity → nil (Finite);
//   - json.Number (numbers inside JSON values) → int64, else float64;
//   - time.Time → the same instant in UTC;
//   - [16]byte (a UUID) → canonical text;
//   - []any and map[string]any → converted element by element;
//   - any other value with a String method → its text; the rest as is.
func Value(v any, driver Driver) any {
	if driver != nil {
		if out, ok := driver(v); ok {
			return out
		}
	}
	if i, ok := Int64(v); ok {
		return i
	}
	switch x := v.(type) {
	case nil, bool, string, []byte:
		return x
	case uint64:
		if x > math.MaxInt64 {
			return new(big.Int).SetUint64(x).String()
		}
		return int64(x)
	case *big.Int:
		if x == nil {
			return nil
		}
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case float32:
		return Finite(float64(x))
	case float64:
		return Finite(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return Finite(f)
		}
		return x.String()
	case time.Time:
		return x.UTC()
	case [16]byte:
		return FormatUUID(x[:])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e, driver)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Value(e, driver)
		}
		return out
	case fmt.Stringer:
		return x.String()
	}
	return v
}

// Finite returns f, or nil for NaN and ±Infinity: JSON has no spelling for
// them, and every engine answers them the same way through this.
func Finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// Int64 widens every Go integer width a driver returns (except uint64,
// which may not fit) to int64; ok=false for other values.
func Int64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

// Decimal converts an exact decimal (PostgreSQL NUMERIC, Trino DECIMAL):
// an integral value → int64 when it fits, else its decimal text (integer
// sums are NUMERIC, DECIMAL or HUGEINT depending on the engine, and every
// engine answers an integer); a fractional value → float64 (metric answers
// are compared with a relative tolerance; exact text is available through
// a CAST in SQL). nil → nil.
func Decimal(r *big.Rat) any {
	if r == nil {
		return nil
	}
	if r.IsInt() {
		if r.Num().IsInt64() {
			return r.Num().Int64()
		}
		return r.Num().String()
	}
	f, _ := r.Float64()
	return Finite(f)
}

// Interval is an interval value as {"months", "days", "micros"}: the three
// parts SQL intervals carry, none folded into another (a month has no fixed
// number of days, nor a day of microseconds across a DST change).
func Interval(months, days, micros int64) map[string]any {
	return map[string]any{"months": months, "days": days, "micros": micros}
}

// TimeOfDay renders the clock time of t as "15:04:05" plus, when not
// zero, the fraction of a second without trailing zeros (up to
// nanoseconds); the date and the zone of t are not part of a TIME value.
func TimeOfDay(t time.Time) string {
	return t.Format("15:04:05.999999999")
}

// FormatUUID renders 16 bytes as canonical UUID text
// (8-4-4-4-12 lower-case hex, RFC 9562).
func FormatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
