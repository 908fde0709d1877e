package dialect_test

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Support answers decide which calls compile for which engine (OSS3008)
// and what docs/engine-support.md says.
func TestSupport(t *testing.T) {
	for _, c := range []struct {
		d    dialect.Dialect
		name string
		args []string
		want dialect.Level
	}{
		{dialect.DuckDB, "MEDIAN", []string{"x"}, dialect.Exact},
		{dialect.DuckDB, "APPROX_COUNT_DISTINCT", []string{"x"}, dialect.Approximate},
		{dialect.DuckDB, "APPROX_PERCENTILE", []string{"x", "0.5"}, dialect.Approximate},
		{dialect.DuckDB, "TRY_CAST", []string{"s", "TIME"}, dialect.Exact},
		{dialect.Postgres, "APPROX_COUNT_DISTINCT", []string{"x"}, dialect.Exact}, // COUNT(DISTINCT x)
		{dialect.Postgres, "TRY_CAST", []string{"s", "INTEGER"}, dialect.Exact},
		{dialect.Postgres, "TRY_CAST", []string{"s", "DECIMAL(38,9)"}, dialect.Exact},
		{dialect.Postgres, "TRY_CAST", []string{"s", "DATE"}, dialect.Exact},
		{dialect.Postgres, "TRY_CAST", []string{"s", "TIMESTAMP"}, dialect.Unsupported},
		{dialect.Postgres, "TRY_CAST", []string{"s", "TIME"}, dialect.Unsupported},
		{dialect.Postgres, "TO_DATE", []string{"s", "'%Y/%m/%d'"}, dialect.Exact},
		{dialect.Postgres, "TO_DATE", []string{"s", "'%Q'"}, dialect.Unsupported},
		{dialect.Postgres, "TO_CHAR", []string{"d", "fmt"}, dialect.Unsupported},
		{dialect.Trino, "MEDIAN", []string{"x"}, dialect.Exact},
		{dialect.Trino, "PERCENTILE_CONT", []string{"0.5", "x"}, dialect.Exact},
		{dialect.Trino, "APPROX_PERCENTILE", []string{"x", "0.5"}, dialect.Approximate},
		{dialect.Trino, "TO_TIMESTAMP", []string{"s", "'%Y'"}, dialect.Exact},
		{dialect.Trino, "TO_TIMESTAMP", []string{"s", "'%Q'"}, dialect.Unsupported},
		{dialect.Trino, "REGEXP_REPLACE", []string{"s", "'a'", "'b'", "'gi'"}, dialect.Exact},
		{dialect.Trino, "REGEXP_REPLACE", []string{"s", "'a'", "'b'", "'m'"}, dialect.Unsupported},
		{dialect.Trino, "REGEXP_REPLACE", []string{"s", "'a'", "r"}, dialect.Unsupported},
	} {
		s := c.d.Support(c.name, c.args)
		if s.Level != c.want {
			t.Errorf("%s: %s(%s) = %s (%s), want %s", c.d.Name(), c.name, strings.Join(c.args, ", "), s.Level, s.Note, c.want)
		}
		if s.Level != dialect.Exact && s.Note == "" {
			t.Errorf("%s: %s is %s without a note", c.d.Name(), c.name, s.Level)
		}
	}
	e := &dialect.UnsupportedError{Func: "TRY_CAST", Engine: "postgres", Why: "no error-free form"}
	if got := e.Error(); got != "TRY_CAST is not supported on engine postgres: no error-free form" {
		t.Errorf("message %q", got)
	}
}

// DuckDB spellings that differ from the generic form; their values are
// checked on DuckDB and PostgreSQL by compiler/expr/render_postgres_test.go.
func TestDuckDBFunc(t *testing.T) {
	d := dialect.DuckDB
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"DATEADD", []string{"MONTH", "n", "x"}, "(x + (n) * INTERVAL '1 month')"},
		{"DATEADD", []string{"QUARTER", "1", "x"}, "(x + (1) * INTERVAL '3 months')"},
		{"DATEDIFF", []string{"WEEK", "a", "b"}, "date_diff('week', date_trunc('week', a), date_trunc('week', b))"},
		{"DATEDIFF", []string{"DAYOFYEAR", "a", "b"}, "date_diff('day', a, b)"},
		{"DATEDIFF", []string{"MONTH", "a", "b"}, "date_diff('month', a, b)"},
		{"REPLACE", []string{"s", "'x'"}, "replace(s, 'x', '')"},
		{"CHARINDEX", []string{"'o'", "s", "6"}, "CASE WHEN strpos(substr(s, 6), 'o') > 0 THEN strpos(substr(s, 6), 'o') + (6) - 1 WHEN strpos(substr(s, 6), 'o') = 0 THEN 0 END"},
		{"REGEXP_REPLACE", []string{"s", "'a'", "'b'"}, "regexp_replace(s, 'a', 'b', 'g')"},
		{"REGEXP_REPLACE", []string{"s", "'a'", "'b'", "'i'"}, "regexp_replace(s, 'a', 'b', 'i' || 'g')"},
		{"REGEXP_LIKE", []string{"s", "'a'"}, "regexp_matches(s, 'a')"},
		{"LOG", []string{"2", "x"}, "(ln(x) / ln(2))"},
	} {
		got, ok := d.Func(c.name, c.args)
		if !ok || got != c.want {
			t.Errorf("%s(%s) = %q (ok=%v), want %q", c.name, strings.Join(c.args, ", "), got, ok, c.want)
		}
	}
}

// Trino's date_trunc refuses 'hour' on a DATE; the planner's hour grain
// goes through TIMESTAMP(6) there, and only there.
func TestDateTruncHour(t *testing.T) {
	if got := dialect.Trino.DateTrunc(dialect.Hour, "x"); got != "date_trunc('hour', CAST(x AS TIMESTAMP(6)))" {
		t.Errorf("trino hour: %s", got)
	}
	if got := dialect.Trino.DateTrunc(dialect.Day, "x"); got != "date_trunc('day', x)" {
		t.Errorf("trino day: %s", got)
	}
	if got := dialect.DuckDB.DateTrunc(dialect.Hour, "x"); got != "date_trunc('hour', x)" {
		t.Errorf("duckdb hour: %s", got)
	}
}
