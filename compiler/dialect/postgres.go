package dialect

import (
	"fmt"
	"strings"
)

// Postgres is the dialect of PostgreSQL 11 or later (tested on 15). Its
// spellings follow the PostgreSQL 15 manual, chapters 9.4 (string
// functions), 9.7 (pattern matching), 9.9 (date/time functions) and 9.21
// (aggregates); each function mapping below is checked for the same value
// as on DuckDB by compiler/expr/render_postgres_test.go.
//
// Planned SQL assumes the session time zone is UTC (engine/postgres sets
// it): date_trunc on a DATE goes through timestamptz, which is exact only
// in a zone without daylight-saving shifts.
var Postgres Dialect = postgres{}

type postgres struct{ ansi }

func (postgres) Name() string { return "postgres" }

// TypeName maps canonical cast types to PostgreSQL names: DOUBLE is DOUBLE
// PRECISION (PostgreSQL's DOUBLE alone is not a type) and VARCHAR is TEXT
// (an unbounded VARCHAR is the same type there, TEXT is the native name).
func (postgres) TypeName(canonical string) string {
	switch canonical {
	case "DOUBLE":
		return "DOUBLE PRECISION"
	case "VARCHAR":
		return "TEXT"
	}
	return canonical
}

// Divide casts both sides to DOUBLE PRECISION so integer operands never
// divide as integers, and NULLIFs the divisor since PostgreSQL raises
// division_by_zero instead of returning Infinity.
func (postgres) Divide(l, r string) string {
	return fmt.Sprintf("CAST(%s AS DOUBLE PRECISION) / NULLIF(CAST(%s AS DOUBLE PRECISION), 0)", l, r)
}

// extractFields maps Ossie date parts to PostgreSQL EXTRACT fields.
var extractFields = map[string]string{
	"YEAR": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "WEEK": "WEEK",
	"DAY": "DAY", "DAYOFWEEK": "DOW", "DAYOFYEAR": "DOY", "HOUR": "HOUR",
	"MINUTE": "MINUTE", "SECOND": "SECOND", "MILLISECOND": "MILLISECONDS",
}

// partFuncs are the one-argument date part functions (YEAR(x), ...).
var partFuncs = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "DAY": true, "DAYOFYEAR": true,
	"HOUR": true, "MINUTE": true, "SECOND": true,
}

// intervalUnits spell one unit of each date part as a PostgreSQL interval.
var intervalUnits = map[string]string{
	"YEAR": "1 year", "QUARTER": "3 months", "MONTH": "1 month", "WEEK": "7 days",
	"DAY": "1 day", "DAYOFWEEK": "1 day", "DAYOFYEAR": "1 day", "HOUR": "1 hour",
	"MINUTE": "1 minute", "SECOND": "1 second", "MILLISECOND": "1 millisecond",
}

// Func maps the Ossie functions whose PostgreSQL spelling or semantics
// differ. The reference semantics are DuckDB's (the default engine), so
// that every engine gives the same answer:
//   - date parts are integers: SECOND drops the fraction, MILLISECOND is
//     seconds*1000 + milliseconds, DAYOFWEEK is 0 (Sunday) to 6;
//   - DATEDIFF counts part boundaries crossed (month of Jan 31 → Feb 1 is 1,
//     week of Sunday → Monday is 1), as Snowflake does;
//   - REGEXP_EXTRACT returns ” when nothing matches;
//   - TRY_CAST is emulated for text, integer, numeric, floating, boolean
//     and DATE targets (a CASE that validates the text before casting);
//     other targets keep the TRY_CAST spelling, which PostgreSQL rejects
//     as a syntax error rather than answering differently.
func (p postgres) Func(name string, a []string) (string, bool) {
	switch {
	case partFuncs[name] && len(a) == 1:
		return extract(name, a[0]), true
	}
	switch name {
	case "EXTRACT", "DATE_PART":
		if len(a) == 2 {
			if part, ok := datePart(a[0]); ok {
				return extract(part, a[1]), true
			}
		}
	case "DATEADD":
		if len(a) == 3 {
			if unit, ok := intervalUnits[strings.ToUpper(a[0])]; ok {
				return fmt.Sprintf("(%s + (%s) * INTERVAL '%s')", a[2], a[1], unit), true
			}
		}
	case "DATEDIFF":
		if len(a) == 3 {
			if part, ok := datePart(a[0]); ok {
				return dateDiff(part, a[1], a[2]), true
			}
		}
	case "STARTSWITH":
		if len(a) == 2 {
			return "starts_with(" + a[0] + ", " + a[1] + ")", true
		}
	case "ENDSWITH":
		if len(a) == 2 {
			return fmt.Sprintf("(right(%s, length(%s)) = %s)", a[0], a[1], a[1]), true
		}
	case "CONTAINS":
		if len(a) == 2 {
			return fmt.Sprintf("(strpos(%s, %s) > 0)", a[0], a[1]), true
		}
	case "CHARINDEX":
		if len(a) == 3 {
			return charIndexFrom(a[0], a[1], a[2]), true
		}
	case "REGEXP_REPLACE":
		return regexpReplaceAll(a)
	case "MOD", "%":
		// PostgreSQL has mod() and % for integers and NUMERIC only, and
		// raises division_by_zero where DuckDB answers NULL.
		if len(a) == 2 {
			return fmt.Sprintf("mod(CAST(%s AS NUMERIC), NULLIF(CAST(%s AS NUMERIC), 0))", a[0], a[1]), true
		}
	case "PERCENTILE_CONT", "PERCENTILE_DISC":
		if len(a) == 2 {
			return fmt.Sprintf("%s(%s) WITHIN GROUP (ORDER BY %s)", strings.ToLower(name), a[0], a[1]), true
		}
	case "TO_CHAR":
		if len(a) == 2 {
			if f, ok := pgTemplate(a[1]); ok {
				return fmt.Sprintf("to_char(%s, %s)", a[0], p.QuoteString(f)), true
			}
		}
	case "REGEXP_LIKE":
		if len(a) == 2 {
			return fmt.Sprintf("(%s ~ %s)", a[0], a[1]), true
		}
	case "REGEXP_EXTRACT":
		// Wrapping the pattern in a group makes the whole match group 1, so
		// group g of the pattern is element g+1 of regexp_match.
		switch len(a) {
		case 2:
			return fmt.Sprintf("CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE((regexp_match(%[1]s, '(' || %[2]s || ')'))[1], '') END", a[0], a[1]), true
		case 3:
			return fmt.Sprintf("CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE((regexp_match(%[1]s, '(' || %[2]s || ')'))[(%[3]s) + 1], '') END", a[0], a[1], a[2]), true
		}
	case "REPLACE":
		if len(a) == 2 {
			return fmt.Sprintf("replace(%s, %s, '')", a[0], a[1]), true
		}
	case "ROUND", "TRUNC":
		// PostgreSQL rounds to n digits only on NUMERIC, and rounds a
		// DOUBLE PRECISION half to even; NUMERIC rounds half away from zero
		// like DuckDB.
		switch {
		case len(a) == 2:
			return fmt.Sprintf("%s(CAST(%s AS NUMERIC), %s)", strings.ToLower(name), a[0], a[1]), true
		case len(a) == 1 && name == "ROUND":
			return "round(CAST(" + a[0] + " AS NUMERIC))", true
		}
	case "LOG":
		if len(a) == 2 {
			return fmt.Sprintf("(ln(%s) / ln(%s))", a[1], a[0]), true
		}
	case "MEDIAN":
		if len(a) == 1 {
			return "percentile_cont(0.5) WITHIN GROUP (ORDER BY " + a[0] + ")", true
		}
	case "APPROX_PERCENTILE":
		if len(a) == 2 {
			return fmt.Sprintf("percentile_cont(%s) WITHIN GROUP (ORDER BY %s)", a[1], a[0]), true
		}
	case "APPROX_COUNT_DISTINCT":
		if len(a) == 1 {
			return "COUNT(DISTINCT " + a[0] + ")", true
		}
	case "TO_DATE", "TO_TIMESTAMP":
		typ := "DATE"
		if name == "TO_TIMESTAMP" {
			typ = "TIMESTAMP"
		}
		switch len(a) {
		case 1:
			return "CAST(" + a[0] + " AS " + typ + ")", true
		case 2:
			if f, ok := pgTemplate(a[1]); ok {
				return fmt.Sprintf("CAST(%s(%s, %s) AS %s)", strings.ToLower(name), a[0], p.QuoteString(f), typ), true
			}
		}
	case "TRY_CAST":
		if len(a) == 2 {
			return tryCast(a[0], a[1])
		}
	}
	return "", false
}

// Support: PostgreSQL computes APPROX_* exactly (it has no sketches
// built in); it cannot TRY_CAST to TIME or TIMESTAMP (no error-free cast
// before PostgreSQL 16, and no emulation here) nor read a format string
// that has no template equivalent.
func (postgres) Support(name string, a []string) Support {
	switch name {
	case "TRY_CAST":
		if len(a) == 2 {
			if _, ok := tryCast(a[0], a[1]); !ok {
				return Support{Unsupported, "TRY_CAST to " + a[1] + " has no error-free form on PostgreSQL (TEXT, integers, NUMERIC, DOUBLE, BOOLEAN and DATE do)"}
			}
		}
	case "TO_DATE", "TO_TIMESTAMP", "TO_CHAR":
		if len(a) == 2 {
			if _, ok := pgTemplate(a[1]); !ok {
				return Support{Unsupported, "the format must be a string literal of strftime specifiers %Y %y %m %d %H %I %M %S %f %j %p %b %B %a %A"}
			}
		}
	}
	return supported
}

// datePart reads a date part given as a bare word (YEAR) or as the quoted
// string the renderer makes for DATE_PART ('year').
func datePart(s string) (string, bool) {
	s = strings.ToUpper(strings.Trim(s, "'"))
	_, ok := extractFields[s]
	return s, ok
}

// extract renders a date part as an integer.
func extract(part, x string) string {
	f := extractFields[part]
	if part == "SECOND" || part == "MILLISECOND" {
		return fmt.Sprintf("CAST(floor(EXTRACT(%s FROM %s)) AS INTEGER)", f, x)
	}
	return fmt.Sprintf("CAST(EXTRACT(%s FROM %s) AS INTEGER)", f, x)
}

// dateDiff counts part boundaries between a and b (see Func).
func dateDiff(part, a, b string) string {
	switch part {
	case "YEAR":
		return fmt.Sprintf("CAST(EXTRACT(YEAR FROM %s) - EXTRACT(YEAR FROM %s) AS BIGINT)", b, a)
	case "QUARTER":
		return fmt.Sprintf("CAST((EXTRACT(YEAR FROM %[2]s) * 4 + EXTRACT(QUARTER FROM %[2]s)) - (EXTRACT(YEAR FROM %[1]s) * 4 + EXTRACT(QUARTER FROM %[1]s)) AS BIGINT)", a, b)
	case "MONTH":
		return fmt.Sprintf("CAST((EXTRACT(YEAR FROM %[2]s) * 12 + EXTRACT(MONTH FROM %[2]s)) - (EXTRACT(YEAR FROM %[1]s) * 12 + EXTRACT(MONTH FROM %[1]s)) AS BIGINT)", a, b)
	case "WEEK":
		// Week boundaries (Mondays) crossed.
		return fmt.Sprintf("CAST((CAST(date_trunc('week', CAST(%s AS TIMESTAMP)) AS DATE) - CAST(date_trunc('week', CAST(%s AS TIMESTAMP)) AS DATE)) / 7 AS BIGINT)", b, a)
	case "DAY", "DAYOFWEEK", "DAYOFYEAR":
		return fmt.Sprintf("CAST(CAST(%s AS DATE) - CAST(%s AS DATE) AS BIGINT)", b, a)
	}
	// Sub-day parts: whole units between the two values truncated to the part.
	unit, secs := map[string]string{"HOUR": "hour", "MINUTE": "minute", "SECOND": "second", "MILLISECOND": "milliseconds"}[part],
		map[string]string{"HOUR": "3600", "MINUTE": "60", "SECOND": "1", "MILLISECOND": "0.001"}[part]
	return fmt.Sprintf("CAST(round(EXTRACT(EPOCH FROM (date_trunc('%[1]s', CAST(%[3]s AS TIMESTAMP)) - date_trunc('%[1]s', CAST(%[2]s AS TIMESTAMP)))) / %[4]s) AS BIGINT)", unit, a, b, secs)
}

// Regular expressions that say whether text converts without error.
const (
	realPattern = `'^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'`
	datePattern = `'^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}\s*$'`
)

// intRanges bound the integer targets of TRY_CAST.
var intRanges = map[string][2]string{
	"SMALLINT": {"-32768", "32767"},
	"INTEGER":  {"-2147483648", "2147483647"},
	"INT":      {"-2147483648", "2147483647"},
	"BIGINT":   {"-9223372036854775808", "9223372036854775807"},
}

// tryCast emulates TRY_CAST(x AS typ) with a CASE that casts only text that
// is known to convert (PostgreSQL 15 has no error-free cast). A CASE
// branch whose condition folds to false is never evaluated, not even at
// plan time, so constant arguments are safe too.
func tryCast(x, typ string) (string, bool) {
	s := "CAST(" + x + " AS TEXT)"
	t := strings.ToUpper(strings.TrimSpace(typ))
	base := t
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = strings.TrimSpace(base[:i])
	}
	switch base {
	case "TEXT", "VARCHAR", "STRING":
		return "CAST(" + x + " AS TEXT)", true
	case "SMALLINT", "INTEGER", "INT", "BIGINT":
		r := intRanges[base]
		// Fractions round half away from zero, as DuckDB's TRY_CAST does.
		return fmt.Sprintf("CASE WHEN %[1]s ~ %[2]s THEN CASE WHEN CAST(%[1]s AS NUMERIC) BETWEEN %[3]s AND %[4]s THEN CAST(CAST(%[1]s AS NUMERIC) AS %[5]s) END END", s, realPattern, r[0], r[1], typ), true
	case "DECIMAL", "NUMERIC", "DOUBLE PRECISION", "REAL", "FLOAT":
		return fmt.Sprintf("CASE WHEN %s ~ %s THEN CAST(%s AS %s) END", s, realPattern, s, typ), true
	case "BOOLEAN":
		return fmt.Sprintf("CASE WHEN lower(trim(%[1]s)) IN ('true', 't', 'yes', 'y', 'on', '1') THEN TRUE WHEN lower(trim(%[1]s)) IN ('false', 'f', 'no', 'n', 'off', '0') THEN FALSE END", s), true
	case "DATE":
		// Nested CASEs fix the order: shape, then month, then the day
		// against the length of that month, then the cast.
		y, m, d := "CAST(substr(trim("+s+"), 1, 4) AS INTEGER)", "CAST(substr(trim("+s+"), 6, 2) AS INTEGER)", "CAST(substr(trim("+s+"), 9, 2) AS INTEGER)"
		return fmt.Sprintf("CASE WHEN %[1]s ~ %[2]s THEN CASE WHEN %[3]s BETWEEN 1 AND 12 THEN CASE WHEN %[4]s BETWEEN 1 AND EXTRACT(DAY FROM make_date(%[5]s, %[3]s, 1) + INTERVAL '1 month' - INTERVAL '1 day') THEN CAST(trim(%[1]s) AS DATE) END END END", s, datePattern, m, d, y), true
	}
	return "", false
}

// strftime specifiers (the format language of DuckDB's strptime, the
// reference) and their PostgreSQL template patterns.
var strftimeToPG = map[byte]string{
	'Y': "YYYY", 'y': "YY", 'm': "MM", 'd': "DD", 'H': "HH24", 'I': "HH12",
	'M': "MI", 'S': "SS", 'f': "US", 'j': "DDD", 'p': "AM", 'b': "Mon", 'B': "Month",
	'a': "Dy", 'A': "Day",
}

// pgTemplate translates a strftime format given as a SQL string literal into
// a PostgreSQL template. ok=false when the format is not a plain literal or
// uses a specifier without a translation (the call then keeps its generic
// spelling and PostgreSQL reports an error rather than misreading dates).
func pgTemplate(lit string) (string, bool) {
	return translateStrftime(lit, strftimeToPG, "%", func(c byte) (string, bool) {
		switch {
		case c == '"' || c == '\\':
			return "", false // quoting rules of templates differ; not worth guessing
		case (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
			// Letters could spell template patterns; quote them literally.
			return `"` + string(c) + `"`, true
		}
		return string(c), true
	})
}
