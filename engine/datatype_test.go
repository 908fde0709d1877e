package engine

import (
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

// The engines spell timestamp types differently; each must be read as
// naive or zoned correctly (DuckDB DESCRIBE, PostgreSQL catalog names as
// engine/postgres reports them, Trino's type signatures).
func TestTimestampKind(t *testing.T) {
	for _, tc := range []struct {
		typ    string
		tz, ts bool
	}{
		{"TIMESTAMP", false, true},
		{"TIMESTAMP_NS", false, true},
		{"TIMESTAMP WITH TIME ZONE", true, true},
		{"TIMESTAMPTZ", true, true},
		{"timestamp(3)", false, true},
		{"timestamp(6) with time zone", true, true},
		{"timestamp without time zone", false, true},
		{"DATE", false, false},
		{"VARCHAR", false, false},
		{"TIME WITH TIME ZONE", false, false},
	} {
		if tz, ts := TimestampKind(tc.typ); tz != tc.tz || ts != tc.ts {
			t.Errorf("%s: zoned %v timestamp %v, want %v %v", tc.typ, tz, ts, tc.tz, tc.ts)
		}
	}
}

// Each engine's spelling of a type maps to the same Ossie datatype.
func TestDatatype(t *testing.T) {
	for typ, want := range map[string]ossie.Datatype{
		"TIMESTAMP": ossie.TypeDateTime, "timestamp(3)": ossie.TypeDateTime, "timestamp without time zone": ossie.TypeDateTime,
		"TIMESTAMP WITH TIME ZONE": ossie.TypeDateTimeTz, "timestamptz": ossie.TypeDateTimeTz, "timestamp(3) with time zone": ossie.TypeDateTimeTz,
		"DATE": ossie.TypeDate, "time(3)": ossie.TypeTime, "TIME WITH TIME ZONE": ossie.TypeTime,
		"BIGINT": ossie.TypeInteger, "int4": ossie.TypeInteger, "decimal(38,2)": ossie.TypeDecimal, "NUMERIC": ossie.TypeDecimal,
		"double precision": ossie.TypeFloat, "DOUBLE": ossie.TypeFloat, "varchar(20)": ossie.TypeString,
		"character varying(5)": ossie.TypeString, "text": ossie.TypeString, "boolean": ossie.TypeBoolean,
		"INTEGER[]": ossie.TypeOpaque, "array(integer)": ossie.TypeOpaque, "JSON": ossie.TypeOpaque, "INTERVAL": ossie.TypeOpaque,
	} {
		if got := Datatype(typ); got != want {
			t.Errorf("Datatype(%q) = %s, want %s", typ, got, want)
		}
	}
}
