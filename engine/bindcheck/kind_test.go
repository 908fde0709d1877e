package bindcheck

import "testing"

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
		if tz, ts := timestampKind(tc.typ); tz != tc.tz || ts != tc.ts {
			t.Errorf("%s: zoned %v timestamp %v, want %v %v", tc.typ, tz, ts, tc.tz, tc.ts)
		}
	}
}
