package compiler

import "testing"

func TestDidYouMean(t *testing.T) {
	keys := []string{"name", "source", "primary_key", "unique_keys", "description", "ai_context", "fields", "custom_extensions"}
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
	}{
		{"primay_key", keys, "primary_key"},   // deletion
		{"primary_keys", keys, "primary_key"}, // insertion
		{"PRIMARY_KEY", keys, "primary_key"},  // case only
		{"soruce", keys, "source"},            // adjacent swap counts once
		{"nmae", keys, "name"},                // swap in a short word
		{"field", keys, "fields"},
		{"descripton", keys, "description"},
		{"custom_extension", keys, "custom_extensions"},
		{"cardinality", keys, ""}, // nothing close
		{"x", keys, ""},
		{"", keys, ""},
		{"anything", nil, ""},
		{"ansi_sql", []string{"OSSIE_SQL_2026", "ANSI_SQL", "SNOWFLAKE"}, "ANSI_SQL"},
		{"snowflak", []string{"OSSIE_SQL_2026", "ANSI_SQL", "SNOWFLAKE"}, "SNOWFLAKE"},
		{"DateTimeTZ", []string{"Date", "DateTime", "DateTimeTz"}, "DateTimeTz"},
		{"ordr_count", []string{"order_count", "orders_total"}, "order_count"},
		{"revnue", []string{"revenue", "avenue"}, "revenue"},
		{"ab", []string{"abc", "abd"}, "abc"}, // ties go to the earlier candidate
		{"héllo", []string{"hello"}, "hello"}, // runes, not bytes
	} {
		if got := DidYouMean(tc.name, tc.cands); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestOSADistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3},
		{"ca", "abc", 3}, {"", "abcd", 4},
	} {
		if got := osaDistance(tc.a, tc.b, 100); got != tc.want {
			t.Errorf("osaDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := osaDistance("aaaaaaaa", "bbbbbbbb", 3); got != 3 {
		t.Errorf("capped distance = %d, want 3", got)
	}
}
