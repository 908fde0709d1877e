package compiler

import (
	"fmt"
	"os"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

func ansi(sql string) ossie.Expression {
	return ossie.Expression{Dialects: []ossie.DialectExpression{{Dialect: ossie.ANSISQL, Expression: sql}}}
}

// largeModel generates a model of n datasets (a join tree: dataset i is the
// many side of a relationship to dataset (i-1)/2) with fields per dataset
// and metrics: base aggregates, aggregates across a relationship, and
// derived metrics over earlier ones.
func largeModel(datasets, fields, metrics int) *ossie.Document {
	m := ossie.SemanticModel{Name: "large"}
	for i := 0; i < datasets; i++ {
		d := ossie.Dataset{Name: fmt.Sprintf("ds%d", i), Source: ossie.Source{Object: fmt.Sprintf("sch.t%d", i)}, PrimaryKey: []string{"id"}}
		d.Fields = append(d.Fields, ossie.Field{Name: "id", Expression: ansi("id")})
		d.Fields = append(d.Fields, ossie.Field{Name: "parent_id", Expression: ansi("parent_id")})
		for f := 2; f < fields; f++ {
			d.Fields = append(d.Fields, ossie.Field{Name: fmt.Sprintf("f%d", f), Expression: ansi(fmt.Sprintf("CASE WHEN c%d > 0 THEN c%d * 2 ELSE 0 END", f, f)), Datatype: ossie.TypeDecimal})
		}
		m.Datasets = append(m.Datasets, d)
		if i > 0 {
			m.Relationships = append(m.Relationships, ossie.Relationship{
				Name: fmt.Sprintf("r%d", i), From: d.Name, To: fmt.Sprintf("ds%d", (i-1)/2),
				FromColumns: []string{"parent_id"}, ToColumns: []string{"id"}})
		}
	}
	for k := 0; k < metrics; k++ {
		i := k % datasets
		var sql string
		switch {
		case k%5 == 4 && k >= 10:
			sql = fmt.Sprintf("m%d / NULLIF(m%d, 0)", k-1, k-7)
		case k%5 == 3 && i > 0:
			sql = fmt.Sprintf("SUM(ds%d.f2 * ds%d.f3)", i, (i-1)/2)
		case k%5 == 2:
			sql = fmt.Sprintf("COUNT(DISTINCT ds%d.id)", i)
		default:
			sql = fmt.Sprintf("SUM(ds%d.f%d) FILTER (WHERE ds%d.f2 > 10)", i, 2+k%(fields-2), i)
		}
		m.Metrics = append(m.Metrics, ossie.Metric{Name: fmt.Sprintf("m%d", k), Expression: ansi(sql)})
	}
	return &ossie.Document{Version: ossie.Version020Dev0, SemanticModel: []ossie.SemanticModel{m}}
}

func TestLargeModelCompiles(t *testing.T) {
	doc := largeModel(50, 5, 400)
	arts, probs := Compile(&Parsed{Doc: doc}, CompileOptions{})
	if len(probs) > 0 {
		t.Fatal(probs.Error())
	}
	checkResolved(t, arts[0])
}

func BenchmarkValidateCompileFlights(b *testing.B) {
	data, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		b.Skip("examples/flights/model.yaml not present")
	}
	p, probs := Parse(data)
	if probs.HasErrors() {
		b.Fatal(probs)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := Compile(p, CompileOptions{}); probs.HasErrors() {
			b.Fatal(probs)
		}
	}
}

// BenchmarkCompileLarge: 1,000 datasets (5,000 fields), 10,000 metrics.
// Target (issue 2): at most 1 s per op.
func BenchmarkCompileLarge(b *testing.B) {
	p := &Parsed{Doc: largeModel(1000, 5, 10000)}
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := Compile(p, CompileOptions{}); len(probs) > 0 {
			b.Fatal(probs[0])
		}
	}
}

// FuzzValidate: parsing then validating and compiling any input never
// panics, and a compiled artifact always satisfies the resolution rules.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(shop(met("avg", "revenue / order_count"))))
	f.Add([]byte(shop(met("a", "b"), met("b", "a"), met("c", "SUM(x.y)"))))
	f.Add([]byte(doc([]string{ordersDS, customersDS}, []string{ordersToCustomers, rel("x", "customers", "orders", "region", "order_id")}, nil)))
	f.Add([]byte(doc([]string{ds("t", `{kind: query, object: {dialects: [{dialect: ANSI_SQL, expression: "SELECT 1"}]}}`, "", fld("a", "COUNT(*)"))}, nil, []string{met("n", "COUNT(*)")})))
	for _, name := range []string{"BC-01", "BC-06", "BC-16"} {
		if data, err := os.ReadFile("testdata/validate/cases/" + name + ".yaml"); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, probs := Parse(data)
		if probs.HasErrors() || p == nil || p.Doc == nil {
			return
		}
		arts, probs := Compile(p, CompileOptions{DefaultSchema: "s"})
		if probs.HasErrors() {
			if arts != nil {
				t.Fatal("artifacts despite errors")
			}
			return
		}
		for _, a := range arts {
			checkResolved(t, a)
		}
	})
}
