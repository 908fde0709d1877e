package ossiectl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
)

const bindModel = `version: "0.1.1"
dialects: [ANSI_SQL]
vendors: [COMMON]
semantic_model:
  - name: m
    datasets:
      - name: events
        source: events
        primary_key: [event_key]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: at, datatype: DateTimeTz, expression: {dialects: [{dialect: ANSI_SQL, expression: happened}]}}
    metrics:
      - {name: units, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(events.qty)"}]}}
`

// validate --engine with a live DuckDB binds the model: a key column and
// a metric column that are no fields and are missing are drift (OSS5001),
// a DateTimeTz field over a naive TIMESTAMP is OSS5008; once the table
// matches, the same command passes.
func TestValidateBindsToLiveEngine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.duckdb")
	exec := func(sql string) {
		t.Helper()
		e, err := duckdb.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TABLE events (id INTEGER, happened TIMESTAMP)")
	model := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(model, []byte(bindModel), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without a connection, validate checks the document only.
	if code, out, errs := run(t, "", "validate", model); code != ExitOK {
		t.Fatalf("document alone: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := run(t, "", "validate", "--engine", "duckdb", "--duckdb", db, model)
	if code != ExitProblems {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		`error OSS5001: the model has drifted from the engine: dataset events: column "qty" does not exist in events`,
		`error OSS5001: the model has drifted from the engine: dataset events: column "event_key" does not exist in events`,
		"semantic_model[0].datasets[0].fields[1].datatype: error OSS5008: field events.at is declared DateTimeTz",
		"; 1 checked against the live duckdb engine", // the drift was found by checking
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	exec("ALTER TABLE events ADD COLUMN qty INTEGER; ALTER TABLE events ADD COLUMN event_key INTEGER; ALTER TABLE events ALTER happened TYPE TIMESTAMPTZ")
	code, out, errs = run(t, "", "validate", "--engine", "duckdb", "--duckdb", db, model)
	if code != ExitOK || !strings.Contains(out, "1 document valid (0.1.1: 1); 1 warning; 1 checked against the live duckdb engine") {
		t.Fatalf("after fixing the table: exit %d\n%s%s", code, out, errs)
	}
	// A connection without --engine is a usage error.
	if code, _, errs := run(t, "", "validate", "--duckdb", db, model); code != ExitUsage || !strings.Contains(errs, "--engine") {
		t.Errorf("--duckdb without --engine: exit %d %s", code, errs)
	}
}

// Migrating a 0.1.1 document with top-level dialects and vendors to
// 0.2.0.dev0 removes those lists (that version has no such keys).
func TestMigrateDropsTopLevelLists(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(model, []byte(bindModel), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "", "migrate", "--to", "0.2.0.dev0", model); code != ExitOK || !strings.Contains(errs, "removed") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got := string(readFile(t, model))
	if strings.Contains(got, "dialects: [ANSI_SQL]\n") || strings.Contains(got, "vendors:") {
		t.Errorf("lists kept:\n%s", got)
	}
	if code, out, errs := run(t, "", "validate", model); code != ExitOK {
		t.Errorf("validate after migrate: exit %d\n%s%s", code, out, errs)
	}
}

// A 0.1.1 document with its top-level lists becomes a SemanticModel
// manifest that keeps them (spec.dialects, spec.vendors) and validates.
func TestManifestKeepsTopLevelLists(t *testing.T) {
	model := writeTemp(t, "model.yaml", bindModel)
	code, out, errs := run(t, "", "manifest", model, "--name", "events")
	if code != ExitOK || !strings.Contains(out, "dialects:") || !strings.Contains(out, "vendors:") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if code, vout, verrs := run(t, "", "validate", writeTemp(t, "events.sm.yaml", out)); code != ExitOK || !strings.Contains(vout, "(0.1.1: 1)") {
		t.Errorf("manifest: exit %d\n%s%s", code, vout, verrs)
	}
}

// viewsOnDateManifest has a time field without datatype over a DATE column
// and a view of an hour window along it at day grain.
const viewsOnDateManifest = `apiVersion: ossie.dev/v1alpha1
kind: SemanticModel
metadata: {name: ev}
spec:
  version: "0.2.0.dev0"
  semantic_model:
    - name: ev
      datasets:
        - name: events
          source: events
          primary_key: [id]
          fields:
            - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
            - {name: day_on, dimension: {is_time: true}, expression: {dialects: [{dialect: ANSI_SQL, expression: day_on}]}}
      metrics:
        - {name: cnt, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(events.id)}]}}
        - name: cnt_3h
          expression: {dialects: [{dialect: ANSI_SQL, expression: cnt}]}
          custom_extensions:
            - {vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "rolling", "count": 3, "unit": "hour"}}'}
  governance:
    roles: [{name: analyst}]
  views:
    - {name: hours_of_dates, role: analyst, metrics: [cnt_3h], dimensions: [{field: events.day_on, grain: day}]}
`

// validate --engine plans views as the operator does, on the bound
// model: day_on declares no datatype and the engine makes it a Date, so
// an hour window along it is OSS4061 (without the engine its type is not
// known and the view passes). Before, views were planned on the document
// alone with or without an engine.
func TestValidateEnginePlansViewsWithEngineTypes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ev.duckdb")
	e, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(context.Background(), "CREATE TABLE events (id INTEGER, day_on DATE)"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	model := filepath.Join(dir, "ev.sm.yaml")
	if err := os.WriteFile(model, []byte(viewsOnDateManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "", "validate", model); code != ExitOK {
		t.Fatalf("document alone: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := run(t, "", "validate", "--engine", "duckdb", "--duckdb", db, model)
	if code != ExitProblems || !strings.Contains(out, "views[0]") || !strings.Contains(out, "OSS4061") {
		t.Errorf("with the engine: exit %d, want %d and OSS4061 at views[0]\n%s%s", code, ExitProblems, out, errs)
	}
}
