package expr_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/expr"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// renderData is valid SQL on both DuckDB and PostgreSQL: one row in t for
// scalar functions, four in v for aggregates.
const renderData = `CREATE TABLE t (i INTEGER, z INTEGER, n INTEGER, s VARCHAR, "Mixed Case" VARCHAR, d DATE, ts TIMESTAMP);
INSERT INTO t VALUES (7, 0, NULL, 'Hello, World', 'x''y', DATE '2024-02-29', TIMESTAMP '2024-02-29 13:45:30');
CREATE TABLE v (x INTEGER);
INSERT INTO v VALUES (1), (2), (4), (10)`

// renderCase is an expression over table from ("t" unless set) and its
// value as text (see valueText). Cases run on PostgreSQL and, unless
// pgOnly, on DuckDB too: both engines must give want, so the PostgreSQL
// spelling of every function is checked against the reference engine.
type renderCase struct {
	in, want string
	from     string
	pgOnly   string // why DuckDB cannot run it
}

var renderCases = []renderCase{
	// Operators: real division, NULL divisor, modulo sign, concatenation.
	{in: "i / 2", want: "3.5"},
	{in: "i / z", want: "<nil>"},
	{in: "n / i", want: "<nil>"},
	{in: "i % 4", want: "3"},
	{in: "-i % 4", want: "-3"},
	{in: "-i + 1", want: "-6"},
	{in: "s || '!'", want: "Hello, World!"},
	{in: "s || NULL", want: "<nil>"},
	{in: "i BETWEEN 1 AND 10", want: "true"},
	{in: "i NOT IN (1, 2)", want: "true"},
	{in: "s LIKE 'Hello%'", want: "true"},
	{in: "s ILIKE 'hello%'", want: "true"},
	{in: "n IS NULL AND NOT (i IS NULL)", want: "true"},
	{in: "n IS NOT DISTINCT FROM NULL", want: "true"},
	{in: "i IS DISTINCT FROM n", want: "true"},
	{in: "CASE WHEN i > 5 THEN 'big' ELSE 'small' END", want: "big"},
	{in: "CASE i WHEN 7 THEN 'seven' END", want: "seven"},
	// Casts and TRY_CAST.
	{in: "CAST(i AS VARCHAR) || '!'", want: "7!"},
	{in: "CAST(i AS DOUBLE) / 2", want: "3.5"},
	{in: "CAST(d AS VARCHAR)", want: "2024-02-29"},
	{in: "CAST('12.5' AS DECIMAL(10,2))", want: "12.5"},
	{in: "TRY_CAST(s AS INTEGER)", want: "<nil>"},
	{in: "TRY_CAST('3.7' AS INTEGER)", want: "4"},
	{in: "TRY_CAST(' 12 ' AS INTEGER)", want: "12"},
	{in: "TRY_CAST('-1e3' AS BIGINT)", want: "-1000"},
	{in: "TRY_CAST('99999999999' AS INTEGER)", want: "<nil>"},
	{in: "TRY_CAST('abc' AS DOUBLE)", want: "<nil>"},
	{in: "TRY_CAST('2.25' AS DOUBLE)", want: "2.25"},
	{in: "TRY_CAST('2.5' AS DECIMAL(10,2))", want: "2.5"},
	{in: "TRY_CAST('yes' AS BOOLEAN)", want: "true"},
	{in: "TRY_CAST('maybe' AS BOOLEAN)", want: "<nil>"},
	{in: "TRY_CAST('2024-02-29' AS DATE)", want: "2024-02-29"},
	{in: "TRY_CAST('2024-02-30' AS DATE)", want: "<nil>"},
	{in: "TRY_CAST('2023-02-29' AS DATE)", want: "<nil>"},
	{in: "TRY_CAST('2024-13-01' AS DATE)", want: "<nil>"},
	{in: "TRY_CAST(i AS VARCHAR)", want: "7"},
	// Conditionals.
	{in: "COALESCE(n, i)", want: "7"},
	{in: "NULLIF(i, 7)", want: "<nil>"},
	{in: "IFF(i > 1, 'y', 'n')", want: "y"},
	{in: "IF(i < 1, 'y', 'n')", want: "n"},
	{in: "GREATEST(i, 9, 3)", want: "9"},
	{in: "LEAST(i, 9, 3)", want: "3"},
	// Date parts are integers on both engines.
	{in: "YEAR(d) * 100 + MONTH(d)", want: "202402"},
	{in: "DAY(d)", want: "29"},
	{in: "QUARTER(d)", want: "1"},
	{in: "DAYOFYEAR(d)", want: "60"},
	{in: "HOUR(ts) * 100 + MINUTE(ts)", want: "1345"},
	{in: "SECOND(ts)", want: "30"},
	{in: "SECOND(CAST('2024-01-01 10:59:59.9' AS TIMESTAMP))", want: "59"},
	{in: "EXTRACT(YEAR FROM d)", want: "2024"},
	{in: "EXTRACT(SECOND FROM CAST('2024-01-01 10:59:59.9' AS TIMESTAMP))", want: "59"},
	{in: "EXTRACT(MILLISECOND FROM CAST('2024-01-01 10:59:59.9' AS TIMESTAMP))", want: "59900"},
	{in: "EXTRACT(WEEK FROM d)", want: "9"},
	{in: "EXTRACT(DAYOFWEEK FROM d)", want: "4"},
	{in: "EXTRACT(DAYOFYEAR FROM d)", want: "60"},
	{in: "DATE_PART('month', d)", want: "2"},
	{in: "DATE_PART('dayofweek', CAST('2024-03-03' AS DATE))", want: "0"},
	{in: "DATE_PART(quarter, d)", want: "1"},
	// Truncation: ISO weeks start on Monday.
	{in: "CAST(DATE_TRUNC('month', d) AS DATE)", want: "2024-02-01"},
	{in: "CAST(DATE_TRUNC(week, d) AS DATE)", want: "2024-02-26"},
	{in: "CAST(DATE_TRUNC('week', CAST('2024-03-03' AS DATE)) AS DATE)", want: "2024-02-26"},
	{in: "CAST(DATE_TRUNC('quarter', d) AS DATE)", want: "2024-01-01"},
	{in: "DATE_TRUNC('hour', ts)", want: "2024-02-29 13:00:00"},
	// DATEADD.
	{in: "CAST(DATEADD(day, 1, d) AS DATE)", want: "2024-03-01"},
	{in: "CAST(DATEADD(month, 1, d) AS DATE)", want: "2024-03-29"},
	{in: "CAST(DATEADD(year, 1, d) AS DATE)", want: "2025-02-28"},
	{in: "CAST(DATEADD(quarter, 1, d) AS DATE)", want: "2024-05-29"},
	{in: "CAST(DATEADD(week, -1, d) AS DATE)", want: "2024-02-22"},
	{in: "DATEADD(hour, i, ts)", want: "2024-02-29 20:45:30"},
	{in: "DATEADD(minute, 15, ts)", want: "2024-02-29 14:00:30"},
	// DATEDIFF counts boundaries (weeks: whole days / 7).
	{in: "DATEDIFF(day, DATE '2024-01-01', d)", want: "59"},
	{in: "DATEDIFF(month, CAST('2024-01-31' AS DATE), CAST('2024-02-01' AS DATE))", want: "1"},
	{in: "DATEDIFF(month, CAST('2024-03-01' AS DATE), CAST('2024-01-31' AS DATE))", want: "-2"},
	{in: "DATEDIFF(year, CAST('2024-12-31' AS DATE), CAST('2025-01-01' AS DATE))", want: "1"},
	{in: "DATEDIFF(quarter, CAST('2024-03-31' AS DATE), CAST('2024-04-01' AS DATE))", want: "1"},
	{in: "DATEDIFF(week, CAST('2024-01-07' AS DATE), CAST('2024-01-08' AS DATE))", want: "1"},
	{in: "DATEDIFF(week, CAST('2024-01-08' AS DATE), CAST('2024-01-14' AS DATE))", want: "0"},
	{in: "DATEDIFF(week, CAST('2024-01-08' AS DATE), CAST('2024-01-22' AS DATE))", want: "2"},
	{in: "DATEDIFF(week, CAST('2024-01-22' AS DATE), CAST('2024-01-12' AS DATE))", want: "-2"},
	{in: "DATEDIFF(day, CAST('2024-01-01 23:59:59' AS TIMESTAMP), CAST('2024-01-02 00:00:00' AS TIMESTAMP))", want: "1"},
	{in: "DATEDIFF(hour, CAST('2024-01-01 10:59:59' AS TIMESTAMP), CAST('2024-01-01 11:00:00' AS TIMESTAMP))", want: "1"},
	{in: "DATEDIFF(minute, CAST('2024-01-01 10:00:59' AS TIMESTAMP), CAST('2024-01-01 10:02:00' AS TIMESTAMP))", want: "2"},
	{in: "DATEDIFF(second, CAST('2024-01-01 10:59:59.9' AS TIMESTAMP), CAST('2024-01-01 11:00:00.1' AS TIMESTAMP))", want: "1"},
	{in: "DATEDIFF(millisecond, CAST('2024-01-01 10:59:59.9' AS TIMESTAMP), CAST('2024-01-01 11:00:00.1' AS TIMESTAMP))", want: "200"},
	{in: "CAST(TO_DATE('2024-05-06') AS VARCHAR)", want: "2024-05-06"},
	{in: "TO_DATE('2024/05/06', '%Y/%m/%d')", want: "2024-05-06"},
	{in: "TO_TIMESTAMP('2024-05-06 07:08:09')", want: "2024-05-06 07:08:09"},
	{in: "TO_TIMESTAMP('06.05.2024 07h08', '%d.%m.%Y %Hh%M')", want: "2024-05-06 07:08:00"},
	// Strings.
	{in: "LOWER(s)", want: "hello, world"},
	{in: "UPPER(\"Mixed Case\")", want: "X'Y"},
	{in: "TRIM('  a  ')", want: "a"},
	{in: "TRIM('xxaxx', 'x')", want: "a"},
	{in: "LTRIM('  a ')", want: "a "},
	{in: "RTRIM(' a  ')", want: " a"},
	{in: "CONCAT(s, '?')", want: "Hello, World?"},
	{in: "CONCAT('a', NULL, 'b')", want: "ab"},
	{in: "SUBSTRING(s, 1, 5)", want: "Hello"},
	{in: "SUBSTRING(s, 8)", want: "World"},
	{in: "LENGTH(s)", want: "12"},
	{in: "LENGTH('héllo')", want: "5"},
	{in: "LEFT(s, 2)", want: "He"},
	{in: "RIGHT(s, 3)", want: "rld"},
	{in: "REPLACE(s, 'World', 'you')", want: "Hello, you"},

	{in: "SPLIT_PART(s, ', ', 2)", want: "World"},
	{in: "SPLIT_PART(s, ', ', 5)", want: ""},
	{in: "POSITION('W' IN s)", want: "8"},
	{in: "CHARINDEX('o', s)", want: "5"},

	{in: "CHARINDEX('q', s, 6)", want: "0"},
	{in: "STARTSWITH(s, 'Hell')", want: "true"},
	{in: "ENDSWITH(s, 'ld')", want: "true"},
	{in: "ENDSWITH(s, 'Hello')", want: "false"},
	{in: "ENDSWITH(s, '')", want: "true"},
	{in: "ENDSWITH(CAST(n AS VARCHAR), 'x')", want: "<nil>"},
	{in: "CONTAINS(s, 'o, W')", want: "true"},
	{in: "CONTAINS(s, 'o,W')", want: "false"},
	{in: "REGEXP_LIKE(s, '^H.*d$')", want: "true"},
	{in: "REGEXP_LIKE(s, 'world')", want: "false"},
	{in: "REGEXP_EXTRACT(s, 'W(or)ld')", want: "World"},
	{in: "REGEXP_EXTRACT(s, 'W(or)ld', 1)", want: "or"},
	{in: "REGEXP_EXTRACT(s, 'zzz')", want: ""},
	{in: "REGEXP_REPLACE(s, 'l', 'L')", want: "HeLLo, WorLd"},
	{in: "REGEXP_REPLACE(s, '(l+)', '<\\1>')", want: "He<ll>o, Wor<l>d"},
	{in: "REGEXP_EXTRACT(CAST(n AS VARCHAR), 'x')", want: "<nil>"},
	{in: "REPLACE(s, 'l')", want: "Heo, Word"},
	{in: "CHARINDEX('o', s, 6)", want: "9"},
	{in: "PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY x)", want: "10", from: "v"},
	{in: "PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY x)", want: "8.2", from: "v"},
	{in: "SUM(x) FILTER (WHERE x > 1) + COUNT(*) FILTER (WHERE x > 2)", want: "18", from: "v"},
	{in: "NVL(n, 1) + IFNULL(n, 2) + ZEROIFNULL(n) + NVL2(n, 10, 20)", want: "23"},
	{in: "NULLIFZERO(z)", want: "<nil>"},
	{in: "CAST('1.23456789012' AS DECIMAL)", want: "1.23456789"},
	{in: "MOD(7.5, 2)", want: "1.5"},
	{in: "CAST(-7.5 AS DOUBLE) % 2", want: "-1.5"},
	{in: "ROUND(SIN(PI() / 2) + COS(0) + DEGREES(PI()) + ATAN2(0, 1), 6)", want: "182"},
	{in: "REGEXP_REPLACE(s, 'l', 'L', 'g')", want: "HeLLo, WorLd"},
	// Math.
	{in: "ROUND(2.567, 2)", want: "2.57"},
	{in: "ROUND(i / 3, 2)", want: "2.33"},
	{in: "ROUND(CAST(2.5 AS DOUBLE))", want: "3"},
	{in: "ROUND(-2.5)", want: "-3"},
	{in: "TRUNC(2.567, 2)", want: "2.56"},
	{in: "TRUNC(i / 2)", want: "3"},
	{in: "ABS(-3)", want: "3"},
	{in: "FLOOR(2.5) + CEIL(2.5) + CEILING(0.1)", want: "6"},
	{in: "FLOOR(-2.1)", want: "-3"},
	{in: "SIGN(-2.5)", want: "-1"},
	{in: "POWER(2, 10)", want: "1024"},
	{in: "SQRT(16)", want: "4"},
	{in: "EXP(0)", want: "1"},
	{in: "LN(1)", want: "0"},
	{in: "LOG10(1000)", want: "3"},
	{in: "LOG(2, 8)", want: "3"},
	{in: "LOG(2, i + 1)", want: "3"},
	{in: "MOD(7, 3)", want: "1"},
	{in: "MOD(-7, 3)", want: "-1"},
	// Aggregates.
	{in: "SUM(x)", want: "17", from: "v"},
	{in: "SUM(x) FILTER (WHERE x > 1)", want: "16", from: "v"},
	{in: "COUNT(*) + COUNT(DISTINCT x)", want: "8", from: "v"},
	{in: "AVG(x)", want: "4.25", from: "v"},
	{in: "MIN(x) + MAX(x)", want: "11", from: "v"},
	{in: "MEDIAN(x)", want: "3", from: "v"},
	{in: "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)", want: "3", from: "v"},
	{in: "PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY x)", want: "2", from: "v"},
	{in: "APPROX_COUNT_DISTINCT(x)", want: "4", from: "v"},
	{in: "APPROX_PERCENTILE(x, 0.5)", want: "3", from: "v", pgOnly: "DuckDB's approx_quantile is approximate"},
	{in: "VARIANCE(x)", want: "16.25", from: "v"},
	{in: "VAR_SAMP(x)", want: "16.25", from: "v"},
	{in: "VAR_POP(x)", want: "12.1875", from: "v"},
	{in: "STDDEV(x) * STDDEV(x)", want: "16.25", from: "v"},
	{in: "STDDEV_SAMP(x) * STDDEV_SAMP(x)", want: "16.25", from: "v"},
	{in: "STDDEV_POP(x) * STDDEV_POP(x)", want: "12.1875", from: "v"},
	{in: "SUM(x) / COUNT(*)", want: "4.25", from: "v"},
}

// TestRenderPostgres renders every case for PostgreSQL and for DuckDB and
// checks the value each engine computes.
func TestRenderPostgres(t *testing.T) {
	ctx := context.Background()
	pg, err := postgres.Open(ctx, postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	duck, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	for _, e := range []engine.Engine{pg, duck} {
		if err := e.Exec(ctx, renderData); err != nil {
			t.Fatalf("%s: %v", e.Dialect().Name(), err)
		}
	}
	for _, tc := range renderCases {
		n, errs := expr.Parse(tc.in)
		if len(errs) > 0 {
			t.Errorf("%s: parse: %v", tc.in, errs)
			continue
		}
		engines := []engine.Engine{pg, duck}
		if tc.pgOnly != "" {
			engines = engines[:1]
		}
		from := tc.from
		if from == "" {
			from = "t"
		}
		for _, e := range engines {
			d := e.Dialect()
			s, err := expr.Render(n, d, func(r expr.Ref) (string, error) {
				return d.QuoteIdent(from) + "." + d.QuoteIdent(r.Name), nil
			})
			if err != nil {
				t.Errorf("%s on %s: render: %v", tc.in, d.Name(), err)
				continue
			}
			res, err := e.Query(ctx, "SELECT "+s+" FROM "+d.QuoteIdent(from), 0)
			if err != nil {
				t.Errorf("%s on %s: %v\nSQL: %s", tc.in, d.Name(), err, s)
				continue
			}
			if got := valueText(res.Rows[0][0]); got != tc.want {
				t.Errorf("%s on %s = %s, want %s\nSQL: %s", tc.in, d.Name(), got, tc.want, s)
			}
		}
	}
}

// valueText prints an engine value for comparison: numbers without
// trailing zeros (12 significant digits, so 2.9999999999999996 reads 3),
// dates as 2006-01-02, timestamps with their time of day.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case float64:
		return strconv.FormatFloat(x, 'g', 12, 64)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05.999999")
	}
	return fmt.Sprint(v)
}
