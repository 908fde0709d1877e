package plan

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

var (
	numberRe    = regexp.MustCompile(`^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$`)
	dateRe      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	timestampRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$`)
	clockRe     = regexp.MustCompile(`^\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$`)
	// zonedRe is an RFC 3339 timestamp with an offset (a space may stand
	// for the T, as RFC 3339 section 5.6 allows).
	zonedRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[-+]\d{2}:\d{2})$`)
)

// literal renders one filter value as SQL. Numbers are re-checked against a
// strict pattern and strings always go through QuoteString, so no request
// value reaches the SQL text unescaped. On time fields, date and timestamp
// strings become typed literals (Trino does not compare DATE with VARCHAR).
//
// When the field's datatype is known, values that cannot be of that type
// are refused here (the caller reports OSS4005 with the filter path)
// instead of failing later inside the engine: numbers must match numberRe,
// booleans are true/false, and time values must be real calendar dates or
// timestamps (see timeLiteral).
func literal(d dialect.Dialect, v any, k valueKind, loc *time.Location) (string, error) {
	switch k {
	case kindNumber:
		switch v := v.(type) {
		case string:
			if !numberRe.MatchString(strings.TrimSpace(v)) {
				return "", fmt.Errorf("%q is not a number, and this field is numeric", v)
			}
			return strings.TrimSpace(v), nil
		case bool:
			return "", fmt.Errorf("%t is not a number, and this field is numeric", v)
		}
	case kindBool:
		switch v := v.(type) {
		case string:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				return "TRUE", nil
			case "false":
				return "FALSE", nil
			}
			return "", fmt.Errorf("%q is not a boolean (true or false), and this field is Boolean", v)
		case json.Number, float64, int, int64:
			return "", fmt.Errorf("%v is not a boolean (true or false), and this field is Boolean", v)
		}
	case kindClock:
		switch v := v.(type) {
		case string:
			return clockLiteral(d, v)
		case json.Number, float64, int, int64, bool:
			return "", fmt.Errorf("%v is not a time of day string (hh:mm[:ss[.f]]), and this field is a Time", v)
		}
	case kindText:
		if _, ok := v.(string); !ok && v != nil {
			return "", fmt.Errorf("%v is not text; this field is masked for the caller's role and its values are text", v)
		}
	case kindTime:
		switch v := v.(type) {
		case string:
			return timeLiteral(d, v, loc)
		case json.Number, float64, int, int64, bool:
			return "", fmt.Errorf("%v is not a date or timestamp string, and this field is a time", v)
		}
	}
	switch v := v.(type) {
	case json.Number:
		if !numberRe.MatchString(string(v)) {
			return "", fmt.Errorf("%q is not a number", string(v))
		}
		return string(v), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case bool:
		if v {
			return "TRUE", nil
		}
		return "FALSE", nil
	case string:
		return d.QuoteString(v), nil
	case nil:
		return "", fmt.Errorf("null is not a filter value; use op is_null or is_not_null")
	case []any:
		return "", fmt.Errorf("filter values must be strings, numbers or booleans, got a list")
	}
	return "", fmt.Errorf("filter values must be strings, numbers or booleans, got an object")
}

// timeLiteral renders a time filter value as a typed literal, or refuses
// it. Accepted: a real calendar date `YYYY-MM-DD` (DATE); a wall-clock
// timestamp `YYYY-MM-DD hh:mm[:ss[.f]]` with a space or T (TIMESTAMP, its
// fields range-checked); an RFC 3339 timestamp with an offset, converted
// to wall time in the query time zone loc (the zone DateTimeTz fields are
// compared in).
func timeLiteral(d dialect.Dialect, s string, loc *time.Location) (string, error) {
	switch {
	case dateRe.MatchString(s):
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return "", fmt.Errorf("%q is not a real calendar date (YYYY-MM-DD)", s)
		}
		return "CAST(" + d.QuoteString(s) + " AS DATE)", nil
	case timestampRe.MatchString(s):
		wall := strings.Replace(s, "T", " ", 1)
		layout := "2006-01-02 15:04:05"
		if len(wall) == len("2006-01-02 15:04") {
			layout = "2006-01-02 15:04"
		}
		if _, err := time.Parse(layout, wall); err != nil {
			return "", fmt.Errorf("%q is not a real timestamp (YYYY-MM-DD hh:mm[:ss[.f]], hours 00-23)", s)
		}
		return "CAST(" + d.QuoteString(wall) + " AS " + d.TypeName("TIMESTAMP") + ")", nil
	case zonedRe.MatchString(s):
		t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(strings.Replace(s, " ", "T", 1)))
		if err != nil {
			return "", fmt.Errorf("%q is not a real RFC 3339 timestamp", s)
		}
		wall := t.In(loc).Format("2006-01-02 15:04:05.999999999")
		return "CAST(" + d.QuoteString(wall) + " AS " + d.TypeName("TIMESTAMP") + ")", nil
	}
	return "", fmt.Errorf("%q is neither a date (YYYY-MM-DD) nor a timestamp (YYYY-MM-DD hh:mm[:ss[.f]], or RFC 3339 with an offset), and this field is a time", s)
}

// valueKind is what a filter's values must look like, from the field's
// datatype (kindAny when the model does not declare it).
type valueKind int

const (
	kindAny valueKind = iota
	kindNumber
	kindTime
	kindClock
	kindBool
	kindText // a masked field: its values are the mask's text
)

// clockLiteral renders a time-of-day value `hh:mm[:ss[.f]]` (hours 00-23)
// as a TIME literal, or refuses it.
func clockLiteral(d dialect.Dialect, s string) (string, error) {
	v := strings.TrimSpace(s)
	layout := "15:04:05"
	if len(v) == len("15:04") {
		layout = "15:04"
	}
	if !clockRe.MatchString(v) {
		return "", fmt.Errorf("%q is not a time of day (hh:mm[:ss[.f]]), and this field is a Time", s)
	}
	if _, err := time.Parse(layout, v); err != nil {
		return "", fmt.Errorf("%q is not a real time of day (hours 00-23, minutes and seconds 00-59)", s)
	}
	return "CAST(" + d.QuoteString(v) + " AS " + d.TypeName("TIME") + ")", nil
}

var cmp = map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

// predicate renders `x <op> values` for a normalised op.
func predicate(d dialect.Dialect, x, op string, vals []any, kind valueKind, now time.Time, loc *time.Location) (string, error) {
	if err := checkValueText(vals); err != nil {
		return "", err
	}
	lits := func(min, max int) ([]string, error) { return filterLiterals(d, op, vals, kind, loc, min, max) }
	switch op {
	case "=", "!=", "in", "not_in":
		l, err := lits(1, -1)
		if err != nil {
			return "", err
		}
		return membership(x, op, l), nil
	case "gt", "gte", "lt", "lte":
		l, err := lits(1, 1)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("(%s %s %s)", x, cmp[op], l[0]), nil
	case "between":
		if kind == kindTime {
			// The same range as a two-date in_date_range: a date end
			// includes that whole day, a timestamp end is exact
			// (query-semantics.md), so the two never disagree.
			if len(vals) != 2 {
				return "", fmt.Errorf("op between takes exactly 2 values, got %d", len(vals))
			}
			return dateRange(d, x, vals, now, loc)
		}
		l, err := lits(2, 2)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("(%s BETWEEN %s AND %s)", x, l[0], l[1]), nil
	case "contains", "starts_with":
		return textMatch(d, x, op, vals)
	case "is_null", "is_not_null":
		if len(vals) != 0 {
			return "", fmt.Errorf("op %s takes no values", op)
		}
		if op == "is_null" {
			return "(" + x + " IS NULL)", nil
		}
		return "(" + x + " IS NOT NULL)", nil
	case "in_date_range":
		return dateRange(d, x, vals, now, loc)
	}
	return "", fmt.Errorf("unknown op %q; use one of %s", op, opList())
}

// checkValueText refuses string values SQL text cannot carry faithfully:
// QuoteString drops NUL bytes, so a value holding one would silently match
// a different value, and text that is not UTF-8 has no literal.
func checkValueText(vals []any) error {
	for _, v := range vals {
		if s, ok := v.(string); ok {
			if !utf8.ValidString(s) {
				return fmt.Errorf("filter value %q is not valid UTF-8", s)
			}
			if strings.ContainsRune(s, 0) {
				return fmt.Errorf("filter value %q holds a NUL byte, which SQL text cannot carry", s)
			}
		}
	}
	return nil
}

// filterLiterals renders the values of op as literals of kind, after
// checking that op takes between min and max of them (max < 0: no upper
// bound); the error names op and the counts.
func filterLiterals(d dialect.Dialect, op string, vals []any, kind valueKind, loc *time.Location, min, max int) ([]string, error) {
	if len(vals) < min || (max >= 0 && len(vals) > max) {
		switch {
		case max == min:
			return nil, fmt.Errorf("op %s takes exactly %d value(s), got %d", op, min, len(vals))
		case max < 0:
			return nil, fmt.Errorf("op %s takes at least %d value(s), got %d", op, min, len(vals))
		}
		return nil, fmt.Errorf("op %s takes %d to %d values, got %d", op, min, max, len(vals))
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		s, err := literal(d, v, kind, loc)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// membership renders =, !=, in and not_in over the literals l: one value
// of = or != compares, several (and every in / not_in) are an IN list.
func membership(x, op string, l []string) string {
	not := op == "!=" || op == "not_in"
	if len(l) == 1 && (op == "=" || op == "!=") {
		sym := "="
		if not {
			sym = "<>"
		}
		return fmt.Sprintf("(%s %s %s)", x, sym, l[0])
	}
	if not {
		return fmt.Sprintf("(%s NOT IN (%s))", x, strings.Join(l, ", "))
	}
	return fmt.Sprintf("(%s IN (%s))", x, strings.Join(l, ", "))
}

// textMatch renders contains (case-insensitive) and starts_with of one
// string value, through strpos/starts_with instead of LIKE so that the
// value's % and _ stay literal.
func textMatch(d dialect.Dialect, x, op string, vals []any) (string, error) {
	if len(vals) != 1 {
		return "", fmt.Errorf("op %s takes exactly 1 value, got %d", op, len(vals))
	}
	s, ok := vals[0].(string)
	if !ok {
		return "", fmt.Errorf("op %s takes a string value", op)
	}
	if op == "contains" {
		return fmt.Sprintf("(strpos(lower(CAST(%s AS %s)), lower(%s)) > 0)", x, d.TypeName("VARCHAR"), d.QuoteString(s)), nil
	}
	return fmt.Sprintf("starts_with(CAST(%s AS %s), %s)", x, d.TypeName("VARCHAR"), d.QuoteString(s)), nil
}

// dateRange renders a half-open or closed range. A date end includes its
// whole day (x < end + 1 day); a timestamp end is exact (x <= end).
func dateRange(d dialect.Dialect, x string, vals []any, now time.Time, loc *time.Location) (string, error) {
	start, end, err := rangeEnds(vals, now, loc)
	if err != nil {
		return "", err
	}
	lo, err := timeLiteral(d, start, loc)
	if err != nil {
		return "", err
	}
	if dateRe.MatchString(end) {
		t, err := time.Parse("2006-01-02", end)
		if err != nil {
			return "", fmt.Errorf("%q is not a real calendar date (YYYY-MM-DD)", end)
		}
		next := t.AddDate(0, 0, 1).Format("2006-01-02")
		return fmt.Sprintf("(%s >= %s AND %s < CAST(%s AS DATE))", x, lo, x, d.QuoteString(next)), nil
	}
	hi, err := timeLiteral(d, end, loc)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("(%s >= %s AND %s <= %s)", x, lo, x, hi), nil
}

// rangeEnds is the start and inclusive end of a date range's values:
// [start, end] as given, or a relative range resolved against now in loc.
func rangeEnds(vals []any, now time.Time, loc *time.Location) (string, string, error) {
	switch len(vals) {
	case 1:
		s, ok := vals[0].(string)
		if !ok {
			return "", "", fmt.Errorf("in_date_range takes [start, end] or a relative range such as \"last 7 days\"")
		}
		return relativeRange(s, now.In(loc))
	case 2:
		a, ok1 := vals[0].(string)
		b, ok2 := vals[1].(string)
		if !ok1 || !ok2 {
			return "", "", fmt.Errorf("in_date_range values must be date or timestamp strings")
		}
		return a, b, nil
	}
	return "", "", fmt.Errorf("in_date_range takes [start, end] or one relative range, got %d values", len(vals))
}

var relRe = regexp.MustCompile(`^(last|this|next)\s+(?:(\d+)\s+)?(day|week|month|quarter|year)s?$`)

// relativeRange resolves a relative range against now (already in the query
// time zone) into inclusive date bounds. "last N days" is the N days ending
// yesterday; "last month" is the previous calendar month; "this quarter"
// is the whole current quarter; weeks are ISO (Monday start).
func relativeRange(s string, now time.Time) (string, string, error) {
	const f = "2006-01-02"
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "today":
		return today.Format(f), today.Format(f), nil
	case "yesterday":
		y := today.AddDate(0, 0, -1)
		return y.Format(f), y.Format(f), nil
	}
	m := relRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return "", "", fmt.Errorf("unknown relative date range %q; use e.g. \"today\", \"last 7 days\", \"this month\", \"last quarter\"", s)
	}
	n := 1
	if m[2] != "" {
		v, err := strconv.Atoi(m[2])
		if err != nil || v < 1 || v > 100000 {
			return "", "", fmt.Errorf("invalid count in %q", s)
		}
		n = v
	}
	start := periodStart(today, m[3])
	step := func(t time.Time, k int) time.Time { return addGrain(t, m[3], k) }
	var from, to time.Time
	switch m[1] {
	case "this":
		from, to = start, step(start, n).AddDate(0, 0, -1)
	case "last":
		from, to = step(start, -n), start.AddDate(0, 0, -1)
	default:
		from, to = step(start, 1), step(start, 1+n).AddDate(0, 0, -1)
	}
	return from.Format(f), to.Format(f), nil
}

func periodStart(t time.Time, unit string) time.Time {
	switch unit {
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		return t.AddDate(0, 0, -wd)
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		q := (int(t.Month()) - 1) / 3
		return time.Date(t.Year(), time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}
