package catalog

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

func TestMapType(t *testing.T) {
	for _, tc := range []struct {
		system, typ string
		want        ossie.Datatype
		note        string // substring of the note; "" = no note
	}{
		// Hive / Glue
		{"Glue", "string", ossie.TypeString, ""},
		{"Glue", "varchar(20)", ossie.TypeString, ""},
		{"Glue", "char(2)", ossie.TypeString, ""},
		{"Glue", "tinyint", ossie.TypeInteger, ""},
		{"Glue", "int", ossie.TypeInteger, ""},
		{"Glue", "bigint", ossie.TypeInteger, ""},
		{"Glue", "decimal(38,10)", ossie.TypeDecimal, ""},
		{"Glue", "decimal", ossie.TypeDecimal, ""},
		{"Glue", "double", ossie.TypeFloat, ""},
		{"Glue", "float", ossie.TypeFloat, ""},
		{"Glue", "boolean", ossie.TypeBoolean, ""},
		{"Glue", "date", ossie.TypeDate, ""},
		{"Glue", "timestamp", ossie.TypeDateTime, ""},
		{"Glue", "timestamp with local time zone", ossie.TypeDateTimeTz, ""},
		{"Glue", "array<string>", ossie.TypeOpaque, "Glue type array<string> is an array"},
		{"Glue", "map<string,int>", ossie.TypeOpaque, "is a map"},
		{"Glue", "struct<a:int,b:array<string>>", ossie.TypeOpaque, "is a nested record"},
		{"Glue", "uniontype<int,string>", ossie.TypeOpaque, "nested record"},
		{"Glue", "binary", ossie.TypeOpaque, "binary data"},
		{"Glue", "fixed[16]", ossie.TypeOpaque, "binary data"},
		{"Glue", "geometry", ossie.TypeOpaque, "not known to ossiectl"},
		// DuckDB
		{"DuckDB", "VARCHAR", ossie.TypeString, ""},
		{"DuckDB", "HUGEINT", ossie.TypeInteger, ""},
		{"DuckDB", "UBIGINT", ossie.TypeInteger, ""},
		{"DuckDB", "DECIMAL(12,2)", ossie.TypeDecimal, ""},
		{"DuckDB", "TIME", ossie.TypeTime, ""},
		{"DuckDB", "TIMESTAMP_NS", ossie.TypeDateTime, ""},
		{"DuckDB", "TIMESTAMP WITH TIME ZONE", ossie.TypeDateTimeTz, ""},
		{"DuckDB", "UUID", ossie.TypeString, ""},
		{"DuckDB", "ENUM('a', 'b')", ossie.TypeString, ""},
		{"DuckDB", "INTEGER[]", ossie.TypeOpaque, "array"},
		{"DuckDB", "INTEGER[3]", ossie.TypeOpaque, "array"},
		{"DuckDB", "STRUCT(a INTEGER)[]", ossie.TypeOpaque, "array"},
		{"DuckDB", "STRUCT(a INTEGER)", ossie.TypeOpaque, "nested record"},
		{"DuckDB", "MAP(VARCHAR, INTEGER)", ossie.TypeOpaque, "map"},
		{"DuckDB", "BLOB", ossie.TypeOpaque, "binary"},
		{"DuckDB", "INTERVAL", ossie.TypeOpaque, "interval"},
		{"DuckDB", "JSON", ossie.TypeOpaque, "JSON"},
		// PostgreSQL (format_type)
		{"PostgreSQL", "character varying(200)", ossie.TypeString, ""},
		{"PostgreSQL", "character(3)", ossie.TypeString, ""},
		{"PostgreSQL", "numeric(12,2)", ossie.TypeDecimal, ""},
		{"PostgreSQL", "double precision", ossie.TypeFloat, ""},
		{"PostgreSQL", "timestamp(3) without time zone", ossie.TypeDateTime, ""},
		{"PostgreSQL", "timestamp with time zone", ossie.TypeDateTimeTz, ""},
		{"PostgreSQL", "time with time zone", ossie.TypeTime, ""},
		{"PostgreSQL", "text[]", ossie.TypeOpaque, "array"},
		{"PostgreSQL", "jsonb", ossie.TypeOpaque, "JSON"},
		{"PostgreSQL", "bytea", ossie.TypeOpaque, "binary"},
		{"PostgreSQL", "mood", ossie.TypeOpaque, "set the datatype by hand"},
		// Trino
		{"Trino", "varchar", ossie.TypeString, ""},
		{"Trino", "real", ossie.TypeFloat, ""},
		{"Trino", "timestamp(6)", ossie.TypeDateTime, ""},
		{"Trino", "timestamp(3) with time zone", ossie.TypeDateTimeTz, ""},
		{"Trino", "time(3)", ossie.TypeTime, ""},
		{"Trino", "row(a integer, b varchar)", ossie.TypeOpaque, "nested record"},
		{"Trino", "array(varchar)", ossie.TypeOpaque, "array"},
		{"Trino", "map(varchar, bigint)", ossie.TypeOpaque, "map"},
		{"Trino", "varbinary", ossie.TypeOpaque, "binary"},
	} {
		got, note := MapType(tc.system, tc.typ)
		if got != tc.want || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("MapType(%s, %q) = %s, %q; want %s, note with %q", tc.system, tc.typ, got, note, tc.want, tc.note)
		}
	}
	// A huge nested type is cut in the note.
	_, note := MapType("Glue", "struct<"+strings.Repeat("a:int,", 1000)+"b:int>")
	if len(note) > 400 || !strings.Contains(note, "…") {
		t.Errorf("long note: %d bytes", len(note))
	}
}
