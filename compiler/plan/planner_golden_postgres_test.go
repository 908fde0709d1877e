package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestGoldenPostgres is TestGolden for PostgreSQL: it plans every
// testdata/<case>/request.json with dialect.Postgres, compares the SQL with
// expected.postgres.sql (-update rewrites it) and runs the planned SQL and
// the hand-written answer on a real PostgreSQL loaded with shop.sql: their
// rows must match. The answer is answer.postgres.sql where the DuckDB
// answer.sql uses DuckDB-only functions, else answer.sql.
func TestGoldenPostgres(t *testing.T) {
	p := loadShop(t)
	ctx := context.Background()
	eng, err := postgres.Open(ctx, postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ddl, err := os.ReadFile("testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(ctx, string(ddl)); err != nil {
		t.Fatalf("shop.sql on PostgreSQL: %v", err)
	}
	reqs, _ := filepath.Glob("testdata/*/request.json")
	if len(reqs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, req := range reqs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			body, err := os.ReadFile(req)
			if err != nil {
				t.Fatal(err)
			}
			q, probs := plan.ParseQuery(body)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			pl, probs := p.Plan(q, dialect.Postgres)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			golden := filepath.Join(dir, "expected.postgres.sql")
			if *update {
				if err := os.WriteFile(golden, []byte(pl.SQL+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if strings.TrimSpace(string(want)) != pl.SQL {
				t.Errorf("planned SQL differs from %s (-update to accept):\n got: %s\nwant: %s", golden, pl.SQL, want)
			}
			answer, err := os.ReadFile(filepath.Join(dir, "answer.postgres.sql"))
			if os.IsNotExist(err) {
				answer, err = os.ReadFile(filepath.Join(dir, "answer.sql"))
			}
			if err != nil {
				t.Fatal(err)
			}
			got := pgRows(t, eng, pl.SQL)
			exp := pgRows(t, eng, string(answer))
			if len(q.OrderBy) == 0 && q.Limit == nil {
				sortRows(got)
				sortRows(exp)
			}
			if diff := compareRows(got, exp); diff != "" {
				t.Errorf("%s\nSQL: %s\n got: %v\nwant: %v", diff, pl.SQL, got, exp)
			}
		})
	}
	res, err := eng.Query(ctx, `SELECT COUNT(*) FROM shop.orders`, 0)
	if err != nil || res.Rows[0][0] != int64(6) {
		t.Fatalf("shop.orders after injection attempts: %v err=%v", res, err)
	}
}

// pgRows runs q through the engine (as the server would) and normalizes
// the values like queryRows does for DuckDB.
func pgRows(t *testing.T, eng *postgres.Engine, q string) [][]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := eng.Query(ctx, q, 0)
	if err != nil {
		t.Fatalf("%v\nSQL: %s", err, q)
	}
	out := make([][]any, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			out[i][j] = normalize(v)
		}
	}
	return out
}
