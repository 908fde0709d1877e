package flights_test

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
)

// relTol is the relative tolerance for comparing numbers: the planner's SQL
// and the hand-written SQL may aggregate in different orders, so floating
// sums can differ in the last bits, never more.
const relTol = 1e-9

// sameRows compares two results row by row (both queries order their rows
// completely). It returns "" when they agree, else the first difference.
func sameRows(want, got [][]any) string {
	if len(want) != len(got) {
		return fmt.Sprintf("row count: want %d, got %d\nwant: %s\ngot:  %s", len(want), len(got), head(want), head(got))
	}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("row %d: want %d values, got %d", i, len(want[i]), len(got[i]))
		}
		for j := range want[i] {
			if !sameValue(want[i][j], got[i][j]) {
				return fmt.Sprintf("row %d column %d: want %s, got %s\nwant row: %s\ngot row:  %s",
					i, j, show(want[i][j]), show(got[i][j]), showRow(want[i]), showRow(got[i]))
			}
		}
	}
	return ""
}

// sameValue: NULL equals only NULL; numbers within relTol (absolute near
// zero); times equal as instants, or as a date against midnight of that
// day; everything else as text.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		diff := math.Abs(x - y)
		scale := math.Max(math.Abs(x), math.Abs(y))
		return diff <= relTol*scale || diff <= 1e-12
	}
	if ta, ok := instant(a); ok {
		tb, ok := instant(b)
		return ok && ta.Equal(tb)
	}
	return show(a) == show(b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case interface{ Float64() float64 }:
		return x.Float64(), true
	}
	return 0, false
}

// instant reads a time.Time or a "2006-01-02" / RFC 3339 string as an
// instant; wall-clock timestamps without a zone are taken as UTC, as both
// DuckDB and the engine package hand them over.
func instant(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		for _, layout := range []string{time.DateOnly, time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
			if t, err := time.Parse(layout, x); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func showRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = show(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func head(rows [][]any) string {
	var parts []string
	for i, r := range rows {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("... %d more", len(rows)-5))
			break
		}
		parts = append(parts, showRow(r))
	}
	return strings.Join(parts, " ")
}

// TestSameValue pins the comparison the answer tests rest on: a comparator
// that accepted everything would make every answer test pass.
func TestSameValue(t *testing.T) {
	day := time.Date(2001, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, int64(0), false},
		{int64(0), nil, false},
		{int64(3), 3.0, true},
		{1.0, 1.0 + 1e-12, true},
		{1.0, 1.0 + 1e-6, false},
		{0.7961833562856581, 0.7865433798937636, false},
		{int64(30000), int64(30001), false},
		{"CA", "CA", true},
		{"CA", "NY", false},
		{"CA", int64(1), false},
		{day, "2001-03-01", true},
		{day, day.Add(time.Hour), false},
		{day, "2001-03-02", false},
	}
	for _, c := range cases {
		if got := sameValue(c.a, c.b); got != c.want {
			t.Errorf("sameValue(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if diff := sameRows([][]any{{"CA", int64(1)}}, [][]any{{"CA", int64(1)}, {"NY", int64(2)}}); diff == "" {
		t.Error("sameRows accepted results of different lengths")
	}
}
