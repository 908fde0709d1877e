package trino

import (
	"encoding/json"
	"math/big"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/engine"
)

// converterFor returns the conversion of one value of a result column
// whose type Trino spells typ (upper case, as Query reports it).
func converterFor(typ string) func(any) any {
	switch typ {
	case "DATE":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return t.Format(time.DateOnly)
			}
			return convertValue(v)
		}
	case "TIME", "TIME WITH TIME ZONE":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return t.Format("15:04:05.999999999")
			}
			return convertValue(v)
		}
	case "DECIMAL", "NUMBER":
		return func(v any) any {
			if s, ok := v.(string); ok {
				return decimal(s)
			}
			return convertValue(v)
		}
	}
	return convertValue
}

// convertValue maps trino-go-client values onto nil, bool, int64, float64,
// string, []byte, time.Time, []any and map[string]any, matching
// engine/postgres and engine/duckdb:
//   - integers → int64; REAL and DOUBLE → float64, NaN and ±Infinity → nil;
//   - DECIMAL (sent as text) → int64 when integral and in range, the
//     decimal text when integral but larger, else float64 (see decimal);
//   - DATE → "2006-01-02" and TIME → "15:04:05[.fffffffff]" (converterFor);
//     TIMESTAMP [WITH TIME ZONE] → time.Time in UTC;
//   - VARBINARY → []byte; ARRAY and MAP elements recursively (the client
//     leaves them as decoded JSON, numbers as json.Number);
//   - VARCHAR, JSON, UUID, INTERVAL → their text.
func convertValue(v any) any {
	if i, ok := engine.Int64(v); ok {
		return i
	}
	switch x := v.(type) {
	case nil, bool, string, int64, []byte:
		return x
	case float32:
		return engine.Finite(float64(x))
	case float64:
		return engine.Finite(x)
	case time.Time:
		return x.UTC()
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return engine.Finite(f)
		}
		return x.String()
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

// decimal converts DECIMAL text: an integral value → int64 when it fits
// (integer sums are DECIMAL or BIGINT depending on the engine; both answer
// an integer), else the text; a fractional value → float64.
func decimal(s string) any {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		if r.Num().IsInt64() {
			return r.Num().Int64()
		}
		return strings.TrimSuffix(r.RatString(), "/1")
	}
	f, _ := r.Float64()
	return engine.Finite(f)
}
