package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// loadDraft renders doc and compiles it the way ossiectl validate does,
// failing on any error-level problem.
func loadDraft(t *testing.T, doc *ossie.Document) (string, *compiler.Artifact) {
	t.Helper()
	out, err := Render(doc, []string{"test draft"})
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(out, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatalf("draft does not validate:\n%v\n%s", probs, out)
	}
	return string(out), arts[0]
}

func TestDraftQuotesNamesThatNeedIt(t *testing.T) {
	tables := []Table{{
		Schema: "Sales Data", Name: `Order "Items"`, Comment: "One row per order line",
		Columns: []Column{
			{Name: "order", Type: "bigint", Comment: "reserved word"},
			{Name: "Order Date", Type: "date"},
			{Name: "select", Type: "string"},
			{Name: `say "hi"`, Type: "varchar(10)"},
			{Name: "2019 sales", Type: "decimal(12,2)"},
			{Name: "CustomerID", Type: "int"},
			{Name: "customerid", Type: "int"},
			{Name: "größe", Type: "double"},
			{Name: "tags", Type: "array<string>"},
			{Name: "dt", Type: "string", Partition: true},
		},
	}}
	doc, rep := Draft(tables, Options{ModelName: "my model", TypeSystem: "Glue"})
	text, art := loadDraft(t, doc)
	m := doc.SemanticModel[0]
	if m.Name != "my_model" {
		t.Errorf("model name %q", m.Name)
	}
	ds := m.Datasets[0]
	if ds.Name != "order_items" || ds.Source.Object != `"Sales Data"."Order ""Items"""` {
		t.Errorf("dataset %q source %q", ds.Name, ds.Source.Object)
	}
	want := []struct{ name, expr, label string }{
		{"order", `"order"`, ""},
		{"order_date", `"Order Date"`, "Order Date"},
		{"select", `"select"`, ""},
		{"say_hi", `"say ""hi"""`, `say "hi"`},
		{"_2019_sales", `"2019 sales"`, "2019 sales"},
		{"CustomerID", `"CustomerID"`, ""},
		{"customerid_2", "customerid", ""},
		{"größe", "größe", ""},
		{"tags", "tags", ""},
		{"dt", "dt", ""},
	}
	for i, w := range want {
		f := ds.Fields[i]
		if f.Name != w.name || f.Expression.Dialects[0].Expression != w.expr || f.Label != w.label {
			t.Errorf("field %d = %q %q %q; want %q %q %q", i, f.Name, f.Expression.Dialects[0].Expression, f.Label, w.name, w.expr, w.label)
		}
	}
	// The compiled artifact resolves the exact physical names.
	if got := strings.Join(art.Datasets[0].Source.Table, "|"); got != `Sales Data|Order "Items"` {
		t.Errorf("resolved table %q", got)
	}
	if rep.Renamed != 4 || len(rep.Opaque) != 1 || rep.Opaque[0] != "order_items.tags" {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(ds.Fields[9].Description, "Partition key") || !strings.Contains(ds.Fields[8].Description, "array<string>") {
		t.Errorf("descriptions: %q / %q", ds.Fields[9].Description, ds.Fields[8].Description)
	}
	if !strings.HasPrefix(text, "# test draft\n") {
		t.Errorf("header missing:\n%s", text[:80])
	}
}

// Every text the catalog hands over (comments with quotes, colons, line
// breaks, '#', leading spaces; names with quotes and dots) survives
// Render and the strict parser unchanged.
func TestRenderRoundTrip(t *testing.T) {
	texts := []string{"customer's e-mail", `say "hi": now`, "line one\nline two", "# not a comment", "  leading space", "a: b", "- dash", "yes", "null", "0.1", "日本語", "tab\there"}
	var cols []Column
	for i, txt := range texts {
		cols = append(cols, Column{Name: fmt.Sprintf("c%d %s", i, strings.Map(func(r rune) rune {
			if r < 0x20 {
				return ' '
			}
			return r
		}, txt)), Type: "string", Comment: txt})
	}
	cols = append(cols, Column{Name: "bad\tname", Type: "string"})
	// YAML 1.1/1.2 keywords as names must stay strings, also in flow lists.
	words := []string{"null", "true", "yes", "No", "on", "y", "nan", "inf", "Null"}
	var wcols []Column
	for _, w := range words {
		wcols = append(wcols, Column{Name: w, Type: "int"})
	}
	tables := []Table{{Catalog: "Cat.alog", Schema: `sch"ema`, Name: "t.a.b", Comment: texts[2], Columns: cols},
		{Schema: "s", Name: "true", Columns: wcols, PrimaryKey: words}}
	doc, rep := Draft(tables, Options{ModelName: "rt", TypeSystem: "Glue"})
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "control characters") || len(doc.SemanticModel[0].Datasets[0].Fields) != len(texts) {
		t.Errorf("control characters in a name: %q", rep.Skipped)
	}
	out, err := Render(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	parsed, probs := compiler.Parse(out)
	if probs.HasErrors() {
		t.Fatalf("%v\n%s", probs, out)
	}
	got, want := parsed.Doc.SemanticModel[0], doc.SemanticModel[0]
	if got.Datasets[0].Source.Object != want.Datasets[0].Source.Object || got.Datasets[0].Description != texts[2] {
		t.Errorf("dataset %q %q", got.Datasets[0].Source.Object, got.Datasets[0].Description)
	}
	for i, f := range got.Datasets[0].Fields {
		w := want.Datasets[0].Fields[i]
		if f.Name != w.Name || f.Label != w.Label || f.Description != w.Description || f.Description != cleanText(texts[i]) || f.Expression.Dialects[0].Expression != w.Expression.Dialects[0].Expression {
			t.Errorf("field %d: got %+v, want %+v", i, f, w)
		}
	}
	if pk := got.Datasets[1].PrimaryKey; got.Datasets[1].Name != "true" || strings.Join(pk, ",") != "null,true,yes,No,on,y,nan,inf,Null_2" {
		t.Errorf("keyword names: dataset %q, primary key %q", got.Datasets[1].Name, pk)
	}
	loadDraft(t, doc)
}

func BenchmarkDraftRender5000Columns(b *testing.B) {
	cols := make([]Column, 5000)
	types := []string{"bigint", "string", "decimal(10,2)", "timestamp", "date", "array<int>"}
	for i := range cols {
		cols[i] = Column{Name: fmt.Sprintf("c%04d", i), Type: types[i%len(types)]}
	}
	tables := []Table{{Schema: "wide", Name: "t", Columns: cols}}
	b.ReportAllocs()
	for b.Loop() {
		doc, _ := Draft(tables, Options{ModelName: "wide", TypeSystem: "Glue"})
		if _, err := Render(doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The draft's header says what was drafted (to check) and what is left
// to add, never "add primary keys" when they were drafted.
func TestReviewLine(t *testing.T) {
	for _, tc := range []struct {
		r    Report
		want string
	}{
		{Report{Datasets: 2, WithoutPrimaryKey: []string{"a", "b"}},
			"Review before committing: add primary keys, relationships and metrics, then run ossiectl validate."},
		{Report{Datasets: 2, Relationships: 1},
			"Review before committing: check the drafted primary keys and 1 relationship(s), add missing relationships and metrics, then run ossiectl validate."},
		{Report{Datasets: 3, WithoutPrimaryKey: []string{"c"}},
			"Review before committing: check the 2 drafted primary key(s), add primary keys of 1 dataset(s), relationships and metrics, then run ossiectl validate."},
	} {
		if got := tc.r.ReviewLine(); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.r, got, tc.want)
		}
	}
}

// TestDraftedMetricsValidate: the draft proposes a row count over each
// one-column primary key and sums of numeric columns outside the keys;
// identifiers, codes, coordinates and calendar parts are never summed,
// COUNT(*) is never proposed, and the drafted document, metrics included,
// passes the validator.
func TestDraftedMetricsValidate(t *testing.T) {
	tables := []Table{
		{Schema: "s", Name: "customers", PrimaryKey: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint"}, {Name: "name", Type: "string"}}},
		{Schema: "s", Name: "orders", PrimaryKey: []string{"order_id"},
			ForeignKeys: []ForeignKey{{Columns: []string{"customer_id"}, RefSchema: "s", RefTable: "customers", RefColumns: []string{"id"}}},
			Columns: []Column{{Name: "order_id", Type: "bigint"}, {Name: "customer_id", Type: "bigint"},
				{Name: "amount", Type: "decimal(10,2)"}, {Name: "qty", Type: "int"}, {Name: "note", Type: "string"}, {Name: "total_tax", Type: "double"}}},
		{Schema: "s", Name: "stations", Columns: []Column{{Name: "station_id", Type: "int"}, {Name: "latitude", Type: "double"}, {Name: "Longitude", Type: "double"},
			{Name: "lat", Type: "double"}, {Name: "geo_lng", Type: "double"}, {Name: "customerId", Type: "int"}, {Name: "zip", Type: "int"}, {Name: "year", Type: "int"},
			{Name: "order_no", Type: "int"}, {Name: "riders", Type: "bigint"}, {Name: "success_rate", Type: "double"}, {Name: "region_code", Type: "int"}}},
	}
	doc, rep := Draft(tables, Options{ModelName: "m", TypeSystem: "Glue"})
	var got []string
	for _, m := range doc.SemanticModel[0].Metrics {
		got = append(got, m.Name+"="+m.Expression.Dialects[0].Expression)
		if !strings.Contains(m.Description, "Drafted by ossiectl init") {
			t.Errorf("%s: description %q", m.Name, m.Description)
		}
	}
	want := []string{"customers_count=COUNT(customers.id)", "orders_count=COUNT(orders.order_id)", "total_amount=SUM(orders.amount)",
		"total_qty=SUM(orders.qty)", "total_tax=SUM(orders.total_tax)", "total_riders=SUM(stations.riders)"}
	if !slices.Equal(got, want) || rep.Metrics != len(want) {
		t.Errorf("drafted metrics %v (report %d), want %v", got, rep.Metrics, want)
	}
	out, err := Render(doc, []string{rep.ReviewLine()})
	if err != nil {
		t.Fatal(err)
	}
	if _, probs := compiler.Load(out, compiler.CompileOptions{}); len(probs) > 0 {
		t.Errorf("the draft does not validate: %v\n%s", probs, out)
	}
	if steps := rep.NextSteps(); !strings.Contains(steps[len(steps)-1], "6 metric(s) were drafted") || strings.Contains(strings.Join(steps, " "), "COUNT(*)") {
		t.Errorf("steps %q", steps)
	}
	if !strings.Contains(rep.ReviewLine(), "check the 2 drafted primary key(s), 1 relationship(s) and 6 drafted metric(s)") {
		t.Errorf("review line %q", rep.ReviewLine())
	}

	// Nothing to count or sum: the hint says how to write a count, not
	// COUNT(*).
	_, rep = Draft([]Table{{Schema: "s", Name: "notes", Columns: []Column{{Name: "body", Type: "string"}, {Name: "lat", Type: "double"}}}}, Options{ModelName: "m", TypeSystem: "Glue"})
	if got := rep.MetricsHint(); rep.Metrics != 0 || strings.Contains(got, "COUNT(*)") || !strings.Contains(got, "Without metrics the model answers no query") || !strings.Contains(got, "notes.lat") {
		t.Errorf("no metric drafted: %d %q", rep.Metrics, got)
	}
}
