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

// Func maps Ossie functions whose DuckDB spelling differs (duckDBFuncs).
func (duckDB) Func(name string, a []string) (string, bool) { return duckDBFuncs.render(name, a) }

// duckDBFuncs are the Ossie functions whose DuckDB spelling differs.
// Source: DuckDB docs, "Date Functions" and "Text Functions".
var duckDBFuncs = funcTable{
	"DATEADD":           intervalAdd,
	"DATEDIFF":          duckDBDateDiff,
	"REPLACE":           replaceAll,
	"CHARINDEX":         charIndex,
	"REGEXP_REPLACE":    regexpReplaceAll,
	"STARTSWITH":        renamed("starts_with"),
	"ENDSWITH":          renamed("ends_with"),
	"REGEXP_LIKE":       renamed("regexp_matches"),
	"REGEXP_COUNT":      fixed(2, "len(regexp_extract_all(%s, %s))"),
	"TO_DATE":           firstOf(fixed(1, "CAST(%s AS DATE)"), fixed(2, "CAST(strptime(%s, %s) AS DATE)")),
	"TO_TIMESTAMP":      firstOf(fixed(1, "CAST(%s AS TIMESTAMP)"), fixed(2, "strptime(%s, %s)")),
	"TO_CHAR":           fixed(2, "strftime(%s, %s)"),
	"LOG":               logBase,
	"APPROX_PERCENTILE": fixed(2, "approx_quantile(%s, %s)"),
	"DAYOFWEEK":         fixed(1, "dayofweek(%s)"),
}

// duckDBDateDiff is DATEDIFF(part, a, b) as DuckDB's date_diff, which
// already counts boundaries crossed except for weeks.
func duckDBDateDiff(a []string) (string, bool) {
	if len(a) != 3 {
		return "", false
	}
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
