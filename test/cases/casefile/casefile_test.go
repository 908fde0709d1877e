package casefile

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type decimalLike struct{ f float64 }

func (d decimalLike) Float64() float64 { return d.f }

func TestValueEqual(t *testing.T) {
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		want, got any
		equal     bool
	}{
		{"null equals null", nil, nil, true},
		{"null is not zero", nil, int64(0), false},
		{"zero is not null", uint64(0), nil, false},
		{"int vs int32", uint64(3), int32(3), true},
		{"int vs big.Int", uint64(64000), big.NewInt(64000), true},
		{"float vs decimal", 24.12, decimalLike{24.12}, true},
		{"within tolerance", 41.61333333, 124.84 / 3, true},
		{"outside tolerance", 0.4, 0.4001, false},
		{"infinity is not a number answer", 1.0, math.Inf(1), false},
		{"nan is not null", nil, math.NaN(), false},
		{"numeric text from a driver", 12.0, "12.00", true},
		{"quoted text stays text", "10", int64(10), false},
		{"text", "Rock 'n' Roll", "Rock 'n' Roll", true},
		{"text bytes", "g1", []byte("g1"), true},
		{"text differs", "g1", "g2", false},
		{"date vs DATE", "2024-03-01", day, true},
		{"date vs midnight TIMESTAMP in another zone", "2024-03-01", time.Date(2024, 3, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)), true},
		{"date vs non-midnight timestamp", "2024-03-01", day.Add(time.Hour), false},
		{"date vs other day", "2024-03-01", day.AddDate(0, 0, 1), false},
		{"date vs timestamp text", "2024-03-01", "2024-03-01 00:00:00", true},
		{"driver DATE vs driver TIMESTAMP", day, day, true},
		{"driver DATE vs other day", day, day.AddDate(0, 0, 1), false},
		{"driver decimal vs driver float", decimalLike{1.5}, 1.5, true},
	}
	for _, tc := range tests {
		if got := ValueEqual(tc.want, tc.got, DefaultTolerance); got != tc.equal {
			t.Errorf("%s: ValueEqual(%v, %v) = %v, want %v", tc.name, tc.want, tc.got, got, tc.equal)
		}
	}
}

func TestMatch(t *testing.T) {
	want := [][]any{{"A", uint64(1)}, {"B", nil}, {"A", uint64(1)}}
	cases := []struct {
		name    string
		got     [][]any
		ordered bool
		ok      bool
	}{
		{"same order", [][]any{{"A", int64(1)}, {"B", nil}, {"A", int64(1)}}, true, true},
		{"permuted, unordered", [][]any{{"B", nil}, {"A", int64(1)}, {"A", int64(1)}}, false, true},
		{"permuted, ordered", [][]any{{"B", nil}, {"A", int64(1)}, {"A", int64(1)}}, true, false},
		{"duplicate count differs", [][]any{{"B", nil}, {"A", int64(1)}, {"B", nil}}, false, false},
		{"missing row", [][]any{{"A", int64(1)}, {"B", nil}}, false, false},
		{"extra column", [][]any{{"A", int64(1), 1}, {"B", nil, 1}, {"A", int64(1), 1}}, false, false},
	}
	for _, tc := range cases {
		if ok, why := Match(want, tc.got, tc.ordered, DefaultTolerance); ok != tc.ok {
			t.Errorf("%s: Match = %v (%s), want %v", tc.name, ok, why, tc.ok)
		}
	}
	if ok, why := Match(nil, nil, false, DefaultTolerance); !ok {
		t.Errorf("empty vs empty: %s", why)
	}
}

// TestLoadAllCases reads the real case files strictly, so a typo in any
// queries.yaml fails here even without an engine.
func TestLoadAllCases(t *testing.T) {
	cs, err := LoadAll("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no cases found under test/cases")
	}
	for _, c := range cs {
		if !strings.Contains(c.TablesSQL, c.ID) || !strings.Contains(string(c.Model), c.ID) {
			t.Errorf("%s: tables.sql and model.yaml must name the case id", c.ID)
		}
		for _, q := range c.Queries {
			var body map[string]any
			if err := json.Unmarshal(q.JSON, &body); err != nil {
				t.Errorf("%s %s: query is not a JSON object: %v", c.ID, q.Name, err)
			}
			if body["metrics"] == nil && body["dimensions"] == nil {
				t.Errorf("%s %s: query has neither metrics nor dimensions", c.ID, q.Name)
			}
			if q.Ordered != (body["order_by"] != nil) {
				t.Errorf("%s %s: ordered must be true exactly when the query has order_by", c.ID, q.Name)
			}
		}
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	write := func(dir, queries string) string {
		d := filepath.Join(t.TempDir(), dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"tables.sql": "-- x", "model.yaml": "# x", "queries.yaml": queries} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	good := "case: BC-99\nqueries:\n  - name: A\n    query: {\"metrics\": [\"m\"]}\n    expected: {columns: [m], rows: [[1]]}\n    check_sql: SELECT 1\n"
	if c, err := Load(write("BC-99", good)); err != nil || c.Queries[0].Tolerance != DefaultTolerance || string(c.Queries[0].JSON) != `{"metrics":["m"]}` {
		t.Fatalf("good file: %+v, %v", c, err)
	}
	bad := map[string]string{
		"unknown key":        strings.Replace(good, "check_sql:", "chek_sql: x\n    check_sql:", 1),
		"row width":          strings.Replace(good, "rows: [[1]]", "rows: [[1, 2]]", 1),
		"case id mismatch":   strings.Replace(good, "BC-99", "BC-98", 1),
		"missing check_sql":  strings.Replace(good, "    check_sql: SELECT 1\n", "", 1),
		"no queries":         "case: BC-99\nqueries: []\n",
		"duplicate name":     good + "  - name: A\n    query: {\"metrics\": [\"m\"]}\n    expected: {columns: [m], rows: []}\n    check_sql: SELECT 1\n",
		"broken yaml syntax": "case: [BC-99\n",
	}
	for name, body := range bad {
		if _, err := Load(write("BC-99", body)); err == nil {
			t.Errorf("%s: Load accepted a bad queries.yaml", name)
		}
	}
}
