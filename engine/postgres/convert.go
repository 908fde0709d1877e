package postgres

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/ossie-dev/ossie/engine"
)

// typeNames spells PostgreSQL types the way engine.Column.Type reports
// them: upper-case SQL names (the server's answer mapping reads BIGINT,
// NUMERIC, DOUBLE PRECISION, TEXT, TIMESTAMPTZ, ...). Keys are pg_type
// names, which is what both result OIDs and the catalog resolve to.
var typeNames = map[string]string{
	"bool": "BOOLEAN", "int2": "SMALLINT", "int4": "INTEGER", "int8": "BIGINT",
	"numeric": "NUMERIC", "float4": "REAL", "float8": "DOUBLE PRECISION",
	"text": "TEXT", "varchar": "VARCHAR", "bpchar": "CHAR", "name": "TEXT",
	"date": "DATE", "time": "TIME", "timetz": "TIMETZ", "timestamp": "TIMESTAMP",
	"timestamptz": "TIMESTAMPTZ", "interval": "INTERVAL", "uuid": "UUID",
	"json": "JSON", "jsonb": "JSONB", "bytea": "BYTEA", "oid": "OID",
}

// typeName maps a pg_type name to its reported name; arrays (leading "_")
// become "<element>[]", unknown types their upper-case pg_type name.
func typeName(pgName string) string {
	if elem, ok := strings.CutPrefix(pgName, "_"); ok {
		return typeName(elem) + "[]"
	}
	if n, ok := typeNames[pgName]; ok {
		return n
	}
	return strings.ToUpper(pgName)
}

// oidTypeName names the type of a result column.
func oidTypeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return typeName(t.Name)
	}
	return fmt.Sprintf("OID %d", oid)
}

// converter turns one decoded value (pgx Rows.Values) into a JSON-friendly
// Go value, given the column's reported type name.
func converterFor(typ string) func(any) any {
	switch typ {
	case "DATE":
		return func(v any) any {
			if t, ok := v.(time.Time); ok {
				return t.Format(time.DateOnly)
			}
			return convertValue(v)
		}
	}
	return convertValue
}

// convertValue maps pgx values onto nil, bool, int64, float64, string,
// []byte, time.Time, []any and map[string]any, matching engine/duckdb:
//   - every integer width → int64;
//   - NUMERIC → int64 when it has no fractional digits and fits (integer
//     sums are NUMERIC on PostgreSQL and HUGEINT on DuckDB; both answer an
//     integer), a decimal string when integral but larger, else float64;
//   - NaN and ±Infinity → nil (JSON has no spelling for them);
//   - DATE → "2006-01-02" (see converterFor); TIMESTAMP and TIMESTAMPTZ →
//     time.Time in UTC; ±infinity dates and timestamps → "infinity"/"-infinity";
//   - TIME → "15:04:05[.ffffff]"; UUID → canonical text;
//   - INTERVAL → {"months","days","micros"}; arrays and JSON recursively;
//   - anything else → its text.
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
	case pgtype.InfinityModifier:
		return x.String()
	case pgtype.Numeric:
		return numeric(x)
	case pgtype.Time:
		if !x.Valid {
			return nil
		}
		d := time.Duration(x.Microseconds) * time.Microsecond
		return time.Time{}.Add(d).Format("15:04:05.999999")
	case [16]byte:
		return engine.FormatUUID(x[:])
	case pgtype.Interval:
		if !x.Valid {
			return nil
		}
		return map[string]any{"months": int64(x.Months), "days": int64(x.Days), "micros": x.Microseconds}
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
	case fmt.Stringer:
		return x.String()
	}
	return v
}

func numeric(n pgtype.Numeric) any {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite || n.Int == nil {
		return nil
	}
	if n.Exp >= 0 {
		i := new(big.Int).Mul(n.Int, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.Exp)), nil))
		if i.IsInt64() {
			return i.Int64()
		}
		return i.String()
	}
	f, err := n.Float64Value()
	if err != nil || !f.Valid {
		return nil
	}
	return engine.Finite(f.Float64)
}
