package expr_test

import (
	"database/sql"
	"fmt"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// TestRenderDuckDB parses each expression, renders it for DuckDB over a
// one-row table and checks the value DuckDB computes: the rendering of
// every function is proven by the engine, not by string comparison.
func TestRenderDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (i INTEGER, z INTEGER, n INTEGER, s VARCHAR, "Mixed Case" VARCHAR, d DATE, ts TIMESTAMP);
		INSERT INTO t VALUES (7, 0, NULL, 'Hello, World', 'x''y', DATE '2024-02-29', TIMESTAMP '2024-02-29 13:45:30')`); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{"i / 2", "3.5"},
		{"i / z", "<nil>"},
		{"i % 4", "3"},
		{"-i + 1", "-6"},
		{"i BETWEEN 1 AND 10", "true"},
		{"i NOT IN (1, 2)", "true"},
		{"s LIKE 'Hello%'", "true"},
		{"s ILIKE 'hello%'", "true"},
		{"n IS NULL AND NOT (i IS NULL)", "true"},
		{"n IS NOT DISTINCT FROM NULL", "true"},
		{"CASE WHEN i > 5 THEN 'big' ELSE 'small' END", "big"},
		{"CASE i WHEN 7 THEN 'seven' END", "seven"},
		{"CAST(i AS VARCHAR) || '!'", "7!"},
		{"TRY_CAST(s AS INTEGER)", "<nil>"},
		{"COALESCE(n, i)", "7"},
		{"NULLIF(i, 7)", "<nil>"},
		{"IFF(i > 1, 'y', 'n')", "y"},
		{"GREATEST(i, 9, 3)", "9"},
		{"YEAR(d) * 100 + MONTH(d)", "202402"},
		{"DAY(d)", "29"},
		{"QUARTER(d)", "1"},
		{"EXTRACT(YEAR FROM d)", "2024"},
		{"DATE_PART('month', d)", "2"},
		{"CAST(DATE_TRUNC('month', d) AS DATE)", "2024-02-01"},
		{"CAST(DATE_TRUNC(week, d) AS DATE)", "2024-02-26"},
		{"CAST(DATEADD(day, 1, d) AS DATE)", "2024-03-01"},
		{"DATEDIFF(day, DATE '2024-01-01', d)", "59"},
		{"HOUR(ts) * 100 + MINUTE(ts)", "1345"},
		{"LOWER(s)", "hello, world"},
		{"UPPER(\"Mixed Case\")", "X'Y"},
		{"TRIM('  a  ')", "a"},
		{"CONCAT(s, '?')", "Hello, World?"},
		{"SUBSTRING(s, 1, 5)", "Hello"},
		{"LENGTH(s)", "12"},
		{"LEFT(s, 2)", "He"},
		{"REPLACE(s, 'World', 'you')", "Hello, you"},
		{"SPLIT_PART(s, ', ', 2)", "World"},
		{"POSITION('W' IN s)", "8"},
		{"STARTSWITH(s, 'Hell')", "true"},
		{"ENDSWITH(s, 'ld')", "true"},
		{"CONTAINS(s, 'o, W')", "true"},
		{"REGEXP_LIKE(s, '^H.*d$')", "true"},
		{"ROUND(2.567, 2)", "2.57"},
		{"ABS(-3)", "3"},
		{"FLOOR(2.5) + CEIL(2.5) + CEILING(0.1)", "6"},
		{"POWER(2, 10)", "1024"},
		{"LOG(2, 8)", "3"},
		{"CAST(TO_DATE('2024-05-06') AS VARCHAR)", "2024-05-06"},
	}
	for _, tc := range cases {
		n, errs := expr.Parse(tc.in)
		if len(errs) > 0 {
			t.Errorf("%s: parse: %v", tc.in, errs)
			continue
		}
		s, err := expr.Render(n, dialect.DuckDB, func(r expr.Ref) (string, error) {
			return dialect.DuckDB.QuoteIdent("t") + "." + dialect.DuckDB.QuoteIdent(r.Name), nil
		})
		if err != nil {
			t.Errorf("%s: render: %v", tc.in, err)
			continue
		}
		var v any
		if err := db.QueryRow("SELECT " + s + " FROM t").Scan(&v); err != nil {
			t.Errorf("%s: %v\nSQL: %s", tc.in, err, s)
			continue
		}
		got := fmt.Sprint(v)
		if tm, ok := v.(interface{ Format(string) string }); ok {
			got = tm.Format("2006-01-02")
		}
		if got != tc.want {
			if f, ok := v.(float64); !ok || fmt.Sprint(f) != tc.want {
				t.Errorf("%s = %s, want %s\nSQL: %s", tc.in, got, tc.want, s)
			}
		}
	}
}

func TestRenderAggregates(t *testing.T) {
	n, errs := expr.Parse("COUNT(DISTINCT x) + SUM(y) FILTER (WHERE y > 0) + PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY y) + COUNT(*)")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := expr.Render(n, dialect.DuckDB, func(r expr.Ref) (string, error) { return dialect.DuckDB.QuoteIdent(r.Name), nil })
	if err != nil {
		t.Fatal(err)
	}
	want := `(((COUNT(DISTINCT "x") + SUM(CASE WHEN ("y" > 0) THEN "y" END)) + PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY "y")) + COUNT(*))`
	if s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}
}

// Trees read from an artifact may be malformed; rendering them is an
// error for every dialect, never a panic.
func TestRenderMalformedTrees(t *testing.T) {
	x := expr.Ref{Name: "x"}
	for _, n := range []expr.Node{
		expr.Func{Name: "IF"},
		expr.Func{Name: "IFF", Args: []expr.Node{x}},
		expr.Func{Name: "NVL2", Args: []expr.Node{x, x}},
		expr.Func{Name: "PERCENTILE_CONT", Args: []expr.Node{x}},
		expr.Func{Name: "MEDIAN", Args: []expr.Node{x}, WithinGroup: x},
		expr.Func{Name: "FOO", Args: []expr.Node{x}},
		expr.Func{Name: "ceiling", Args: []expr.Node{x}},
		expr.Func{Name: "SUM", Star: true},
		expr.Func{Name: "EXTRACT", Args: []expr.Node{expr.Keyword{Name: "YEAR"}}},
		expr.Func{Name: "DATE_TRUNC", Args: []expr.Node{expr.Keyword{Name: "FORTNIGHT"}, x}},
	} {
		for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Postgres, dialect.Trino} {
			if s, err := expr.Render(n, d, func(r expr.Ref) (string, error) { return r.Name, nil }); err == nil {
				t.Errorf("%#v on %s rendered as %s", n, d.Name(), s)
			}
		}
	}
}
