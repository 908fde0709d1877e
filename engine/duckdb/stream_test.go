package duckdb

import (
	"context"
	"errors"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The engine.Stream contract on DuckDB, over more rows than one DuckDB
// vector (2,048) so stopping happens mid-result.
func TestStream(t *testing.T) {
	enginetest.Stream(t, openMem(t), "SELECT range AS n FROM range(1, 10001) ORDER BY n", 10000)
}

// A cached prepared statement follows the catalog: after the table is
// replaced (other columns, other types) and after it is dropped, the same
// SQL text answers from the new table or fails as drift.
func TestPreparedStatementsFollowTheCatalog(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const q = `SELECT * FROM t ORDER BY 1`
	if err := e.Exec(ctx, `CREATE TABLE t AS SELECT 1 AS a`); err != nil {
		t.Fatal(err)
	}
	res, err := e.Query(ctx, q, 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(1) {
		t.Fatalf("first: %v %v", res, err)
	}
	if err := e.Exec(ctx, `CREATE OR REPLACE TABLE t AS SELECT 'x' AS b, 2.5 AS c UNION ALL SELECT 'y', 3.5`); err != nil {
		t.Fatal(err)
	}
	res, err = e.Query(ctx, q, 0)
	if err != nil || len(res.Columns) != 2 || res.Columns[0].Name != "b" || len(res.Rows) != 2 || res.Rows[1][0] != "y" {
		t.Fatalf("after replace: %+v %v", res, err)
	}
	if err := e.Exec(ctx, `DROP TABLE t`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(ctx, q, 0); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("after drop: %v, want ErrNotFound", err)
	}
}
