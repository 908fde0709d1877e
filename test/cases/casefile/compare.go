package casefile

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Match reports whether got equals want under the case conventions of
// cases/README.md: NULL only equals NULL; numbers agree within relative
// tolerance tol (absolute near zero); a date equals a DATE or a TIMESTAMP at
// midnight of that day; anything else compares as text. Rows compare in
// order when ordered, otherwise as a multiset. got holds driver values
// (ints, floats, *big.Int, decimals with Float64(), time.Time, []byte,
// strings); want holds YAML values. The string explains the first mismatch.
func Match(want, got [][]any, ordered bool, tol float64) (bool, string) {
	if len(want) != len(got) {
		return false, fmt.Sprintf("row count: want %d, got %d", len(want), len(got))
	}
	for i := range got {
		if len(got[i]) != widthOf(want, got[i]) {
			return false, fmt.Sprintf("row %d has %d values, want %d", i, len(got[i]), widthOf(want, got[i]))
		}
	}
	if ordered {
		for i := range want {
			if ok, why := rowEqual(want[i], got[i], tol); !ok {
				return false, fmt.Sprintf("row %d: %s", i, why)
			}
		}
		return true, ""
	}
	used := make([]bool, len(got))
	if matchFrom(0, want, got, used, tol) {
		return true, ""
	}
	for i := range want {
		found := false
		for j := range got {
			if ok, _ := rowEqual(want[i], got[j], tol); ok {
				found = true
				break
			}
		}
		if !found {
			return false, fmt.Sprintf("wanted row %s not in result", FormatRow(want[i]))
		}
	}
	return false, "rows match individually but not as a multiset (duplicates differ)"
}

func widthOf(want [][]any, fallback []any) int {
	if len(want) == 0 {
		return len(fallback)
	}
	return len(want[0])
}

// matchFrom finds a perfect matching of want rows onto unused got rows by
// backtracking; case results are a handful of rows, so this stays tiny.
func matchFrom(i int, want, got [][]any, used []bool, tol float64) bool {
	if i == len(want) {
		return true
	}
	for j := range got {
		if used[j] {
			continue
		}
		if ok, _ := rowEqual(want[i], got[j], tol); ok {
			used[j] = true
			if matchFrom(i+1, want, got, used, tol) {
				return true
			}
			used[j] = false
		}
	}
	return false
}

func rowEqual(want, got []any, tol float64) (bool, string) {
	for k := range want {
		if !ValueEqual(want[k], got[k], tol) {
			return false, fmt.Sprintf("column %d: want %s, got %s", k, FormatValue(want[k]), FormatValue(got[k]))
		}
	}
	return true, ""
}

// ValueEqual compares one expected value with one driver value (see Match).
// want may also be a driver value, so two results can be compared.
func ValueEqual(want, got any, tol float64) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	if b, ok := got.([]byte); ok {
		got = string(b)
	}
	// want may itself be a driver value (rows of a typical wrong answer).
	switch w := want.(type) {
	case []byte:
		want = string(w)
	case time.Time:
		want = w.Format("2006-01-02 15:04:05.999999999")
	}
	ws, isString := want.(string)
	if !isString {
		// Only YAML numbers are numeric expectations: a quoted "10" is text.
		if wf, ok := number(want); ok {
			gf, ok := number(got)
			return ok && closeEnough(wf, gf, tol)
		}
		ws = fmt.Sprint(want)
	}
	if wt, ok := parseTime(ws); ok {
		switch g := got.(type) {
		case time.Time:
			return sameWallClock(wt, g)
		case string:
			if gt, ok := parseTime(g); ok {
				return sameWallClock(wt, gt)
			}
		}
		return false
	}
	switch g := got.(type) {
	case string:
		return g == ws
	case bool:
		return strconv.FormatBool(g) == ws
	}
	return false
}

func closeEnough(w, g, tol float64) bool {
	if math.IsNaN(w) || math.IsNaN(g) || math.IsInf(g, 0) {
		return false
	}
	d := math.Abs(w - g)
	scale := math.Max(math.Abs(w), math.Abs(g))
	if scale < 1 {
		return d <= tol
	}
	return d <= tol*scale
}

// number converts numeric values (Go numbers, *big.Int, decimal types with a
// Float64 method, numeric text from drivers that return NUMERIC as text) to
// float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float32:
		return float64(n), true
	case float64:
		return n, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	case interface{ Float64() float64 }:
		return n.Float64(), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

var timeLayouts = []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05-07", "2006-01-02 15:04:05.999999999-07"}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// sameWallClock compares the local wall-clock reading of both times: an
// expected "2024-01-01" (midnight) equals a DATE or a midnight TIMESTAMP
// whatever location the driver attached.
func sameWallClock(a, b time.Time) bool {
	const f = "2006-01-02 15:04:05.999999999"
	return a.Format(f) == b.Format(f)
}

// FormatValue renders a value for failure messages (NULL for nil).
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return strconv.Quote(string(x))
	case string:
		return strconv.Quote(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05.999999999")
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// FormatRow renders a row as [v1, v2, ...].
func FormatRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = FormatValue(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FormatRows renders rows one per line, indented.
func FormatRows(rows [][]any) string {
	if len(rows) == 0 {
		return "  (no rows)\n"
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  ")
		b.WriteString(FormatRow(r))
		b.WriteByte('\n')
	}
	return b.String()
}

// Reorder projects rows from the result columns have onto the expected
// columns want by name. Errors: a column of want missing from have, or
// have holding other columns too.
func Reorder(rows [][]any, have, want []string) ([][]any, error) {
	idx := make([]int, len(want))
	for i, w := range want {
		idx[i] = slices.Index(have, w)
		if idx[i] < 0 {
			return nil, fmt.Errorf("result has no column %q; columns are %v", w, have)
		}
	}
	if len(have) != len(want) {
		return nil, fmt.Errorf("result columns %v, want exactly %v", have, want)
	}
	out := make([][]any, len(rows))
	for r, row := range rows {
		out[r] = make([]any, len(want))
		for i, j := range idx {
			out[r][i] = row[j]
		}
	}
	return out, nil
}
