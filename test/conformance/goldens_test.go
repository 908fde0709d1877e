package conformance_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// planGoldens is the planner's golden directory: testdata/<case>/ holds
// expected.trino.sql (the SQL the planner must emit for Trino, pinned by
// compiler/plan) and answer.sql (hand-written, run on DuckDB) over the
// shop tables of shop.sql.
var planGoldens = filepath.Join("..", "..", "compiler", "plan", "testdata")

// TestPlanGoldensOnTrino runs every expected.trino.sql on the real Trino,
// over the shop tables copied from DuckDB into the schema memory.shop, and
// compares the rows with answer.sql on DuckDB: the pinned Trino text is
// not only well-formed but answers the question.
func TestPlanGoldensOnTrino(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join(planGoldens, "*", "expected.trino.sql"))
	if len(goldens) == 0 {
		t.Fatalf("no expected.trino.sql under %s", planGoldens)
	}
	ctx := context.Background()
	duck, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	ddl, err := os.ReadFile(filepath.Join(planGoldens, "shop.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execScript(target{duckName, duck}, string(ddl)); err != nil {
		t.Fatal(err)
	}
	// The goldens name shop.<table>: the schema must be called shop.
	srv := trinoserver.Shared(t)
	if err := srv.Exec(ctx, `CREATE SCHEMA memory.shop`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Exec(ctx, `DROP SCHEMA IF EXISTS memory.shop CASCADE`) })
	tr, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.AdminUser, "memory", "shop"), RetryTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	copyTablesToTrino(t, duck, "shop", target{trinoName, tr})

	for _, golden := range goldens {
		dir := filepath.Dir(golden)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sql, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			answer, err := os.ReadFile(filepath.Join(dir, "answer.sql"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tr.Query(ctx, string(sql), 0)
			if err != nil {
				t.Fatalf("Trino refused %s: %v\nSQL:\n%s", golden, err, sql)
			}
			counts.add("planner goldens", trinoName)
			want, err := duck.Query(ctx, string(answer), 0)
			if err != nil {
				t.Fatalf("answer.sql on DuckDB: %v", err)
			}
			// As compiler/plan's checkGoldens: rows compare in order only
			// when the request orders or limits them.
			body, err := os.ReadFile(filepath.Join(dir, "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			q, probs := plan.ParseQuery(body)
			if probs.HasErrors() {
				t.Fatal(problemsText(probs))
			}
			ordered := len(q.OrderBy) > 0 || q.Limit != nil
			if ok, why := casefile.Match(want.Rows, got.Rows, ordered, Tolerance); !ok {
				t.Errorf("%s on Trino disagrees with answer.sql on DuckDB: %s\nTrino:\n%sDuckDB:\n%sSQL:\n%s",
					golden, why, casefile.FormatRows(got.Rows), casefile.FormatRows(want.Rows), sql)
			}
		})
	}
}
