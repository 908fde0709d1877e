package duckdb

import (
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/ossie-dev/ossie/engine"
)

// converterFor picks the conversion for a column from its DuckDB type name:
// engine.Converter (DATE and TIME as text, UUID bytes as canonical text,
// every other value by engine.Value) with the DuckDB driver's own types
// converted by duckValue.
func converterFor(typeName string) func(any) any {
	return engine.Converter(typeName, duckValue)
}

// duckValue converts the values only the DuckDB driver produces:
//   - DECIMAL → float64, even when integral: integer sums are HUGEINT on
//     DuckDB and come back as integers through engine.Value;
//   - INTERVAL → engine.Interval; UUID → canonical text;
//   - UNION → its value; BIT → its "0101" text;
//   - MAP → [{"key","value"}] in the map's order.
func duckValue(v any) (any, bool) {
	switch x := v.(type) {
	case duckdb.Decimal:
		if x.Value == nil {
			return nil, true
		}
		return engine.Finite(x.Float64()), true
	case duckdb.Interval:
		return engine.Interval(int64(x.Months), int64(x.Days), x.Micros), true
	case duckdb.UUID:
		return engine.FormatUUID(x[:]), true
	case duckdb.Union:
		return engine.Value(x.Value, duckValue), true
	case duckdb.Bit:
		return x.String(), true
	case duckdb.OrderedMap:
		keys, vals := x.Keys(), x.Values()
		out := make([]any, len(keys))
		for i := range keys {
			out[i] = map[string]any{"key": engine.Value(keys[i], duckValue), "value": engine.Value(vals[i], duckValue)}
		}
		return out, true
	}
	return nil, false
}
