package dialect

import (
	"fmt"
	"strings"
)

// DuckDB is the dialect of the embedded default engine (DuckDB 1.5).
var DuckDB Dialect = duckDB{}

type duckDB struct{ ansi }

func (duckDB) Name() string { return "duckdb" }

// FileSource reads Parquet and CSV files in place (DuckDB table functions).
func (d duckDB) FileSource(path string) (string, bool) {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".parquet"):
		return "read_parquet(" + d.QuoteString(path) + ")", true
	case strings.HasSuffix(lower, ".csv"), strings.HasSuffix(lower, ".csv.gz"), strings.HasSuffix(lower, ".tsv"):
		return "read_csv(" + d.QuoteString(path) + ")", true
	case strings.HasSuffix(lower, ".json"), strings.HasSuffix(lower, ".ndjson"):
		return "read_json(" + d.QuoteString(path) + ")", true
	}
	return "", false
}

// Func maps Ossie functions whose DuckDB spelling differs.
// Source: DuckDB docs, "Date Functions" and "Text Functions".
func (duckDB) Func(name string, a []string) (string, bool) {
	switch name {
	case "DATEADD":
		if len(a) == 3 {
			if unit, ok := intervalUnits[strings.ToUpper(a[0])]; ok {
				return fmt.Sprintf("(%s + (%s) * INTERVAL '%s')", a[2], a[1], unit), true
			}
		}
	case "DATEDIFF":
		if len(a) == 3 {
			part := strings.ToUpper(a[0])
			switch part {
			case "WEEK":
				// Week boundaries (Mondays) crossed; DuckDB's own week
				// difference is whole days / 7.
				return fmt.Sprintf("date_diff('week', date_trunc('week', %s), date_trunc('week', %s))", a[1], a[2]), true
			case "DAYOFWEEK", "DAYOFYEAR":
				part = "DAY"
			}
			return fmt.Sprintf("date_diff('%s', %s, %s)", strings.ToLower(part), a[1], a[2]), true
		}
	case "REPLACE":
		if len(a) == 2 {
			return fmt.Sprintf("replace(%s, %s, '')", a[0], a[1]), true
		}
	case "CHARINDEX":
		if len(a) == 3 {
			return charIndexFrom(a[0], a[1], a[2]), true
		}
	case "REGEXP_REPLACE":
		return regexpReplaceAll(a)
	case "STARTSWITH":
		return "starts_with(" + strings.Join(a, ", ") + ")", true
	case "ENDSWITH":
		return "ends_with(" + strings.Join(a, ", ") + ")", true
	case "REGEXP_LIKE":
		return "regexp_matches(" + strings.Join(a, ", ") + ")", true
	case "REGEXP_COUNT":
		if len(a) == 2 {
			return fmt.Sprintf("len(regexp_extract_all(%s, %s))", a[0], a[1]), true
		}
	case "TO_DATE":
		if len(a) == 1 {
			return "CAST(" + a[0] + " AS DATE)", true
		}
		if len(a) == 2 {
			return fmt.Sprintf("CAST(strptime(%s, %s) AS DATE)", a[0], a[1]), true
		}
	case "TO_TIMESTAMP":
		if len(a) == 1 {
			return "CAST(" + a[0] + " AS TIMESTAMP)", true
		}
		if len(a) == 2 {
			return fmt.Sprintf("strptime(%s, %s)", a[0], a[1]), true
		}
	case "TO_CHAR":
		if len(a) == 2 {
			return fmt.Sprintf("strftime(%s, %s)", a[0], a[1]), true
		}
	case "LOG":
		if len(a) == 2 {
			return fmt.Sprintf("(ln(%s) / ln(%s))", a[1], a[0]), true
		}
	case "APPROX_PERCENTILE":
		if len(a) == 2 {
			return fmt.Sprintf("approx_quantile(%s, %s)", a[0], a[1]), true
		}
	case "DAYOFWEEK":
		if len(a) == 1 {
			return "dayofweek(" + a[0] + ")", true
		}
	}
	return "", false
}

// Support: DuckDB runs every function of the language; its APPROX_*
// functions are sketches (HyperLogLog, t-digest).
func (duckDB) Support(name string, a []string) Support {
	switch name {
	case "APPROX_COUNT_DISTINCT":
		return Support{Approximate, "HyperLogLog estimate (approx_count_distinct)"}
	case "APPROX_PERCENTILE":
		return Support{Approximate, "t-digest estimate (approx_quantile)"}
	}
	return supported
}

// regexpReplaceAll is REGEXP_REPLACE(s, pattern, replacement[, flags])
// for engines whose regexp_replace takes a flags string (DuckDB,
// PostgreSQL): every match is replaced, as the language says ("replace
// matches"), where these engines replace the first one unless told 'g'.
// ok is false for another number of arguments.
func regexpReplaceAll(a []string) (sql string, ok bool) {
	switch len(a) {
	case 3:
		return fmt.Sprintf("regexp_replace(%s, %s, %s, 'g')", a[0], a[1], a[2]), true
	case 4:
		return fmt.Sprintf("regexp_replace(%s, %s, %s, %s || 'g')", a[0], a[1], a[2], a[3]), true
	}
	return "", false
}

// charIndexFrom is CHARINDEX(needle, haystack, start): the position counted
// from the start of haystack, 0 when needle does not occur at or after
// start, NULL when an argument is NULL. Plain SQL every engine reads.
func charIndexFrom(needle, hay, start string) string {
	return fmt.Sprintf("CASE WHEN strpos(substr(%[2]s, %[3]s), %[1]s) > 0 THEN strpos(substr(%[2]s, %[3]s), %[1]s) + (%[3]s) - 1 WHEN strpos(substr(%[2]s, %[3]s), %[1]s) = 0 THEN 0 END", needle, hay, start)
}

// FromZone uses DuckDB's timezone(zone, timestamp), which reads the naive
// value as wall time in that zone and returns the TIMESTAMPTZ instant.
func (d duckDB) FromZone(x, tz string) string {
	return fmt.Sprintf("timezone(%s, CAST(%s AS TIMESTAMP))", d.QuoteString(tz), x)
}

// AtTimeZone uses DuckDB's timezone(zone, timestamptz) which returns the
// local wall-clock TIMESTAMP in that zone (ICU extension, built in).
func (d duckDB) AtTimeZone(x, tz string) string {
	return fmt.Sprintf("timezone(%s, %s)", d.QuoteString(tz), x)
}
