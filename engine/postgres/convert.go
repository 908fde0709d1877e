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

// converterFor is the conversion of one decoded value (pgx Rows.Values)
// of a column whose reported type name is typ: engine.Converter, with the
// pgx types converted by pgValue.
func converterFor(typ string) func(any) any {
	return engine.Converter(typ, pgValue)
}

// pgValue converts the values only pgx produces:
//   - NUMERIC → engine.Decimal (int64 when integral and in range: integer
//     sums are NUMERIC on PostgreSQL), NaN and ±Infinity → nil;
//   - ±infinity dates and timestamps → "infinity"/"-infinity";
//   - TIME → engine.TimeOfDay; INTERVAL → engine.Interval.
//
// Everything else (arrays and JSON recursively, UUID, TIMESTAMPTZ in UTC,
// other types as their text) is engine.Value's.
func pgValue(v any) (any, bool) {
	switch x := v.(type) {
	case pgtype.InfinityModifier:
		return x.String(), true
	case pgtype.Numeric:
		return numeric(x), true
	case pgtype.Time:
		if !x.Valid {
			return nil, true
		}
		return engine.TimeOfDay(time.Time{}.Add(time.Duration(x.Microseconds) * time.Microsecond)), true
	case pgtype.Interval:
		if !x.Valid {
			return nil, true
		}
		return engine.Interval(int64(x.Months), int64(x.Days), x.Microseconds), true
	}
	return nil, false
}

func numeric(n pgtype.Numeric) any {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite || n.Int == nil {
		return nil
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n.Exp))), nil)
	r := new(big.Rat).SetInt(n.Int)
	if n.Exp >= 0 {
		return engine.Decimal(r.Mul(r, new(big.Rat).SetInt(scale)))
	}
	return engine.Decimal(r.Quo(r, new(big.Rat).SetInt(scale)))
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
