package compiler

import (
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

func TestSplitTablePath(t *testing.T) {
	tests := []struct {
		in    string
		parts []string
		err   string
	}{
		{"orders", []string{"orders"}, ""},
		{"Shop.Orders", []string{"shop", "orders"}, ""},
		{`"Order Facts"`, []string{"Order Facts"}, ""},
		{`cat."My ""quoted"" schema".t_1$`, []string{"cat", `My "quoted" schema`, "t_1$"}, ""},
		{`"a.b".c`, []string{"a.b", "c"}, ""},
		{"a.b.c.d", nil, "at most catalog.schema.table"},
		{"a..b", nil, "empty part"},
		{"a.", nil, "ends with '.'"},
		{`"open`, nil, "unterminated"},
		{`""`, nil, "empty quoted"},
		{`"a"b`, nil, "expected '.'"},
		{"my table", nil, "not allowed"},
		{"1abc", nil, "not allowed"},
		{"", nil, "empty"},
	}
	for _, tc := range tests {
		parts, err := splitTablePath(tc.in)
		if !slices.Equal(parts, tc.parts) || (tc.err == "") != (err == "") || !strings.Contains(err, tc.err) {
			t.Errorf("splitTablePath(%q) = %q, %q; want %q, %q", tc.in, parts, err, tc.parts, tc.err)
		}
	}
}

func TestResolveSource(t *testing.T) {
	q := func(d ossie.Dialect, text string) ossie.Source {
		return ossie.Source{Form: ossie.SourceFormQuery, Kind: ossie.SourceQuery, Query: &ossie.Expression{Dialects: []ossie.DialectExpression{{Dialect: d, Expression: text}}}}
	}
	tests := []struct {
		name string
		in   ossie.Source
		want ResolvedSource
		code string
	}{
		{"string table", ossie.Source{Object: "s.t"}, ResolvedSource{Kind: SourceTable, Table: []string{"s", "t"}}, ""},
		{"string query", ossie.Source{Object: " select a from t; "}, ResolvedSource{Kind: SourceQuery, Query: "select a from t"}, ""},
		{"string with query", ossie.Source{Object: "WITH x AS (SELECT 1) SELECT * FROM x"}, ResolvedSource{Kind: SourceQuery, Query: "WITH x AS (SELECT 1) SELECT * FROM x"}, ""},
		{"table named selections", ossie.Source{Object: "selections"}, ResolvedSource{Kind: SourceTable, Table: []string{"selections"}}, ""},
		{"parquet file", ossie.Source{Object: "s3://b/x/*.PARQUET"}, ResolvedSource{Kind: SourceFile, Path: "s3://b/x/*.PARQUET"}, ""},
		{"csv.gz file", ossie.Source{Object: "data/f.csv.gz"}, ResolvedSource{Kind: SourceFile, Path: "data/f.csv.gz"}, ""},
		{"json file", ossie.Source{Object: "f.json"}, ResolvedSource{Kind: SourceFile, Path: "f.json"}, ""},
		{"kind table", ossie.Source{Form: ossie.SourceFormTable, Kind: ossie.SourceTable, Object: `db."S".t`}, ResolvedSource{Kind: SourceTable, Table: []string{"db", "S", "t"}}, ""},
		{"kind query ossie", q(ossie.OssieSQL2026, "SELECT 1 AS a"), ResolvedSource{Kind: SourceQuery, Query: "SELECT 1 AS a"}, ""},
		{"kind query no portable", q(ossie.Snowflake, "SELECT 1"), ResolvedSource{}, CodeNoPortableDialect},
		{"kind query DDL", q(ossie.ANSISQL, "DROP TABLE t"), ResolvedSource{}, CodeInvalidSource},
		{"two statements", ossie.Source{Object: "SELECT 1; SELECT 2"}, ResolvedSource{}, CodeInvalidSource},
		{"garbage query", ossie.Source{Object: "SELECT FROM WHERE ("}, ResolvedSource{}, CodeInvalidSource},
		{"empty", ossie.Source{Object: "  "}, ResolvedSource{}, CodeInvalidSource},
		{"kind query empty", ossie.Source{Form: ossie.SourceFormQuery}, ResolvedSource{}, CodeInvalidSource},
	}
	for _, tc := range tests {
		got, code, msg := resolveSource(tc.in)
		if code != tc.code || (code == "" && !equalSource(got, tc.want)) {
			t.Errorf("%s: got %+v %s %q, want %+v %s", tc.name, got, code, msg, tc.want, tc.code)
		}
	}
}

func equalSource(a, b ResolvedSource) bool {
	return a.Kind == b.Kind && slices.Equal(a.Table, b.Table) && a.Query == b.Query && a.Path == b.Path
}

func TestWithDefaults(t *testing.T) {
	tests := []struct {
		in   []string
		opts CompileOptions
		want []string
	}{
		{[]string{"t"}, CompileOptions{}, []string{"t"}},
		{[]string{"t"}, CompileOptions{DefaultSchema: "s"}, []string{"s", "t"}},
		{[]string{"t"}, CompileOptions{DefaultCatalog: "c", DefaultSchema: "s"}, []string{"c", "s", "t"}},
		{[]string{"t"}, CompileOptions{DefaultCatalog: "c"}, []string{"t"}},
		{[]string{"x", "t"}, CompileOptions{DefaultCatalog: "c", DefaultSchema: "s"}, []string{"c", "x", "t"}},
		{[]string{"a", "b", "t"}, CompileOptions{DefaultCatalog: "c", DefaultSchema: "s"}, []string{"a", "b", "t"}},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.in)
		if got := withDefaults(in, tc.opts); !slices.Equal(got, tc.want) || !slices.Equal(in, tc.in) {
			t.Errorf("withDefaults(%v, %+v) = %v, want %v (input must stay)", tc.in, tc.opts, got, tc.want)
		}
	}
}
