package format

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// Every value an engine conversion hands the JSON writer (engine.Value's
// set) must come out as valid JSON that encoding/json reads back as
// json.Marshal would have written it: timestamps, non-finite floats,
// strings with control characters, quotes, non-ASCII and invalid UTF-8,
// decimals given as text, and the nested values of JSON columns.
func TestAppendJSONValueMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2001, 1, 1, 13, 4, 5, 120000000, time.UTC)
	for _, tc := range []struct {
		name string
		v    any
		want any // what encoding/json should read back; nil: json.Marshal(v)
	}{
		{"timestamp", at, nil},
		{"timestamp at midnight", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"timestamp with offset", time.Date(2001, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), nil},
		{"NaN", math.NaN(), "null"},
		{"+Inf", math.Inf(1), "null"},
		{"-Inf", math.Inf(-1), "null"},
		{"tiny float", 1e-7, nil},
		{"huge float", 1e21, nil},
		{"negative zero", math.Copysign(0, -1), nil},
		{"control characters", "a\x00b\tc\nd\x1f", nil},
		{"quote and backslash", `say "hi" \ bye`, nil},
		{"html", "<a href='x'>&</a>", nil},
		{"line separator", "a\u2028b\u2029c", nil},
		{"non-ASCII", "Zürich — 東京", nil},
		{"invalid UTF-8", "a\xffb", nil},
		{"decimal text", "12345678901234567890.123456789", nil},
		{"huge integer text", "170141183460469231731687303715884105727", nil},
		{"int64 min", int64(math.MinInt64), nil},
		{"bytes", []byte{0, 1, 2, 255}, nil},
		{"nested", map[string]any{"at": at, "s": "x\ny", "n": []any{int64(1), 2.5, nil, true}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendJSONValue(nil, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON %q", got)
			}
			want := []byte(nil)
			if s, ok := tc.want.(string); ok {
				want = []byte(s)
			} else if want, err = json.Marshal(tc.v); err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if string(gj) != string(wj) {
				t.Errorf("wrote %s, encoding/json reads it as %s; want %s", got, gj, wj)
			}
		})
	}
}
