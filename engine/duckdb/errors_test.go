package duckdb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// TestPermissionDenied: a file the configuration forbids reading is
// engine.ErrPermissionDenied, not drift by absence nor an outage. The
// process runs as root in CI, so file modes cannot deny; DuckDB's
// enable_external_access=false is the permission it enforces itself.
func TestPermissionDenied(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	pq := filepath.Join(t.TempDir(), "data.parquet")
	mustExec(t, e, "COPY (SELECT 1::INTEGER AS k) TO "+quoteLit(pq)+" (FORMAT parquet)")
	mustExec(t, e, "SET enable_external_access = false")
	_, err := e.Describe(ctx, []string{pq})
	if !errors.Is(err, engine.ErrPermissionDenied) || errors.Is(err, engine.ErrNotFound) || errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Describe of a forbidden file: %v, want only ErrPermissionDenied", err)
	}
	_, err = e.Query(ctx, "SELECT * FROM read_parquet("+quoteLit(pq)+")", 0)
	if !errors.Is(err, engine.ErrPermissionDenied) {
		t.Fatalf("Query of a forbidden file: %v, want ErrPermissionDenied", err)
	}
}
