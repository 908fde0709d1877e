package dialect_test

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// No Trino runs here, so this pins the rendered text of every Trino
// spelling; the values are checked by the conformance suite.
func TestTrinoText(t *testing.T) {
	d := dialect.Trino
	checks := map[string][2]string{
		"name":         {d.Name(), "trino"},
		"ident":        {d.QuoteIdent(`a"b`), `"a""b"`},
		"ident plain":  {d.QuoteIdent("order"), `"order"`},
		"string":       {d.QuoteString("it's \\ ok\x00"), `'it''s \ ok'`},
		"string end":   {d.QuoteString(`x'; DROP TABLE t; --`), `'x''; DROP TABLE t; --'`},
		"varchar":      {d.TypeName("VARCHAR"), "VARCHAR"},
		"double":       {d.TypeName("DOUBLE"), "DOUBLE"},
		"timestamp":    {d.TypeName("TIMESTAMP"), "TIMESTAMP(6)"},
		"time":         {d.TypeName("TIME"), "TIME(6)"},
		"decimal":      {d.TypeName("DECIMAL"), "DECIMAL"},
		"divide":       {d.Divide("a", "b"), "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0)"},
		"trunc week":   {d.DateTrunc(dialect.Week, "x"), "date_trunc('week', x)"},
		"trunc month":  {d.DateTrunc(dialect.Month, "x"), "date_trunc('month', x)"},
		"at timezone":  {d.AtTimeZone("x", "Asia/Tokyo"), "CAST((x AT TIME ZONE 'Asia/Tokyo') AS TIMESTAMP(6))"},
		"from zone":    {d.FromZone("x", "UTC"), "with_timezone(x, 'UTC')"},
		"zone quote":   {d.AtTimeZone("x", "a'b"), "CAST((x AT TIME ZONE 'a''b') AS TIMESTAMP(6))"},
		"limit offset": {d.LimitOffset(10, 5), " OFFSET 5 LIMIT 10"},
		"limit":        {d.LimitOffset(10, 0), " LIMIT 10"},
		"offset":       {d.LimitOffset(-1, 3), " OFFSET 3"},
		"no limit":     {d.LimitOffset(-1, 0), ""},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: got %q, want %q", name, c[0], c[1])
		}
	}
	if _, ok := d.FileSource("x.parquet"); ok {
		t.Error("Trino cannot read local files; FileSource must refuse")
	}
}

func TestTrinoFunc(t *testing.T) {
	d := dialect.Trino
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"YEAR", []string{"x"}, "year(x)"},
		{"QUARTER", []string{"x"}, "quarter(x)"},
		{"MONTH", []string{"x"}, "month(x)"},
		{"DAY", []string{"x"}, "day(x)"},
		{"HOUR", []string{"x"}, "hour(x)"},
		{"MINUTE", []string{"x"}, "minute(x)"},
		{"SECOND", []string{"x"}, "second(x)"},
		{"DAYOFYEAR", []string{"x"}, "EXTRACT(DOY FROM x)"},
		{"DAYOFWEEK", []string{"x"}, "(EXTRACT(DOW FROM x) % 7)"},
		{"EXTRACT", []string{"DAYOFWEEK", "x"}, "(EXTRACT(DOW FROM x) % 7)"},
		{"EXTRACT", []string{"MILLISECOND", "x"}, "date_diff('millisecond', date_trunc('minute', CAST(x AS TIMESTAMP(6))), CAST(x AS TIMESTAMP(6)))"},
		{"DATE_PART", []string{"'week'", "x"}, "week(x)"},
		{"DATEADD", []string{"MONTH", "2", "x"}, "(CAST(x AS TIMESTAMP(6)) + (2) * INTERVAL '1' MONTH)"},
		{"DATEADD", []string{"HOUR", "2", "x"}, "(CAST(x AS TIMESTAMP(6)) + (2) * INTERVAL '1' HOUR)"},
		{"DATEADD", []string{"MILLISECOND", "2", "x"}, "date_add('millisecond', 2, CAST(x AS TIMESTAMP(6)))"},
		{"DATE_TRUNC", []string{"'hour'", "x"}, "date_trunc('hour', CAST(x AS TIMESTAMP(6)))"},
		{"||", []string{"a", "1"}, "(CAST(a AS VARCHAR) || CAST(1 AS VARCHAR))"},
		{"CONCAT", []string{"a", "b"}, "(COALESCE(CAST(a AS VARCHAR), '') || COALESCE(CAST(b AS VARCHAR), ''))"},
		{"GREATEST", []string{"a", "b", "c"}, "greatest(COALESCE(a, b, c), COALESCE(b, a, c), COALESCE(c, a, b))"},
		{"LEAST", []string{"a"}, "a"},
		{"LEFT", []string{"s", "2"}, "substr(s, 1, 2)"},
		{"RIGHT", []string{"s", "2"}, "CASE WHEN (2) <= 0 THEN '' ELSE substr(s, greatest(length(s) - (2) + 1, 1)) END"},
		{"SPLIT_PART", []string{"s", "','", "2"}, "CASE WHEN s IS NULL OR ',' IS NULL OR 2 IS NULL THEN NULL ELSE COALESCE(split_part(s, ',', 2), '') END"},
		{"REGEXP_REPLACE", []string{"s", "'(a)'", `'<\1> $'`}, `regexp_replace(s, '(a)', '<$1> \$')`},
		{"REGEXP_REPLACE", []string{"s", "'a'", "'b'", "'gi'"}, "regexp_replace(s, ('(?i)' || 'a'), 'b')"},
		{"PERCENTILE_DISC", []string{"0.9", "x"}, "CASE WHEN count(x) = 0 THEN NULL ELSE (array_sort(array_agg(x) FILTER (WHERE x IS NOT NULL)))[CAST(greatest(ceil((0.9) * count(x)), 1) AS BIGINT)] END"},
		{"DATEADD", []string{"DAYOFYEAR", "1", "x"}, "(CAST(x AS TIMESTAMP(6)) + (1) * INTERVAL '1' DAY)"},
		{"DATEDIFF", []string{"MONTH", "a", "b"}, "date_diff('month', date_trunc('month', CAST(a AS DATE)), date_trunc('month', CAST(b AS DATE)))"},
		{"DATEDIFF", []string{"DAY", "a", "b"}, "date_diff('day', CAST(a AS DATE), CAST(b AS DATE))"},
		{"DATEDIFF", []string{"WEEK", "a", "b"}, "date_diff('week', date_trunc('week', CAST(a AS DATE)), date_trunc('week', CAST(b AS DATE)))"},
		{"DATEDIFF", []string{"HOUR", "a", "b"}, "date_diff('hour', date_trunc('hour', CAST(a AS TIMESTAMP(6))), date_trunc('hour', CAST(b AS TIMESTAMP(6))))"},
		{"STARTSWITH", []string{"s", "'ab'"}, "starts_with(s, 'ab')"},
		{"ENDSWITH", []string{"s", "'yz'"}, "((length(s) >= length('yz')) AND (substr(s, length(s) - length('yz') + 1) = 'yz'))"},
		{"CONTAINS", []string{"s", "'x'"}, "(strpos(s, 'x') > 0)"},
		{"CHARINDEX", []string{"'b'", "s", "2"}, "CASE WHEN strpos(substr(s, 2), 'b') > 0 THEN strpos(substr(s, 2), 'b') + (2) - 1 WHEN strpos(substr(s, 2), 'b') = 0 THEN 0 END"},
		{"REGEXP_EXTRACT", []string{"s", "'a(b)'"}, "CASE WHEN s IS NULL OR 'a(b)' IS NULL THEN NULL ELSE COALESCE(regexp_extract(s, 'a(b)'), '') END"},
		{"REGEXP_EXTRACT", []string{"s", "'a(b)'", "1"}, "CASE WHEN s IS NULL OR 'a(b)' IS NULL THEN NULL ELSE COALESCE(regexp_extract(s, 'a(b)', 1), '') END"},
		{"TRUNC", []string{"x", "2"}, "(truncate((x) * power(10, 2)) / power(10, 2))"},
		{"LOG", []string{"x"}, "log10(x)"},
		{"APPROX_COUNT_DISTINCT", []string{"x"}, "approx_distinct(x)"},
		{"MEDIAN", []string{"x"}, "CASE WHEN count(x) = 0 THEN NULL ELSE CAST((array_sort(array_agg(x) FILTER (WHERE x IS NOT NULL)))[CAST(floor((1 + (0.5) * (count(x) - 1))) AS BIGINT)] AS DOUBLE) + ((1 + (0.5) * (count(x) - 1)) - floor((1 + (0.5) * (count(x) - 1)))) * (CAST((array_sort(array_agg(x) FILTER (WHERE x IS NOT NULL)))[CAST(ceil((1 + (0.5) * (count(x) - 1))) AS BIGINT)] AS DOUBLE) - CAST((array_sort(array_agg(x) FILTER (WHERE x IS NOT NULL)))[CAST(floor((1 + (0.5) * (count(x) - 1))) AS BIGINT)] AS DOUBLE)) END"},
		{"TO_DATE", []string{"s"}, "CAST(s AS DATE)"},
		{"TO_TIMESTAMP", []string{"s"}, "CAST(s AS TIMESTAMP(6))"},
		{"TO_DATE", []string{"s", "'%d.%m.%Y'"}, "CAST(date_parse(s, '%d.%m.%Y') AS DATE)"},
		{"TO_TIMESTAMP", []string{"s", "'%Y-%m-%d %H:%M:%S'"}, "CAST(date_parse(s, '%Y-%m-%d %H:%i:%s') AS TIMESTAMP(6))"},
		{"TO_CHAR", []string{"x", "'%B %Y, 100%%'"}, "date_format(x, '%M %Y, 100%%')"},
		{"TO_CHAR", []string{"x", "'%Y''s'"}, "date_format(x, '%Y''s')"},
	} {
		got, ok := d.Func(c.name, c.args)
		if !ok || got != c.want {
			t.Errorf("%s(%s) = %q (ok=%v), want %q", c.name, strings.Join(c.args, ", "), got, ok, c.want)
		}
	}
}

// Native Trino spellings and inputs without a safe translation keep the
// generic NAME(args) form.
func TestTrinoFuncNative(t *testing.T) {
	d := dialect.Trino
	for _, c := range []struct {
		name string
		args []string
	}{
		{"REGEXP_LIKE", []string{"s", "'a.c'"}},            // regexp_like(string, pattern)
		{"REGEXP_COUNT", []string{"s", "'a'"}},             // regexp_count(string, pattern)
		{"APPROX_PERCENTILE", []string{"x", "0.9"}},        // approx_percentile(x, percentage)
		{"LOG", []string{"2", "x"}},                        // log(b, x): base first, as in Ossie
		{"TRY_CAST", []string{"x", "INTEGER"}},             // try_cast is native
		{"SUM", []string{"x"}},                             //
		{"DATEADD", []string{"FORTNIGHT", "1", "x"}},       // unknown part
		{"EXTRACT", []string{"EPOCH", "x"}},                // not an Ossie date part
		{"TO_DATE", []string{"s", "'%Q'"}},                 // unknown strftime specifier
		{"TO_DATE", []string{"s", "fmt"}},                  // format not a literal
		{"TO_CHAR", []string{"x", "'%Y%'"}},                // dangling %
		{"YEAR", []string{"x", "y"}},                       // wrong arity
		{"STARTSWITH", []string{"s"}},                      // wrong arity
		{"MEDIAN", []string{"x", "y"}},                     // wrong arity
		{"APPROX_COUNT_DISTINCT", []string{"x", "0.01"}},   // wrong arity
		{"REGEXP_EXTRACT", []string{"s", "'a'", "1", "x"}}, // wrong arity
	} {
		if s, ok := d.Func(c.name, c.args); ok {
			t.Errorf("%s(%s) = %s, want the generic spelling", c.name, strings.Join(c.args, ", "), s)
		}
	}
}
