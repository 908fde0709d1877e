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

// intervalUnits spell one unit of each date part as a PostgreSQL interval.
var intervalUnits = map[string]string{
	"YEAR": "1 year", "QUARTER": "3 months", "MONTH": "1 month", "WEEK": "7 days",
	"DAY": "1 day", "DAYOFWEEK": "1 day", "DAYOFYEAR": "1 day", "HOUR": "1 hour",
	"MINUTE": "1 minute", "SECOND": "1 second", "MILLISECOND": "1 millisecond",
}

// Func renders the Ossie functions whose PostgreSQL spelling or semantics
// differ (postgresFuncs).
func (postgres) Func(name string, a []string) (string, bool) { return postgresFuncs.render(name, a) }

// postgresFuncs are the Ossie functions whose PostgreSQL spelling or
// semantics differ. The reference semantics are DuckDB's (the default
// engine), so that every engine gives the same answer:
//   - date parts are integers: SECOND drops the fraction, MILLISECOND is
//     seconds*1000 + milliseconds, DAYOFWEEK is 0 (Sunday) to 6;
//   - DATEDIFF counts part boundaries crossed (month of Jan 31 → Feb 1 is 1,
//     week of Sunday → Monday is 1), as Snowflake does;
//   - REGEXP_EXTRACT returns ” when nothing matches;
//   - MOD and % go through NUMERIC (PostgreSQL has them for integers and
//     NUMERIC only) and give NULL on a zero divisor, where PostgreSQL
//     raises division_by_zero;
//   - ROUND and TRUNC go through NUMERIC: PostgreSQL rounds to n digits
//     only on NUMERIC, and rounds a DOUBLE PRECISION half to even where
//     NUMERIC rounds half away from zero like DuckDB;
//   - REGEXP_EXTRACT wraps the pattern in a group, so the whole match is
//     group 1 and group g of the pattern is element g+1 of regexp_match;
//   - TRY_CAST is emulated for text, integer, numeric, floating, boolean
//     and DATE targets (a CASE that validates the text before casting);
//     other targets keep the TRY_CAST spelling, which PostgreSQL rejects
//     as a syntax error rather than answering differently.
var postgresFuncs = funcTable{
	"YEAR":                  pgPart("YEAR"),
	"QUARTER":               pgPart("QUARTER"),
	"MONTH":                 pgPart("MONTH"),
	"DAY":                   pgPart("DAY"),
	"DAYOFYEAR":             pgPart("DAYOFYEAR"),
	"HOUR":                  pgPart("HOUR"),
	"MINUTE":                pgPart("MINUTE"),
	"SECOND":                pgPart("SECOND"),
	"EXTRACT":               pgExtract,
	"DATE_PART":             pgExtract,
	"DATEADD":               intervalAdd,
	"DATEDIFF":              pgDateDiff,
	"STARTSWITH":            startsWith,
	"ENDSWITH":              fixed(2, "(right(%[1]s, length(%[2]s)) = %[2]s)"),
	"CONTAINS":              containsPos,
	"CHARINDEX":             charIndex,
	"REGEXP_REPLACE":        regexpReplaceAll,
	"MOD":                   pgMod,
	"%":                     pgMod,
	"PERCENTILE_CONT":       fixed(2, "percentile_cont(%s) WITHIN GROUP (ORDER BY %s)"),
	"PERCENTILE_DISC":       fixed(2, "percentile_disc(%s) WITHIN GROUP (ORDER BY %s)"),
	"TO_CHAR":               formatted(pgTemplate, "to_char(%s, %s)"),
	"REGEXP_LIKE":           fixed(2, "(%s ~ %s)"),
	"REGEXP_EXTRACT":        firstOf(fixed(2, "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE((regexp_match(%[1]s, '(' || %[2]s || ')'))[1], '') END"), fixed(3, "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE((regexp_match(%[1]s, '(' || %[2]s || ')'))[(%[3]s) + 1], '') END")),
	"REPLACE":               replaceAll,
	"ROUND":                 firstOf(fixed(2, "round(CAST(%s AS NUMERIC), %s)"), fixed(1, "round(CAST(%s AS NUMERIC))")),
	"TRUNC":                 fixed(2, "trunc(CAST(%s AS NUMERIC), %s)"),
	"LOG":                   logBase,
	"MEDIAN":                fixed(1, "percentile_cont(0.5) WITHIN GROUP (ORDER BY %s)"),
	"APPROX_PERCENTILE":     fixed(2, "percentile_cont(%[2]s) WITHIN GROUP (ORDER BY %[1]s)"),
	"APPROX_COUNT_DISTINCT": fixed(1, "COUNT(DISTINCT %s)"),
	"TO_DATE":               firstOf(fixed(1, "CAST(%s AS DATE)"), formatted(pgTemplate, "CAST(to_date(%s, %s) AS DATE)")),
	"TO_TIMESTAMP":          firstOf(fixed(1, "CAST(%s AS TIMESTAMP)"), formatted(pgTemplate, "CAST(to_timestamp(%s, %s) AS TIMESTAMP)")),
	"TRY_CAST":              pgTryCast,
}

// pgPart is a one-argument date part function (YEAR(x), ...) as an integer.
func pgPart(part string) funcRender {
	return exactly(1, func(a []string) (string, bool) { return extract(part, a[0]), true })
}

var (
	// pgExtract is EXTRACT(part, x) and DATE_PART(part, x) as an integer.
	pgExtract = partCall(2, datePart, func(part string, a []string) string { return extract(part, a[0]) })
	// pgDateDiff is DATEDIFF(part, a, b), boundaries crossed (dateDiff).
	pgDateDiff = partCall(3, datePart, func(part string, a []string) string { return dateDiff(part, a[0], a[1]) })
	// pgTryCast is TRY_CAST(x, type) through tryCast.
	pgTryCast = exactly(2, func(a []string) (string, bool) { return tryCast(a[0], a[1]) })
)

// pgMod is MOD(x, y) and x % y: through NUMERIC, NULL on a zero divisor.
var pgMod = fixed(2, "mod(CAST(%s AS NUMERIC), NULLIF(CAST(%s AS NUMERIC), 0))")

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

// dateDiff counts part boundaries between a and b (see postgresFuncs).
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
