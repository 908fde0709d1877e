package plan_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestGoldenPostgres is TestGolden for PostgreSQL (see checkGoldens), on a
// real PostgreSQL loaded with shop.sql.
func TestGoldenPostgres(t *testing.T) {
	p := loadShop(t)
	ctx := context.Background()
	eng := openShopPostgres(t)
	checkGoldens(t, p, dialect.Postgres, func(t *testing.T, q string) [][]any { return pgRows(t, eng, q) })
	res, err := eng.Query(ctx, `SELECT COUNT(*) FROM shop.orders`, 0)
	if err != nil || res.Rows[0][0] != int64(6) {
		t.Fatalf("shop.orders after injection attempts: %v err=%v", res, err)
	}
}

// openShopPostgres opens a new database of the shared test PostgreSQL
// loaded with testdata/shop.sql; it closes when the test ends.
func openShopPostgres(t *testing.T) *postgres.Engine {
	t.Helper()
	ctx := context.Background()
	eng := openPostgres(t)
	ddl, err := os.ReadFile("testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(ctx, string(ddl)); err != nil {
		t.Fatalf("shop.sql on PostgreSQL: %v", err)
	}
	return eng
}

// openPostgres opens a new, empty database of the shared test
// PostgreSQL; it closes when the test ends.
func openPostgres(t *testing.T) *postgres.Engine {
	t.Helper()
	eng, err := postgres.Open(context.Background(), postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
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
