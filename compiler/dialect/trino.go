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
// MEDIAN is exact: Trino has no exact median aggregate (approx_percentile
// is a sketch whose answer may differ from DuckDB's), so MEDIAN sorts the
// group's values with array_agg and interpolates the middle two, as DuckDB
// does. It holds a group's values in memory, like any exact median.
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

// trinoParts renders one date part of x as an integer with DuckDB's
// numbering: DAYOFWEEK is 0 (Sunday) to 6 while Trino's day_of_week is ISO
// 1 (Monday) to 7, and MILLISECOND counts the seconds too while Trino's
// millisecond() is only the fraction.
var trinoParts = map[string]string{
	"YEAR": "year(%s)", "QUARTER": "quarter(%s)", "MONTH": "month(%s)",
	"WEEK": "week(%s)", "DAY": "day(%s)", "DAYOFWEEK": "(day_of_week(%s) %% 7)",
	"DAYOFYEAR": "day_of_year(%s)", "HOUR": "hour(%s)", "MINUTE": "minute(%s)",
	"SECOND": "second(%[1]s)", "MILLISECOND": "(second(%[1]s) * 1000 + millisecond(%[1]s))",
}

// trinoUnits are the date_add / date_diff / date_trunc units for a part.
var trinoUnits = map[string]string{
	"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "week",
	"DAY": "day", "DAYOFWEEK": "day", "DAYOFYEAR": "day", "HOUR": "hour",
	"MINUTE": "minute", "SECOND": "second", "MILLISECOND": "millisecond",
}

// trinoPart reads a date part given as a bare word (YEAR) or as the quoted
// string the renderer makes for DATE_PART ('year').
func trinoPart(s string) (string, bool) {
	s = strings.ToUpper(strings.Trim(s, "'"))
	_, ok := trinoUnits[s]
	return s, ok
}

// Func maps the Ossie functions whose Trino spelling or semantics differ.
// Native spellings that already agree (regexp_like, regexp_count,
// approx_percentile, try_cast, strpos, log(b, x), replace(s, from)) keep
// ok=false. Deliberate choices:
//   - DATEDIFF counts part boundaries crossed, like DuckDB; Trino's
//     date_diff counts whole elapsed units, so both sides are truncated to
//     the part first (WEEK is whole days / 7, truncated toward zero);
//   - REGEXP_EXTRACT returns ” when nothing matches (Trino: NULL);
//   - LOG(x) is base 10 (Trino's log needs a base);
//   - TO_DATE/TO_TIMESTAMP/TO_CHAR formats are strftime (DuckDB) and are
//     translated to the MySQL-style specifiers of date_parse/date_format.
func (t trino) Func(name string, a []string) (string, bool) {
	switch name {
	case "YEAR", "QUARTER", "MONTH", "DAY", "DAYOFYEAR", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND", "MILLISECOND":
		if len(a) == 1 {
			return fmt.Sprintf(trinoParts[name], a[0]), true
		}
	case "EXTRACT", "DATE_PART":
		if len(a) == 2 {
			if part, ok := trinoPart(a[0]); ok {
				return fmt.Sprintf(trinoParts[part], a[1]), true
			}
		}
	case "DATEADD":
		if len(a) == 3 {
			if part, ok := trinoPart(a[0]); ok {
				return fmt.Sprintf("date_add('%s', %s, %s)", trinoUnits[part], a[1], a[2]), true
			}
		}
	case "DATEDIFF":
		if len(a) == 3 {
			if part, ok := trinoPart(a[0]); ok {
				return trinoDateDiff(part, a[1], a[2]), true
			}
		}
	case "STARTSWITH":
		if len(a) == 2 {
			return "starts_with(" + a[0] + ", " + a[1] + ")", true
		}
	case "ENDSWITH":
		// ends_with exists only in recent Trino releases (string functions
		// page); substr works on all. The length guard keeps a suffix
		// longer than the string from reaching substr's count-from-the-end
		// reading of a negative start.
		if len(a) == 2 {
			return fmt.Sprintf("((length(%[1]s) >= length(%[2]s)) AND (substr(%[1]s, length(%[1]s) - length(%[2]s) + 1) = %[2]s))", a[0], a[1]), true
		}
	case "CONTAINS":
		if len(a) == 2 {
			return fmt.Sprintf("(strpos(%s, %s) > 0)", a[0], a[1]), true
		}
	case "CHARINDEX":
		if len(a) == 3 {
			return fmt.Sprintf("CASE WHEN strpos(substr(%[2]s, %[3]s), %[1]s) > 0 THEN strpos(substr(%[2]s, %[3]s), %[1]s) + (%[3]s) - 1 ELSE 0 END", a[0], a[1], a[2]), true
		}
	case "REGEXP_EXTRACT":
		switch len(a) {
		case 2:
			return fmt.Sprintf("COALESCE(regexp_extract(%s, %s), '')", a[0], a[1]), true
		case 3:
			return fmt.Sprintf("COALESCE(regexp_extract(%s, %s, %s), '')", a[0], a[1], a[2]), true
		}
	case "TRUNC":
		if len(a) == 1 || len(a) == 2 {
			return "truncate(" + strings.Join(a, ", ") + ")", true
		}
	case "LOG":
		if len(a) == 1 {
			return "log10(" + a[0] + ")", true
		}
	case "MEDIAN":
		if len(a) == 1 {
			return trinoMedian(a[0]), true
		}
	case "APPROX_COUNT_DISTINCT":
		if len(a) == 1 {
			return "approx_distinct(" + a[0] + ")", true
		}
	case "TO_DATE", "TO_TIMESTAMP":
		typ := "DATE"
		if name == "TO_TIMESTAMP" {
			typ = "TIMESTAMP(6)"
		}
		switch len(a) {
		case 1:
			return "CAST(" + a[0] + " AS " + typ + ")", true
		case 2:
			if f, ok := mysqlFormat(a[1]); ok {
				return fmt.Sprintf("CAST(date_parse(%s, %s) AS %s)", a[0], t.QuoteString(f), typ), true
			}
		}
	case "TO_CHAR":
		if len(a) == 2 {
			if f, ok := mysqlFormat(a[1]); ok {
				return fmt.Sprintf("date_format(%s, %s)", a[0], t.QuoteString(f)), true
			}
		}
	}
	return "", false
}

// trinoDateDiff counts part boundaries between a and b (see Func).
func trinoDateDiff(part, a, b string) string {
	switch part {
	case "YEAR", "QUARTER", "MONTH":
		u := trinoUnits[part]
		return fmt.Sprintf("date_diff('%[1]s', date_trunc('%[1]s', CAST(%[2]s AS DATE)), date_trunc('%[1]s', CAST(%[3]s AS DATE)))", u, a, b)
	case "WEEK":
		return fmt.Sprintf("(date_diff('day', CAST(%s AS DATE), CAST(%s AS DATE)) / 7)", a, b)
	case "DAY", "DAYOFWEEK", "DAYOFYEAR":
		return fmt.Sprintf("date_diff('day', CAST(%s AS DATE), CAST(%s AS DATE))", a, b)
	}
	u := trinoUnits[part]
	return fmt.Sprintf("date_diff('%[1]s', date_trunc('%[1]s', CAST(%[2]s AS TIMESTAMP(6))), date_trunc('%[1]s', CAST(%[3]s AS TIMESTAMP(6))))", u, a, b)
}

// trinoMedian is the exact median of x over the group: the middle value of
// the sorted non-NULL values, or the mean of the middle two, as DOUBLE
// (DuckDB's median of numbers interpolates the same way). NULL on no rows.
func trinoMedian(x string) string {
	sorted := fmt.Sprintf("array_sort(array_agg(%[1]s) FILTER (WHERE %[1]s IS NOT NULL))", x)
	n := "count(" + x + ")"
	return fmt.Sprintf("CASE WHEN %[2]s = 0 THEN NULL WHEN %[2]s %% 2 = 1 THEN CAST(element_at(%[1]s, %[2]s / 2 + 1) AS DOUBLE) "+
		"ELSE (CAST(element_at(%[1]s, %[2]s / 2) AS DOUBLE) + CAST(element_at(%[1]s, %[2]s / 2 + 1) AS DOUBLE)) / 2 END", sorted, n)
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
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return "", false
	}
	f := strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '%' && i+1 < len(f) && f[i+1] == '%':
			b.WriteString("%%")
			i++
		case c == '%' && i+1 < len(f):
			spec, ok := strftimeToMySQL[f[i+1]]
			if !ok {
				return "", false
			}
			b.WriteString(spec)
			i++
		case c == '%':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
