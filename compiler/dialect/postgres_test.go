package dialect_test

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// The values these spellings compute are checked on a real PostgreSQL (and
// against DuckDB) by compiler/expr/render_postgres_test.go; this test pins
// what has no value to check: names, quoting, type names, refusals.
func TestPostgresText(t *testing.T) {
	d := dialect.Postgres
	checks := map[string][2]string{
		"name":        {d.Name(), "postgres"},
		"ident":       {d.QuoteIdent(`a"b`), `"a""b"`},
		"string":      {d.QuoteString("it's \\ ok\x00"), `'it''s \ ok'`},
		"double":      {d.TypeName("DOUBLE"), "DOUBLE PRECISION"},
		"varchar":     {d.TypeName("VARCHAR"), "TEXT"},
		"timestamp":   {d.TypeName("TIMESTAMP"), "TIMESTAMP"},
		"decimal":     {d.TypeName("DECIMAL"), "DECIMAL"},
		"divide":      {d.Divide("a", "b"), "CAST(a AS DOUBLE PRECISION) / NULLIF(CAST(b AS DOUBLE PRECISION), 0)"},
		"trunc week":  {d.DateTrunc(dialect.Week, "x"), "date_trunc('week', x)"},
		"at timezone": {d.AtTimeZone("x", "Asia/Tokyo"), "(x AT TIME ZONE 'Asia/Tokyo')"},
		"from zone":   {d.FromZone("x", "UTC"), "(x AT TIME ZONE 'UTC')"},
		"zone quote":  {d.AtTimeZone("x", "a'b"), "(x AT TIME ZONE 'a''b')"},
		"limit":       {d.LimitOffset(10, 5), " LIMIT 10 OFFSET 5"},
		"no limit":    {d.LimitOffset(-1, 0), ""},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: got %q, want %q", name, c[0], c[1])
		}
	}
	if _, ok := d.FileSource("x.parquet"); ok {
		t.Error("PostgreSQL cannot read files; FileSource must refuse")
	}
}

func TestPostgresFuncRefusals(t *testing.T) {
	d := dialect.Postgres
	for _, c := range []struct {
		name string
		args []string
	}{
		{"TRY_CAST", []string{"x", "TIMESTAMP"}},     // no error-free emulation
		{"TRY_CAST", []string{"x", "TIME"}},          //
		{"TO_DATE", []string{"s", "'%Q'"}},           // unknown strftime specifier
		{"TO_DATE", []string{"s", "fmt"}},            // format not a literal
		{"DATEADD", []string{"FORTNIGHT", "1", "d"}}, // unknown part
		{"SUM", []string{"x"}},                       // native spelling
		{"REGEXP_LIKE", []string{"s", "'a'", "'i'"}}, // flags: native regexp_like
		{"EXTRACT", []string{"EPOCH", "x"}},          // not an Ossie date part
	} {
		if s, ok := d.Func(c.name, c.args); ok {
			t.Errorf("%s(%s) = %s, want the generic spelling", c.name, strings.Join(c.args, ", "), s)
		}
	}
}

func TestPostgresFormatTranslation(t *testing.T) {
	d := dialect.Postgres
	cases := map[string]string{
		`'%Y-%m-%d'`:       `CAST(to_date(s, 'YYYY-MM-DD') AS DATE)`,
		`'%d.%m.%Y %Hh%M'`: `CAST(to_date(s, 'DD.MM.YYYY HH24"h"MI') AS DATE)`,
		`'%Y%%%m'`:         `CAST(to_date(s, 'YYYY%MM') AS DATE)`,
		`'%Y''%m'`:         `CAST(to_date(s, 'YYYY''MM') AS DATE)`,
	}
	for format, want := range cases {
		got, ok := d.Func("TO_DATE", []string{"s", format})
		if !ok || got != want {
			t.Errorf("TO_DATE(s, %s) = %s (%v), want %s", format, got, ok, want)
		}
	}
}
