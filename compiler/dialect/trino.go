package dialect

import (
	"fmt"
	"strings"
)

// Trino is the dialect of Trino (SQL as documented at trino.io/docs,
// "Functions and operators" and "SELECT"). The reference semantics are
// DuckDB's, as for Postgres: each mapping below aims at the value DuckDB
// returns, not merely at a Trino function with a similar name.
//
// Planned SQL assumes the session time zone is UTC (the Trino engine sets
// it): AT TIME ZONE on a plain TIMESTAMP interprets it in the session zone.
//
// MEDIAN and PERCENTILE_CONT/DISC are exact: Trino has no exact percentile
// aggregate (approx_percentile is a sketch whose answer may differ from
// DuckDB's), so they sort the group's values with array_agg and pick or
// interpolate as SQL:2003 defines. They hold a group's values in memory,
// like any exact percentile.
var Trino Dialect = trino{}

type trino struct{ ansi }

func (trino) Name() string { return "trino" }

// TypeName gives TIMESTAMP and TIME microsecond precision: Trino's bare
// TIMESTAMP is TIMESTAMP(3) (milliseconds), which would drop digits that
// DuckDB and PostgreSQL keep. The other canonical names are Trino's own.
func (trino) TypeName(canonical string) string {
	switch canonical {
	case "TIMESTAMP":
		return "TIMESTAMP(6)"
	case "TIME":
		return "TIME(6)"
	}
	return canonical
}

// FromZone uses with_timezone(timestamp, zone): the naive value read as
// wall time in that zone.
func (t trino) FromZone(x, tz string) string {
	return fmt.Sprintf("with_timezone(%s, %s)", x, t.QuoteString(tz))
}

// AtTimeZone converts with AT TIME ZONE, which in Trino yields a TIMESTAMP
// WITH TIME ZONE in the target zone; the cast to TIMESTAMP keeps its local
// wall-clock fields, which is what the planner truncates and groups by.
func (t trino) AtTimeZone(x, tz string) string {
	return fmt.Sprintf("CAST((%s AT TIME ZONE %s) AS TIMESTAMP(6))", x, t.QuoteString(tz))
}

// LimitOffset puts OFFSET before LIMIT: Trino's grammar is
// [OFFSET n] [LIMIT m], and rejects LIMIT m OFFSET n.
func (trino) LimitOffset(limit, offset int) string {
	var b strings.Builder
	if offset > 0 {
		fmt.Fprintf(&b, " OFFSET %d", offset)
	}
	if limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", limit)
	}
	return b.String()
}

// DateTrunc casts to TIMESTAMP(6) for sub-day grains: Trino's date_trunc
// refuses 'hour' on a DATE, where DuckDB and PostgreSQL give midnight.
func (t trino) DateTrunc(g Grain, x string) string {
	if g == Hour {
		x = "CAST(" + x + " AS TIMESTAMP(6))"
	}
	return t.ansi.DateTrunc(g, x)
}

// trinoParts renders one date part of x as an integer with DuckDB's
// numbering: DAYOFWEEK is 0 (Sunday) to 6 while Trino's DOW is ISO 1
// (Monday) to 7, and MILLISECOND counts the seconds too while Trino's
// millisecond() is only the fraction. Spellings are chosen that DuckDB
// reads with the same meaning where Trino allows (EXTRACT(DOW ...) % 7 is
// 0..6 from Sunday on both), so the Trino protocol test server agrees.
var trinoParts = map[string]string{
	"YEAR": "year(%s)", "QUARTER": "quarter(%s)", "MONTH": "month(%s)",
	"WEEK": "week(%s)", "DAY": "day(%s)", "DAYOFWEEK": "(EXTRACT(DOW FROM %s) %% 7)",
	"DAYOFYEAR": "EXTRACT(DOY FROM %s)", "HOUR": "hour(%s)", "MINUTE": "minute(%s)",
	"SECOND":      "second(%s)",
	"MILLISECOND": "date_diff('millisecond', date_trunc('minute', CAST(%[1]s AS TIMESTAMP(6))), CAST(%[1]s AS TIMESTAMP(6)))",
}

// trinoUnits are the date_diff / date_trunc units for a part.
var trinoUnits = map[string]string{
	"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "week",
	"DAY": "day", "DAYOFWEEK": "day", "DAYOFYEAR": "day", "HOUR": "hour",
	"MINUTE": "minute", "SECOND": "second", "MILLISECOND": "millisecond",
}

// trinoIntervals spell one unit of a date part as a Trino interval literal.
// The value is cast to TIMESTAMP(6) first: Trino refuses hours on a DATE,
// and DATEADD returns a timestamp on every engine (DuckDB and PostgreSQL
// answer DATE + INTERVAL with one). MILLISECOND uses date_add (no interval
// literal has that unit).
var trinoIntervals = map[string]string{
	"YEAR": "INTERVAL '1' YEAR", "QUARTER": "INTERVAL '3' MONTH", "MONTH": "INTERVAL '1' MONTH",
	"WEEK": "INTERVAL '7' DAY", "DAY": "INTERVAL '1' DAY", "DAYOFWEEK": "INTERVAL '1' DAY",
	"DAYOFYEAR": "INTERVAL '1' DAY", "HOUR": "INTERVAL '1' HOUR", "MINUTE": "INTERVAL '1' MINUTE",
	"SECOND": "INTERVAL '1' SECOND",
}

// trinoPart reads a date part given as a bare word (YEAR) or as the quoted
// string the renderer makes for DATE_PART ('year').
func trinoPart(s string) (string, bool) {
	s = strings.ToUpper(strings.Trim(s, "'"))
	_, ok := trinoUnits[s]
	return s, ok
}

// Func renders the Ossie functions whose Trino spelling or semantics
// differ (trinoFuncs).
func (trino) Func(name string, a []string) (string, bool) { return trinoFuncs.render(name, a) }

// trinoFuncs are the Ossie functions whose Trino spelling or semantics
// differ. Native spellings that already agree (regexp_like, regexp_count,
// approx_percentile, try_cast, strpos, log(b, x)) have no entry.
// Deliberate choices (docs/engine-support.md):
//   - DATEDIFF counts part boundaries crossed, like DuckDB and Snowflake;
//     Trino's date_diff counts whole elapsed units, so both sides are
//     truncated to the part first (weeks start on Monday);
//   - DATE_TRUNC and DATEADD work on TIMESTAMP(6), so they return a
//     timestamp as on DuckDB and PostgreSQL, and 'hour' on a DATE is midnight;
//   - CONCAT skips NULLs and || casts its operands to VARCHAR, GREATEST and
//     LEAST ignore NULLs (Trino: NULL if any argument is NULL);
//   - MEDIAN and PERCENTILE_CONT/DISC are exact (sorted array_agg), not
//     approx_percentile;
//   - REGEXP_EXTRACT returns ” when nothing matches (Trino: NULL), and
//     REGEXP_REPLACE's \N group references become Trino's $N;
//   - ENDSWITH is substr with a length guard: ends_with exists only in
//     recent Trino releases, and the guard keeps a suffix longer than the
//     string from reaching substr's count-from-the-end reading of a
//     negative start;
//   - MOD and % give NULL on a zero divisor, as in DuckDB (Trino raises);
//   - REPLACE(s, from) is written in the three-argument form every engine
//     reads (the same as Trino's own);
//   - LOG(x) is base 10 (Trino's log needs a base);
//   - AVG averages the DOUBLE of its argument: Trino's avg of a
//     DECIMAL(p,s) is a DECIMAL(p,s) rounded to s digits (41.61 where
//     DuckDB's DOUBLE is 41.6133…);
//   - TRUNC(x, n) scales by 10^n: Trino has truncate(x) for every numeric
//     type but truncate(x, n) for DECIMAL only (a real Trino refuses
//     truncate(double, integer));
//   - TO_DATE/TO_TIMESTAMP/TO_CHAR formats are strftime (DuckDB) and are
//     translated to the MySQL-style specifiers of date_parse/date_format.
var trinoFuncs = funcTable{
	"YEAR":                  trinoPartOf("YEAR"),
	"QUARTER":               trinoPartOf("QUARTER"),
	"MONTH":                 trinoPartOf("MONTH"),
	"DAY":                   trinoPartOf("DAY"),
	"DAYOFYEAR":             trinoPartOf("DAYOFYEAR"),
	"DAYOFWEEK":             trinoPartOf("DAYOFWEEK"),
	"HOUR":                  trinoPartOf("HOUR"),
	"MINUTE":                trinoPartOf("MINUTE"),
	"SECOND":                trinoPartOf("SECOND"),
	"MILLISECOND":           trinoPartOf("MILLISECOND"),
	"EXTRACT":               trinoExtract,
	"DATE_PART":             trinoExtract,
	"DATE_TRUNC":            fixed(2, "date_trunc(%s, CAST(%s AS TIMESTAMP(6)))"),
	"DATEADD":               trinoDateAdd,
	"DATEDIFF":              trinoDateDiffCall,
	"||":                    fixed(2, "(CAST(%s AS VARCHAR) || CAST(%s AS VARCHAR))"),
	"CONCAT":                anyArity(trinoConcat),
	"GREATEST":              anyArity(func(a []string) string { return nullSkipping("greatest", a) }),
	"LEAST":                 anyArity(func(a []string) string { return nullSkipping("least", a) }),
	"LEFT":                  fixed(2, "substr(%s, 1, %s)"),
	"RIGHT":                 fixed(2, "CASE WHEN (%[2]s) <= 0 THEN '' ELSE substr(%[1]s, greatest(length(%[1]s) - (%[2]s) + 1, 1)) END"),
	"SPLIT_PART":            fixed(3, "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL OR %[3]s IS NULL THEN NULL ELSE COALESCE(split_part(%[1]s, %[2]s, %[3]s), '') END"),
	"STARTSWITH":            startsWith,
	"ENDSWITH":              fixed(2, "((length(%[1]s) >= length(%[2]s)) AND (substr(%[1]s, length(%[1]s) - length(%[2]s) + 1) = %[2]s))"),
	"CONTAINS":              containsPos,
	"CHARINDEX":             charIndex,
	"REGEXP_EXTRACT":        firstOf(fixed(2, "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE(regexp_extract(%[1]s, %[2]s), '') END"), fixed(3, "CASE WHEN %[1]s IS NULL OR %[2]s IS NULL THEN NULL ELSE COALESCE(regexp_extract(%[1]s, %[2]s, %[3]s), '') END")),
	"REGEXP_REPLACE":        trinoRegexpReplace,
	"MOD":                   trinoMod,
	"%":                     trinoMod,
	"REPLACE":               replaceAll,
	"TRUNC":                 firstOf(fixed(1, "truncate(%s)"), fixed(2, "(truncate((%[1]s) * power(10, %[2]s)) / power(10, %[2]s))")),
	"LOG":                   fixed(1, "log10(%s)"),
	"AVG":                   fixed(1, "avg(CAST(%s AS DOUBLE))"),
	"MEDIAN":                trinoMedian,
	"PERCENTILE_CONT":       trinoPercentile(trinoPercentileCont),
	"PERCENTILE_DISC":       trinoPercentile(trinoPercentileDisc),
	"APPROX_COUNT_DISTINCT": fixed(1, "approx_distinct(%s)"),
	"TO_DATE":               firstOf(fixed(1, "CAST(%s AS DATE)"), formatted(mysqlFormat, "CAST(date_parse(%s, %s) AS DATE)")),
	"TO_TIMESTAMP":          firstOf(fixed(1, "CAST(%s AS TIMESTAMP(6))"), formatted(mysqlFormat, "CAST(date_parse(%s, %s) AS TIMESTAMP(6))")),
	"TO_CHAR":               formatted(mysqlFormat, "date_format(%s, %s)"),
}

// trinoMod is MOD(x, y) and x % y, NULL on a zero divisor.
var trinoMod = fixed(2, "mod(%s, NULLIF(%s, 0))")

// trinoPartOf is a one-argument date part function (YEAR(x), ...) with
// DuckDB's numbering (trinoParts).
func trinoPartOf(part string) funcRender { return fixed(1, trinoParts[part]) }

var (
	// trinoExtract is EXTRACT(part, x) and DATE_PART(part, x) (trinoParts).
	trinoExtract = partCall(2, trinoPart, func(part string, a []string) string { return fmt.Sprintf(trinoParts[part], a[0]) })
	// trinoDateAdd is DATEADD(part, n, x) (trinoDateAddPart).
	trinoDateAdd = partCall(3, trinoPart, trinoDateAddPart)
	// trinoDateDiffCall is DATEDIFF(part, a, b), boundaries crossed
	// (trinoDateDiff).
	trinoDateDiffCall = partCall(3, trinoPart, func(part string, a []string) string { return trinoDateDiff(part, a[0], a[1]) })
	// trinoMedian is MEDIAN(x), the exact continuous percentile 0.5.
	trinoMedian = exactly(1, func(a []string) (string, bool) { return trinoPercentileCont("0.5", a[0]), true })
)

// trinoDateAddPart adds n of a part to x on TIMESTAMP(6) (a = n, x):
// n interval literals of the part (trinoIntervals), or date_add for
// MILLISECOND, which no interval literal has.
func trinoDateAddPart(part string, a []string) string {
	if part == "MILLISECOND" {
		return fmt.Sprintf("date_add('millisecond', %s, CAST(%s AS TIMESTAMP(6)))", a[0], a[1])
	}
	return fmt.Sprintf("(CAST(%s AS TIMESTAMP(6)) + (%s) * %s)", a[1], a[0], trinoIntervals[part])
}

// trinoPercentile is PERCENTILE_CONT/DISC(fraction, value) through one of
// the exact percentile spellings.
func trinoPercentile(f func(p, x string) string) funcRender {
	return exactly(2, func(a []string) (string, bool) { return f(a[0], a[1]), true })
}

// trinoConcat is CONCAT skipping NULLs (DuckDB's reading), each argument
// as VARCHAR.
func trinoConcat(a []string) string {
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = "COALESCE(CAST(" + x + " AS VARCHAR), '')"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// trinoRegexpReplace is REGEXP_REPLACE(s, pattern, replacement[, flags]):
// \N references become $N (dollarGroups) and flag 'i' an inline (?i);
// what cannot be translated keeps the generic spelling (Support refuses
// it).
func trinoRegexpReplace(a []string) (string, bool) {
	if len(a) != 3 && len(a) != 4 {
		return "", false
	}
	repl, ok := dollarGroups(a[2])
	if !ok {
		return "", false
	}
	pat := a[1]
	if len(a) == 4 {
		ci, ok := trinoRegexpFlags(a[3])
		if !ok {
			return "", false
		}
		if ci {
			pat = "('(?i)' || " + pat + ")"
		}
	}
	return fmt.Sprintf("regexp_replace(%s, %s, %s)", a[0], pat, repl), true
}

// Support: Trino computes every REQUIRED function exactly (see trinoFuncs);
// APPROX_* are sketches; format strings and REGEXP_REPLACE flags it cannot
// translate are refused rather than misread.
func (t trino) Support(name string, a []string) Support {
	switch name {
	case "APPROX_COUNT_DISTINCT":
		return Support{Approximate, "HyperLogLog estimate (approx_distinct)"}
	case "APPROX_PERCENTILE":
		return Support{Approximate, "q-digest estimate (approx_percentile)"}
	case "TO_DATE", "TO_TIMESTAMP", "TO_CHAR":
		if len(a) == 2 {
			if _, ok := mysqlFormat(a[1]); !ok {
				return Support{Unsupported, "the format must be a string literal of strftime specifiers %Y %y %m %d %H %I %M %S %f %j %p %b %B %a %A"}
			}
		}
	case "REGEXP_REPLACE":
		if len(a) == 4 {
			if _, ok := trinoRegexpFlags(a[3]); !ok {
				return Support{Unsupported, "flags must be a string literal of 'g' and 'i'"}
			}
		}
		if len(a) >= 3 {
			if _, ok := dollarGroups(a[2]); !ok {
				return Support{Unsupported, "a replacement with group references must be a string literal"}
			}
		}
	}
	return supported
}

// nullSkipping renders GREATEST/LEAST ignoring NULL arguments (DuckDB and
// PostgreSQL do; Trino returns NULL): each argument is replaced by itself
// or, when NULL, by the first non-NULL other one, so only all-NULL gives
// NULL.
func nullSkipping(fn string, a []string) string {
	if len(a) == 1 {
		return a[0]
	}
	out := make([]string, len(a))
	for i := range a {
		order := append([]string{a[i]}, a[:i]...)
		order = append(order, a[i+1:]...)
		out[i] = "COALESCE(" + strings.Join(order, ", ") + ")"
	}
	return fn + "(" + strings.Join(out, ", ") + ")"
}

// trinoRegexpFlags reads the flags literal of REGEXP_REPLACE: 'g' is what
// Trino does anyway, 'i' becomes an inline (?i). ci reports 'i'.
func trinoRegexpFlags(lit string) (ci, ok bool) {
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return false, false
	}
	for _, c := range lit[1 : len(lit)-1] {
		switch c {
		case 'g':
		case 'i':
			ci = true
		default:
			return false, false
		}
	}
	return ci, true
}

// dollarGroups rewrites a replacement string literal from the \N group
// references of DuckDB and PostgreSQL to Trino's $N (and escapes a literal
// $). A non-literal replacement passes unchanged only when it cannot hold
// a reference, which cannot be known: ok=false.
func dollarGroups(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] >= '0' && body[i+1] <= '9':
			b.WriteByte('$')
			b.WriteByte(body[i+1])
			i++
		case c == '\\' && i+1 < len(body):
			b.WriteByte(body[i+1])
			i++
		case c == '$':
			b.WriteString("\\$")
		default:
			b.WriteByte(c)
		}
	}
	return "'" + b.String() + "'", true
}

// trinoDateDiff counts part boundaries between a and b (see trinoFuncs).
func trinoDateDiff(part, a, b string) string {
	switch part {
	case "YEAR", "QUARTER", "MONTH", "WEEK":
		u := trinoUnits[part]
		return fmt.Sprintf("date_diff('%[1]s', date_trunc('%[1]s', CAST(%[2]s AS DATE)), date_trunc('%[1]s', CAST(%[3]s AS DATE)))", u, a, b)
	case "DAY", "DAYOFWEEK", "DAYOFYEAR":
		return fmt.Sprintf("date_diff('day', CAST(%s AS DATE), CAST(%s AS DATE))", a, b)
	}
	u := trinoUnits[part]
	return fmt.Sprintf("date_diff('%[1]s', date_trunc('%[1]s', CAST(%[2]s AS TIMESTAMP(6))), date_trunc('%[1]s', CAST(%[3]s AS TIMESTAMP(6))))", u, a, b)
}

// sortedValues is the group's non-NULL values of x in ascending order, and
// nonNull their count; Trino and DuckDB both read [i] as 1-based.
func sortedValues(x string) (sorted, n string) {
	return fmt.Sprintf("array_sort(array_agg(%[1]s) FILTER (WHERE %[1]s IS NOT NULL))", x), "count(" + x + ")"
}

// trinoPercentileCont is the exact continuous percentile p of x over the
// group (SQL:2003 PERCENTILE_CONT, as DuckDB and PostgreSQL compute it):
// the value at 1-based position 1 + p*(n-1) of the sorted values,
// interpolated linearly between its neighbours, as DOUBLE; NULL on no rows.
// It holds a group's values in memory, like any exact percentile.
func trinoPercentileCont(p, x string) string {
	sorted, n := sortedValues(x)
	pos := fmt.Sprintf("(1 + (%s) * (%s - 1))", p, n)
	lo := "CAST(floor(" + pos + ") AS BIGINT)"
	hi := "CAST(ceil(" + pos + ") AS BIGINT)"
	return fmt.Sprintf("CASE WHEN %[2]s = 0 THEN NULL ELSE CAST((%[1]s)[%[3]s] AS DOUBLE) + (%[5]s - floor(%[5]s)) * (CAST((%[1]s)[%[4]s] AS DOUBLE) - CAST((%[1]s)[%[3]s] AS DOUBLE)) END",
		sorted, n, lo, hi, pos)
}

// trinoPercentileDisc is the exact discrete percentile p of x (SQL:2003
// PERCENTILE_DISC): the first sorted value whose cumulative share reaches
// p, i.e. position max(1, ceil(p*n)); NULL on no rows.
func trinoPercentileDisc(p, x string) string {
	sorted, n := sortedValues(x)
	return fmt.Sprintf("CASE WHEN %[2]s = 0 THEN NULL ELSE (%[1]s)[CAST(greatest(ceil((%[3]s) * %[2]s), 1) AS BIGINT)] END", sorted, n, p)
}

// strftimeToMySQL maps strftime specifiers (DuckDB's format language, the
// reference) to the MySQL-style specifiers of Trino's date_parse and
// date_format (trino.io docs, "MySQL date functions").
var strftimeToMySQL = map[byte]string{
	'Y': "%Y", 'y': "%y", 'm': "%m", 'd': "%d", 'H': "%H", 'I': "%h",
	'M': "%i", 'S': "%s", 'f': "%f", 'j': "%j", 'p': "%p", 'b': "%b", 'B': "%M",
	'a': "%a", 'A': "%W",
}

// mysqlFormat translates a strftime format given as a SQL string literal.
// ok=false when the format is not a plain literal or uses a specifier
// without a translation (the call keeps its generic spelling, which Trino
// rejects rather than misreading dates).
func mysqlFormat(lit string) (string, bool) {
	return translateStrftime(lit, strftimeToMySQL, "%%", func(c byte) (string, bool) { return string(c), true })
}
