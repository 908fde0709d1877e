package bindcheck_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/bindcheck"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// model reads events: a primary key that is a column but not a field
// (event_key, missing in the table), a unique key column that exists
// (ext_id), a metric over a column that is no field (qty, missing), and
// four timestamp fields, two declared against the stored kind.
const model = `
version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: events
        source: events
        primary_key: [event_key]
        unique_keys: [[ext_id]]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: naive_as_tz, datatype: DateTimeTz, expression: {dialects: [{dialect: ANSI_SQL, expression: at_naive}]}}
          - {name: tz_as_naive, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at_tz}]}}
          - {name: naive_ok, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at_naive}]}}
          - {name: tz_ok, datatype: DateTimeTz, expression: {dialects: [{dialect: ANSI_SQL, expression: at_tz}]}}
    metrics:
      - {name: units, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(events.qty)"}]}}
      - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(events.amount)"}]}}
`

const table = `CREATE TABLE events (id INTEGER, ext_id INTEGER, at_naive TIMESTAMP, at_tz TIMESTAMPTZ, amount INTEGER)`

func compile(t *testing.T) []*compiler.Artifact {
	t.Helper()
	arts, probs := compiler.Load([]byte(model), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	// Both metric columns are read with a warning; amount has no field either.
	if n := countCode(probs, compiler.CodeMetricColumn); n != 2 {
		t.Fatalf("want 2 OSS2021 warnings, got %v", probs)
	}
	return arts
}

func countCode(ps compiler.Problems, code string) int {
	n := 0
	for _, p := range ps {
		if p.Code == code {
			n++
		}
	}
	return n
}

func check(t *testing.T, eng engine.Engine) {
	t.Helper()
	arts := compile(t)
	res := bindcheck.Check(context.Background(), eng, arts, 10*time.Second)
	if res.Unavailable != nil {
		t.Fatal(res.Unavailable)
	}
	if len(res.Bindings) != 1 || !slices.Equal(res.Bindings[0].Missing, []string{"events.qty", "events.event_key"}) {
		t.Errorf("bindings %+v: want events.qty (metric column) and events.event_key (key column) missing", res.Bindings)
	}
	if len(res.Mismatched) != 2 || !strings.Contains(res.Mismatched[0], "events.naive_as_tz is declared DateTimeTz") ||
		!strings.Contains(res.Mismatched[1], "events.tz_as_naive is declared DateTime (naive)") {
		t.Errorf("mismatched: %q", res.Mismatched)
	}
	if !res.Drift() || countCode(res.Problems, compiler.CodeEngine) != 2 || countCode(res.Problems, compiler.CodeBindingType) != 2 {
		t.Errorf("problems: %v", res.Problems)
	}
	for _, p := range res.Problems {
		if p.Code == compiler.CodeBindingType && !strings.HasPrefix(p.Path, "semantic_model[0].datasets[0].fields[") {
			t.Errorf("path %q", p.Path)
		}
	}
	// Once the table has the columns, the same model binds cleanly except
	// for the two declared time zone kinds.
	if err := eng.Exec(context.Background(), "ALTER TABLE events ADD COLUMN event_key INTEGER"); err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(context.Background(), "ALTER TABLE events ADD COLUMN qty INTEGER"); err != nil {
		t.Fatal(err)
	}
	res = bindcheck.Check(context.Background(), eng, arts, 10*time.Second)
	if len(res.Missing) != 0 || len(res.Mismatched) != 2 {
		t.Errorf("after adding the columns: missing %q mismatched %q", res.Missing, res.Mismatched)
	}
	// A missing table is drift too, reported once per dataset.
	if err := eng.Exec(context.Background(), "DROP TABLE events"); err != nil {
		t.Fatal(err)
	}
	res = bindcheck.Check(context.Background(), eng, arts, 10*time.Second)
	if len(res.Missing) != 1 || !strings.Contains(res.Missing[0], "events does not exist") {
		t.Errorf("dropped table: %q (%v)", res.Missing, res.Unavailable)
	}
}

func TestBindDuckDB(t *testing.T) {
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(context.Background(), table); err != nil {
		t.Fatal(err)
	}
	check(t, eng)
}

func TestBindPostgres(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	eng, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(context.Background(), table); err != nil {
		t.Fatal(err)
	}
	check(t, eng)
}
