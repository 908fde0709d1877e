package duckdb

import (
	"math"
	"math/big"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/ossie-dev/ossie/engine"
)

// converter turns one scanned driver value into a JSON-friendly Go value.
type converter func(any) any

// converterFor picks the conversion for a column from its DuckDB type name.
// DATE becomes "2006-01-02" and TIME "15:04:05[.ffffff]" (the driver hands
// both over as time.Time, whose JSON form would invent a date or a zone);
// UUID becomes its canonical text (the driver hands over 16 raw bytes).
// Everything else goes through convertValue.
func converterFor(typeName string) converter {
	switch typeName {
	case "DATE":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return t.Format(time.DateOnly)
			}
			return convertValue(v)
		}
	case "TIME":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return t.Format("15:04:05.999999")
			}
			return convertValue(v)
		}
	case "UUID":
		return func(v any) any {
			if b, ok := v.([]byte); ok && len(b) == 16 {
				return engine.FormatUUID(b)
			}
			return convertValue(v)
		}
	}
	return convertValue
}

// convertValue maps driver values to nil, bool, int64, float64, string,
// []byte, time.Time, []any or map[string]any:
//   - all integer widths → int64 (uint64 above MaxInt64 → decimal string);
//   - HUGEINT/UHUGEINT (*big.Int) → int64 when it fits, else decimal string;
//   - DECIMAL → float64 (metric answers are compared with a relative
//     tolerance; exact text is available through CAST in SQL);
//   - NaN and ±Inf → nil, since JSON has no spelling for them;
//   - INTERVAL → {"months","days","micros"}; MAP → [{"key","value"}];
//     UNION → its value; BIT → its "0101" text; lists and structs recursively.
func convertValue(v any) any {
	if i, ok := engine.Int64(v); ok {
		return i
	}
	switch x := v.(type) {
	case nil, bool, string, int64, time.Time:
		return x
	case []byte:
		return x
	case uint64:
		if x > math.MaxInt64 {
			return new(big.Int).SetUint64(x).String()
		}
		return int64(x)
	case float32:
		return engine.Finite(float64(x))
	case float64:
		return engine.Finite(x)
	case *big.Int:
		if x == nil {
			return nil
		}
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case duckdb.Decimal:
		if x.Value == nil {
			return nil
		}
		return engine.Finite(x.Float64())
	case duckdb.Interval:
		return map[string]any{"months": int64(x.Months), "days": int64(x.Days), "micros": x.Micros}
	case duckdb.UUID:
		return engine.FormatUUID(x[:])
	case duckdb.Union:
		return convertValue(x.Value)
	case duckdb.Bit:
		return x.String()
	case duckdb.OrderedMap:
		keys, vals := x.Keys(), x.Values()
		out := make([]any, len(keys))
		for i := range keys {
			out[i] = map[string]any{"key": convertValue(keys[i]), "value": convertValue(vals[i])}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = convertValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = convertValue(e)
		}
		return out
	}
	return v
}
