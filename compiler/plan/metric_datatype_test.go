package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// sumsModel has metrics without datatype over a BIGINT column whose field
// declares none either: its type comes from the engine at bind
// (compiler.WithEngineTypes), as the server and ossiectl do.
const sumsModel = `version: "0.2.0.dev0"
semantic_model:
  - name: sums
    datasets:
      - name: fact
        source: t.fact
        primary_key: [id]
        fields:
          - name: id
            expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}
          - name: cat
            expression: {dialects: [{dialect: ANSI_SQL, expression: cat}]}
          - name: amount
            expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}
          - name: price
            expression: {dialects: [{dialect: ANSI_SQL, expression: price}]}
    metrics:
      - name: amount_sum
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(fact.amount)}]}
      - name: amount_w
        expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(CASE WHEN fact.cat = 'abc' THEN fact.amount END)"}]}
      - name: row_count
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(*)}]}
      - name: amount_less_rows
        expression: {dialects: [{dialect: ANSI_SQL, expression: amount_sum - row_count}]}
      - name: amount_per_row
        expression: {dialects: [{dialect: ANSI_SQL, expression: amount_sum / row_count}]}
      - name: price_sum
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(fact.price)}]}
      - name: amount_avg
        expression: {dialects: [{dialect: ANSI_SQL, expression: AVG(fact.amount)}]}
      - name: amount_declared
        datatype: Integer
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(fact.amount) * 2}]}
`

// sumsPlanner plans sumsModel with the fields typed as the engine would
// type BIGINT and DOUBLE columns.
func sumsPlanner(t *testing.T) *plan.Planner {
	t.Helper()
	arts, probs := compiler.Load([]byte(sumsModel), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	art := compiler.WithEngineTypes(arts[0], compiler.FieldTypes{"fact": {
		"id": ossie.TypeInteger, "cat": ossie.TypeString, "amount": ossie.TypeInteger, "price": ossie.TypeFloat}})
	p, err := plan.New(art)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var sumsMetrics = []string{"amount_sum", "amount_w", "row_count", "amount_less_rows", "amount_per_row", "price_sum", "amount_avg", "amount_declared"}

// TestMetricAnswerTypes: a metric without datatype answers the type of
// its expression (docs/query-semantics.md, "Answer types"); AVG's is the
// engine's.
func TestMetricAnswerTypes(t *testing.T) {
	p := sumsPlanner(t)
	pl, probs := p.Plan(&plan.Query{Metrics: sumsMetrics}, dialect.Postgres)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	want := []string{"Integer", "Integer", "Integer", "Integer", "Float", "Float", "", "Integer"}
	for i, c := range pl.Columns {
		if c.Datatype != want[i] {
			t.Errorf("%s: datatype %q, want %q", c.Name, c.Datatype, want[i])
		}
	}
}

const sumsDDL = `CREATE SCHEMA t;
CREATE TABLE t.fact (id BIGINT, cat VARCHAR(8), amount BIGINT, price DOUBLE PRECISION);
INSERT INTO t.fact VALUES (1, 'abc', 40, 1.5), (2, 'abc', 3, 0.25), (3, 'x', NULL, NULL)`

// TestIntegerMetricsAreBigint: on PostgreSQL (SUM(bigint) is NUMERIC) and
// DuckDB (HUGEINT) an Integer metric comes back as a BIGINT column, the
// type Trino gives it, so every entry point reports Integer; a sum past
// int64 fails the statement on every engine instead of answering a value
// that is no 64-bit integer.
func TestIntegerMetricsAreBigint(t *testing.T) {
	ctx := context.Background()
	pg := openPostgres(t)
	duck, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = duck.Close() })
	p := sumsPlanner(t)
	for _, tc := range []struct {
		d   dialect.Dialect
		eng interface {
			Exec(context.Context, string) error
			Query(context.Context, string, int) (*engine.Result, error)
		}
	}{{dialect.Postgres, pg}, {dialect.DuckDB, duck}} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			ddl := sumsDDL
			if tc.d == dialect.DuckDB {
				ddl = strings.ReplaceAll(ddl, "DOUBLE PRECISION", "DOUBLE")
			}
			for _, s := range strings.Split(ddl, ";") {
				if err := tc.eng.Exec(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			pl, probs := p.Plan(&plan.Query{Metrics: sumsMetrics}, tc.d)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			res, err := tc.eng.Query(ctx, pl.SQL, 0)
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, pl.SQL)
			}
			wantRow := []any{int64(43), int64(43), int64(3), int64(40), 43.0 / 3, 1.75, 21.5, int64(86)}
			for i, c := range pl.Columns {
				if c.Datatype == "Integer" && engine.Datatype(res.Columns[i].Type) != ossie.TypeInteger {
					t.Errorf("%s: engine type %s, want an integer type", c.Name, res.Columns[i].Type)
				}
				if got := res.Rows[0][i]; got != wantRow[i] {
					t.Errorf("%s = %v (%T), want %v", c.Name, got, got, wantRow[i])
				}
			}
			if err := tc.eng.Exec(ctx, `INSERT INTO t.fact VALUES (4, 'abc', 9223372036854775807, 0)`); err != nil {
				t.Fatal(err)
			}
			pl, _ = p.Plan(&plan.Query{Metrics: []string{"amount_sum"}}, tc.d)
			res, err = tc.eng.Query(ctx, pl.SQL, 0)
			switch {
			case err == nil:
				t.Errorf("a sum past int64 answered %v, want the statement to fail", res.Rows)
			case errors.Is(err, engine.ErrInvalidInput):
				// The server would blame a filter value (OSS4005).
				t.Errorf("a sum past int64 is classed as a bad input value: %v", err)
			}
		})
	}
}
