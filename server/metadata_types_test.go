package server

import (
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// TestMetadataReportsAnswerTypes: a metric without datatype is described
// with the type its answers report (compiler.MetricDatatypes), so the
// metadata, describe_model and the PostgreSQL wire endpoint's column
// types (int8 for an Integer, not numeric) agree with the answer.
func TestMetadataReportsAnswerTypes(t *testing.T) {
	arts, probs := compiler.Load([]byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: t
        source: t
        primary_key: [id]
        fields:
          - name: id
            expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}
          - name: qty
            expression: {dialects: [{dialect: ANSI_SQL, expression: qty}]}
    metrics:
      - name: qty_sum
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(t.qty)}]}
      - name: qty_share
        expression: {dialects: [{dialect: ANSI_SQL, expression: qty_sum / COUNT(*)}]}
      - name: qty_declared
        datatype: Decimal
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(t.qty)}]}
`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	art := compiler.WithEngineTypes(arts[0], compiler.FieldTypes{"t": {"id": ossie.TypeInteger, "qty": ossie.TypeInteger}})
	d := describeModel(art)
	want := map[string]ossie.Datatype{"qty_sum": ossie.TypeInteger, "qty_share": ossie.TypeFloat, "qty_declared": ossie.TypeDecimal}
	for _, m := range d.Metrics {
		if m.Datatype != want[m.Name] {
			t.Errorf("%s: datatype %q, want %q", m.Name, m.Datatype, want[m.Name])
		}
	}
}
