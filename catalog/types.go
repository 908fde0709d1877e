package catalog

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// maxTypeInNote bounds how much of a (possibly huge) nested type string is
// quoted in a field description.
const maxTypeInNote = 120

// scalarTypes maps the base name of a type (lower case, parameters
// removed) to its Ossie datatype (OSSIE.md "Field"). The names cover Hive
// (Glue), DuckDB, PostgreSQL (format_type and pg_type spellings) and Trino;
// where two systems share a name they mean the same kind of value.
var scalarTypes = map[string]ossie.Datatype{
	// text
	"string": ossie.TypeString, "varchar": ossie.TypeString, "char": ossie.TypeString,
	"character": ossie.TypeString, "character varying": ossie.TypeString, "text": ossie.TypeString,
	"bpchar": ossie.TypeString, "name": ossie.TypeString, "citext": ossie.TypeString,
	"uuid": ossie.TypeString, "enum": ossie.TypeString, "ipaddress": ossie.TypeString,
	// integers
	"tinyint": ossie.TypeInteger, "smallint": ossie.TypeInteger, "int": ossie.TypeInteger,
	"integer": ossie.TypeInteger, "bigint": ossie.TypeInteger, "hugeint": ossie.TypeInteger,
	"utinyint": ossie.TypeInteger, "usmallint": ossie.TypeInteger, "uinteger": ossie.TypeInteger,
	"ubigint": ossie.TypeInteger, "uhugeint": ossie.TypeInteger, "int1": ossie.TypeInteger,
	"int2": ossie.TypeInteger, "int4": ossie.TypeInteger, "int8": ossie.TypeInteger,
	"long": ossie.TypeInteger, "short": ossie.TypeInteger, "byte": ossie.TypeInteger,
	"smallserial": ossie.TypeInteger, "serial": ossie.TypeInteger, "bigserial": ossie.TypeInteger,
	// exact and approximate numbers
	"decimal": ossie.TypeDecimal, "numeric": ossie.TypeDecimal, "dec": ossie.TypeDecimal,
	"number": ossie.TypeDecimal, "money": ossie.TypeDecimal,
	"float": ossie.TypeFloat, "double": ossie.TypeFloat, "real": ossie.TypeFloat,
	"float4": ossie.TypeFloat, "float8": ossie.TypeFloat, "double precision": ossie.TypeFloat,
	// others
	"boolean": ossie.TypeBoolean, "bool": ossie.TypeBoolean,
	"date": ossie.TypeDate,
	"time": ossie.TypeTime, "time without time zone": ossie.TypeTime,
	"time with time zone": ossie.TypeTime, "timetz": ossie.TypeTime,
	"timestamp": ossie.TypeDateTime, "timestamp without time zone": ossie.TypeDateTime,
	"datetime": ossie.TypeDateTime, "timestamp_s": ossie.TypeDateTime,
	"timestamp_ms": ossie.TypeDateTime, "timestamp_ns": ossie.TypeDateTime,
	"timestamp_us":             ossie.TypeDateTime,
	"timestamp with time zone": ossie.TypeDateTimeTz, "timestamptz": ossie.TypeDateTimeTz,
	"timestamp with local time zone": ossie.TypeDateTimeTz,
}

// opaqueReasons names scalar types that have no Ossie datatype.
var opaqueReasons = map[string]string{
	"binary": "binary data", "varbinary": "binary data", "blob": "binary data", "bytea": "binary data",
	"bytes": "binary data", "json": "JSON", "jsonb": "JSON", "variant": "semi-structured data",
	"interval": "an interval", "bit": "a bit string", "varbit": "a bit string", "fixed": "binary data",
}

// MapType maps a column type, as system spells it ("Glue", "DuckDB",
// "PostgreSQL", "Trino"; only used in the note), to an Ossie datatype.
// Date and time types map to Date, Time, DateTime or DateTimeTz (so the
// field is a time dimension by the Ossie default rule); decimals of any
// precision to Decimal. Nested types (Hive array<>/map<>/struct<>/
// uniontype<>, DuckDB T[]/STRUCT()/MAP()/UNION(), PostgreSQL arrays, Trino
// array()/map()/row()), binary, JSON, intervals and unknown types map to
// Opaque, and note then says why, for the field's description; note is ""
// for every other type.
func MapType(system, typ string) (dt ossie.Datatype, note string) {
	t := strings.ToLower(strings.TrimSpace(typ))
	shown := typ
	if len(shown) > maxTypeInNote {
		shown = shown[:maxTypeInNote] + "…"
	}
	opaque := func(what string) (ossie.Datatype, string) {
		return ossie.TypeOpaque, fmt.Sprintf("%s type %s is %s, not a scalar Ossie datatype: kept as Opaque; derive scalar fields from it with an expression before using it.", system, shown, what)
	}
	base := t
	if i := strings.IndexByte(base, '['); i > 0 && strings.TrimSpace(base[:i]) != "fixed" {
		// DuckDB INTEGER[] / INTEGER[3], PostgreSQL integer[].
		return opaque("an array")
	}
	if i := strings.IndexAny(base, "(<["); i >= 0 {
		// Keep a time-zone suffix that follows the parameters:
		// "timestamp(3) with time zone" has base "timestamp with time zone".
		rest := ""
		if j := strings.LastIndexAny(base, ")>]"); j > i {
			rest = base[j+1:]
		}
		base = strings.TrimSpace(base[:i]) + rest
	}
	base = strings.Join(strings.Fields(base), " ")
	switch base {
	case "array", "list":
		return opaque("an array")
	case "map":
		return opaque("a map")
	case "struct", "row", "uniontype", "union":
		return opaque("a nested record")
	}
	if dt, ok := scalarTypes[base]; ok {
		return dt, ""
	}
	if what, ok := opaqueReasons[base]; ok {
		return opaque(what)
	}
	return ossie.TypeOpaque, fmt.Sprintf("%s type %s is not known to ossiectl: kept as Opaque; set the datatype by hand.", system, shown)
}
