package engine

import (
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Datatype maps an engine's type name, as Describe and result columns
// report it, to the Ossie datatype of its values (OSSIE.md "Field"):
// DuckDB (TIMESTAMP_NS, HUGEINT, TIMESTAMP WITH TIME ZONE), PostgreSQL
// (timestamptz, double precision, character varying(10)) and Trino
// (timestamp(3) with time zone, decimal(38,2), varchar(20)) spellings, any
// case. A timestamp carries a zone (DateTimeTz) or not (DateTime) as
// TimestampKind reads it. Anything else (arrays, maps, JSON, intervals,
// binary, unknown names) is Opaque.
func Datatype(engineType string) ossie.Datatype {
	if tz, ts := TimestampKind(engineType); ts {
		if tz {
			return ossie.TypeDateTimeTz
		}
		return ossie.TypeDateTime
	}
	t := strings.ToUpper(strings.TrimSpace(engineType))
	if strings.HasSuffix(t, "]") { // DuckDB INTEGER[], PostgreSQL integer[]
		return ossie.TypeOpaque
	}
	if i := strings.IndexByte(t, '('); i >= 0 {
		rest := ""
		if j := strings.LastIndexByte(t, ')'); j > i {
			rest = t[j+1:]
		}
		t = strings.TrimSpace(t[:i]) + rest
	}
	if strings.Contains(t, "  ") {
		t = strings.Join(strings.Fields(t), " ")
	}
	switch t {
	case "BOOLEAN", "BOOL":
		return ossie.TypeBoolean
	case "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
		"UINTEGER", "UBIGINT", "UHUGEINT", "INT2", "INT4", "INT8":
		return ossie.TypeInteger
	case "DECIMAL", "NUMERIC":
		return ossie.TypeDecimal
	case "FLOAT", "DOUBLE", "REAL", "DOUBLE PRECISION", "FLOAT4", "FLOAT8":
		return ossie.TypeFloat
	case "VARCHAR", "TEXT", "CHAR", "STRING", "ENUM", "UUID", "CHARACTER", "CHARACTER VARYING", "BPCHAR", "NAME":
		return ossie.TypeString
	case "DATE":
		return ossie.TypeDate
	case "TIME", "TIMETZ", "TIME WITH TIME ZONE", "TIME WITHOUT TIME ZONE":
		return ossie.TypeTime
	}
	return ossie.TypeOpaque
}

// TimestampKind reads an engine type name: whether it is a timestamp and
// whether it carries a time zone. Spellings: DuckDB TIMESTAMP,
// TIMESTAMP_NS, TIMESTAMP WITH TIME ZONE, TIMESTAMPTZ; PostgreSQL
// timestamp without time zone, timestamptz; Trino timestamp(3),
// timestamp(3) with time zone.
func TimestampKind(typ string) (tz, ts bool) {
	t := strings.ToUpper(strings.TrimSpace(typ))
	if !strings.HasPrefix(t, "TIMESTAMP") && !strings.HasPrefix(t, "DATETIME") {
		return false, false
	}
	tz = strings.HasPrefix(t, "TIMESTAMPTZ") || strings.HasPrefix(t, "TIMESTAMP_TZ") ||
		(strings.Contains(t, "WITH TIME ZONE") && !strings.Contains(t, "WITHOUT TIME ZONE"))
	return tz, true
}
