package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// writeTable prints rows under a header as an aligned text table: numbers
// right-aligned, everything else left-aligned, NULL as "NULL". Cells are
// the JSON-friendly values of engine.Result (nil, bool, int64, float64,
// string, time.Time, ...).
func writeTable(w io.Writer, header []string, rows [][]any) error {
	cells := make([][]string, len(rows))
	numeric := make([]bool, len(header))
	for j := range header {
		numeric[j] = len(rows) > 0
	}
	for i, row := range rows {
		cells[i] = make([]string, len(header))
		for j := range header {
			var v any
			if j < len(row) {
				v = row[j]
			}
			cells[i][j] = formatCell(v)
			if v != nil && !isNumber(v) {
				numeric[j] = false
			}
		}
	}
	width := make([]int, len(header))
	for j, h := range header {
		width[j] = utf8.RuneCountInString(h)
		for i := range cells {
			width[j] = max(width[j], utf8.RuneCountInString(cells[i][j]))
		}
	}
	line := func(vals []string, sep string) string {
		var b strings.Builder
		for j, v := range vals {
			if j > 0 {
				b.WriteString(sep)
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(v))
			if numeric[j] {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
		}
		return strings.TrimRight(b.String(), " ") + "\n"
	}
	rule := make([]string, len(header))
	for j := range header {
		rule[j] = strings.Repeat("-", width[j])
	}
	var out strings.Builder
	out.WriteString(line(header, "  "))
	out.WriteString(line(rule, "  "))
	for i := range cells {
		out.WriteString(line(cells[i], "  "))
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int32, int64, uint64, float32, float64:
		return true
	}
	return false
}

// formatCell renders integers with thousands separators, floats with four
// decimals (enough for a rate such as 0.7926), midnight timestamps as dates.
func formatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int:
		return groupDigits(strconv.FormatInt(int64(x), 10))
	case int32:
		return groupDigits(strconv.FormatInt(int64(x), 10))
	case int64:
		return groupDigits(strconv.FormatInt(x, 10))
	case uint64:
		return groupDigits(strconv.FormatUint(x, 10))
	case float32:
		return formatFloat(float64(x))
	case float64:
		return formatFloat(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly)
		}
		return x.Format("2006-01-02 15:04:05")
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', 4, 64)
	whole, frac, _ := strings.Cut(s, ".")
	return groupDigits(whole) + "." + frac
}

// groupDigits inserts a comma every three digits of an integer literal.
func groupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if len(s) <= 3 {
		return sign + s
	}
	var b strings.Builder
	head := len(s) % 3
	if head > 0 {
		b.WriteString(s[:head])
	}
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return sign + b.String()
}
