// The same semantic cases on a real PostgreSQL server (started by
// test/pgtest): each case gets a fresh database loaded with its tables.sql,
// the case model is planned with dialect.Postgres, and the answer read
// through engine/postgres (as the server reads it) must equal the
// hand-checked rows. Each query's check proves the expected rows on this
// engine too: check_sql_postgres where the case gives one, else check_sql,
// which is then already valid PostgreSQL.
//
// tables.sql runs unchanged: the case files use only INTEGER, VARCHAR,
// DECIMAL, DATE, quoted identifiers and standard literals, which
// PostgreSQL reads the same way (standard_conforming_strings keeps 'C:\temp'
// literal).
package cases_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// afterCasePostgres holds extra assertions run on a case's PostgreSQL
// database after all its queries, keyed by case id.
var afterCasePostgres = map[string]func(t *testing.T, e *postgres.Engine, c *casefile.Case, planner *plan.Planner){
	// BC-15: the injection-looking filter values must not have changed the
	// statement or the data.
	"BC-15": func(t *testing.T, e *postgres.Engine, _ *casefile.Case, _ *plan.Planner) {
		got, err := e.Query(context.Background(), `SELECT COUNT(*) FROM orders`, 0)
		if err != nil || len(got.Rows) != 1 || !casefile.ValueEqual(6, got.Rows[0][0], 0) {
			t.Fatalf("BC-15: orders should still hold 6 rows after the filter queries (%v, %v)", got, err)
		}
	},
	// BC-16: DuckDB folds even quoted names to one case, so only a
	// case-sensitive engine shows whether the planner keeps "Order Facts"
	// and "Invoice Date" exactly. Decoys that differ only in case, with
	// other values, are added; every query must still give its answer.
	"BC-16": func(t *testing.T, e *postgres.Engine, c *casefile.Case, planner *plan.Planner) {
		err := e.Exec(context.Background(), `
			CREATE TABLE "order facts" AS SELECT "order", "group", "Invoice Date", amount * 100 AS amount FROM "Order Facts";
			CREATE TABLE "ORDER FACTS" AS SELECT "order", 'decoy' AS "group", "Invoice Date", amount FROM "Order Facts";
			ALTER TABLE "Order Facts" ADD COLUMN "invoice date" DATE;
			UPDATE "Order Facts" SET "invoice date" = "Invoice Date" + 400`)
		if err != nil {
			t.Fatalf("BC-16: creating case-only decoys: %v", err)
		}
		for _, q := range c.Queries {
			t.Run(q.Name+"_with_case_decoys", func(t *testing.T) {
				runPlannedPostgres(t, e, c, q, planner, nil)
			})
		}
	},
}

// TestCasesPostgres runs every case as subtests
// <case>/<query>/{check_sql,planned} on PostgreSQL.
func TestCasesPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Logf("PostgreSQL start: %s", srv.StartDuration)
	for _, id := range caseIDs {
		t.Run(id, func(t *testing.T) {
			begin := time.Now()
			c, err := casefile.Load(filepath.Join(".", id))
			if err != nil {
				t.Fatal(err)
			}
			runCasePostgres(t, srv, c)
			t.Logf("%s on PostgreSQL: %s (%d queries)", id, time.Since(begin).Round(time.Millisecond), len(c.Queries))
		})
	}
}

func runCasePostgres(t *testing.T, srv *pgtest.Server, c *casefile.Case) {
	ctx := context.Background()
	e, err := postgres.Open(ctx, postgres.Config{DSN: srv.NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Exec(ctx, c.TablesSQL); err != nil {
		t.Fatalf("%s: loading tables.sql on PostgreSQL: %v", c.ID, err)
	}
	planner, loadErr := newPlanner(c)
	for _, q := range c.Queries {
		t.Run(q.Name, func(t *testing.T) {
			check := q.CheckSQL
			if q.CheckSQLPostgres != "" {
				check = q.CheckSQLPostgres
			}
			t.Run("check_sql", func(t *testing.T) {
				got, err := e.Query(ctx, check, 0)
				if err != nil {
					t.Fatalf("%s %s: check SQL failed on PostgreSQL (add check_sql_postgres if it is DuckDB-only): %v\n%s", c.ID, q.Name, err, check)
				}
				if ok, why := casefile.Match(q.Expected.Rows, got.Rows, q.Ordered, q.Tolerance); !ok {
					t.Fatalf("%s %s: check SQL disagrees with the expected rows on PostgreSQL: %s\ngot:\n%swant:\n%s", c.ID, q.Name, why, casefile.FormatRows(got.Rows), casefile.FormatRows(q.Expected.Rows))
				}
			})
			t.Run("planned", func(t *testing.T) {
				if loadErr != nil {
					t.Fatalf("%s: %v", c.ID, loadErr)
				}
				// Typical wrong answers name the mistake when the planned
				// answer is wrong; several are DuckDB-only SQL, so they are
				// used only where PostgreSQL runs them.
				wrong := map[string][][]any{}
				for _, w := range q.Wrong {
					if res, err := e.Query(ctx, w.SQL, 0); err == nil {
						wrong[w.Label] = res.Rows
					}
				}
				runPlannedPostgres(t, e, c, q, planner, wrong)
			})
		})
	}
	if f := afterCasePostgres[c.ID]; f != nil && loadErr == nil {
		t.Run("after", func(t *testing.T) { f(t, e, c, planner) })
	}
}

func runPlannedPostgres(t *testing.T, e *postgres.Engine, c *casefile.Case, q casefile.Query, planner *plan.Planner, wrongRows map[string][][]any) {
	pq, probs := plan.ParseQuery(q.JSON)
	if probs.HasErrors() {
		t.Fatalf("%s %s: query %s does not parse:\n%s", c.ID, q.Name, q.JSON, problemsText(probs))
	}
	p, probs := planner.PlanFor(pq, dialect.Postgres, caseCaller(q))
	if probs.HasErrors() {
		t.Fatalf("%s %s: planning %s for PostgreSQL failed:\n%s", c.ID, q.Name, q.JSON, problemsText(probs))
	}
	t.Logf("%s %s planned SQL (postgres):\n%s", c.ID, q.Name, p.SQL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := e.Query(ctx, p.SQL, 0)
	if err != nil {
		t.Fatalf("%s %s: planned SQL failed on PostgreSQL: %v\nquery: %s\nSQL:\n%s", c.ID, q.Name, err, q.JSON, p.SQL)
	}
	names := make([]string, len(res.Columns))
	for i, col := range res.Columns {
		names[i] = col.Name
	}
	cols := make([]string, len(p.Columns))
	for i, col := range p.Columns {
		cols[i] = col.Name
	}
	if len(cols) == 0 {
		cols = names
	}
	if !slices.Equal(cols, names) {
		t.Fatalf("%s %s: plan declares columns %v but PostgreSQL returns %v\nSQL:\n%s", c.ID, q.Name, cols, names, p.SQL)
	}
	got, err := casefile.Reorder(res.Rows, cols, q.Expected.Columns)
	if err != nil {
		t.Fatalf("%s %s: %v\nSQL:\n%s", c.ID, q.Name, err, p.SQL)
	}
	ok, why := casefile.Match(q.Expected.Rows, got, q.Ordered, q.Tolerance)
	if ok {
		return
	}
	t.Fatal(wrongAnswer(c, q, "PostgreSQL", p.SQL, why, got, wrongRows))
}
