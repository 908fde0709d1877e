package compiler_test

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// engineModel uses TRY_CAST to TIMESTAMP (which PostgreSQL cannot do
// without errors) in a field and in a metric, plus a call every engine
// runs.
const engineModel = `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: events
        source: events
        fields:
          - {name: raw, expression: {dialects: [{dialect: ANSI_SQL, expression: raw}]}}
          - {name: seen_at, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: "TRY_CAST(raw AS TIMESTAMP)"}]}}
          - {name: day, expression: {dialects: [{dialect: ANSI_SQL, expression: "DATE_TRUNC('day', raw)"}]}}
    metrics:
      - {name: latest, expression: {dialects: [{dialect: SNOWFLAKE, expression: "MAX(x)"}, {dialect: ANSI_SQL, expression: "MAX(TRY_CAST(events.raw AS TIME)) "}]}}
      - {name: n, expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(*)"}]}}
`

func TestCompileForEngineReportsUnsupported(t *testing.T) {
	arts, probs := compiler.Load([]byte(engineModel), compiler.CompileOptions{Dialect: dialect.Postgres})
	if arts != nil {
		t.Fatalf("compiled for postgres despite TRY_CAST to TIMESTAMP: %v", probs)
	}
	want := map[string]string{
		"semantic_model[0].datasets[0].fields[1].expression.dialects[0].expression": `field "events.seen_at": TRY_CAST is not supported on engine postgres`,
		"semantic_model[0].metrics[0].expression.dialects[1].expression":            `metric "latest": TRY_CAST is not supported on engine postgres`,
	}
	got := 0
	for _, p := range probs {
		if p.Code != compiler.CodeExprUnsupported {
			t.Errorf("unexpected problem %s", p)
			continue
		}
		got++
		prefix, ok := want[p.Path]
		if !ok || !strings.HasPrefix(p.Message, prefix) {
			t.Errorf("problem %s; want at one of %v", p, want)
		}
		if p.Line == 0 {
			t.Errorf("problem %s has no line", p)
		}
	}
	if got != len(want) {
		t.Errorf("got %d OSS3008 problems, want %d: %v", got, len(want), probs)
	}
	for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Trino, nil} {
		if arts, probs := compiler.Load([]byte(engineModel), compiler.CompileOptions{Dialect: d}); arts == nil || probs.HasErrors() {
			t.Errorf("dialect %v: %v", d, probs)
		}
	}
}

// A model compiled without an engine is checked when a query is planned
// for one: every query fails with OSS3008 naming the member, no SQL with a
// silently wrong spelling is produced.
func TestPlanReportsUnsupported(t *testing.T) {
	arts, probs := compiler.Load([]byte(engineModel), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	q := &plan.Query{Metrics: []string{"n"}}
	if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
		t.Fatalf("duckdb: %v", probs)
	}
	_, probs = p.Plan(q, dialect.Postgres)
	paths := map[string]bool{}
	for _, pr := range probs {
		if pr.Code == compiler.CodeExprUnsupported && strings.Contains(pr.Message, "TRY_CAST") && strings.Contains(pr.Message, "postgres") {
			paths[pr.Path] = true
		}
	}
	// The same document paths as validation with the engine set (above),
	// relative to the semantic model.
	if !paths["datasets[0].fields[1].expression.dialects[0].expression"] || !paths["metrics[0].expression.dialects[1].expression"] || len(paths) != 2 {
		t.Errorf("postgres plan problems = %v", probs)
	}
	if got := compiler.CheckEngine(arts[0], dialect.Trino); len(got) != 0 {
		t.Errorf("trino: %v", got)
	}
}
