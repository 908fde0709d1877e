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
			return fmt.Sprintf("(%s + INTERVAL (%s) %s)", a[2], a[1], a[0]), true
		}
	case "DATEDIFF":
		if len(a) == 3 {
			return fmt.Sprintf("date_diff('%s', %s, %s)", strings.ToLower(a[0]), a[1], a[2]), true
		}
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

// AtTimeZone uses DuckDB's timezone(zone, timestamptz) which returns the
// local wall-clock TIMESTAMP in that zone (ICU extension, built in).
func (d duckDB) AtTimeZone(x, tz string) string {
	return fmt.Sprintf("timezone(%s, %s)", d.QuoteString(tz), x)
}
