package duckdb

import (
	"context"
	"errors"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// TestBoundReachesDuckDB: Bound's settings are DuckDB's own, the same as
// set by hand on another database; the zero value is DefaultMemoryLimit;
// MemoryUsage sees a table's blocks and stays under the limit; after
// Sandbox the configuration is locked, so Bound fails.
func TestBoundReachesDuckDB(t *testing.T) {
	ctx := context.Background()
	setting := func(e *Engine) string {
		var limit, threads string
		if err := e.db.QueryRowContext(ctx, "SELECT current_setting('memory_limit'), current_setting('threads')::VARCHAR").Scan(&limit, &threads); err != nil {
			t.Fatal(err)
		}
		return limit + " / " + threads
	}
	open := func() *Engine {
		e, err := Open("")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	for _, r := range []Resources{{MemoryLimit: "64MiB", Threads: 1}, {}} {
		e, hand := open(), open()
		if err := e.Bound(ctx, r); err != nil {
			t.Fatal(err)
		}
		limit := r.MemoryLimit
		if limit == "" {
			limit = DefaultMemoryLimit
		}
		if err := hand.Exec(ctx, "SET memory_limit = '"+limit+"'"); err != nil {
			t.Fatal(err)
		}
		if r.Threads > 0 {
			if err := hand.Exec(ctx, "SET threads = 1"); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := setting(e), setting(hand); got != want {
			t.Errorf("%+v: %s, want %s", r, got, want)
		}
	}
	e := open()
	if err := e.Bound(ctx, Resources{MemoryLimit: "64MiB"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(ctx, "CREATE TABLE t AS SELECT range AS x, range::VARCHAR AS s FROM range(2000000)"); err != nil {
		t.Fatal(err)
	}
	used, _, err := e.MemoryUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if used <= 0 || used > 64<<20 {
		t.Errorf("memory usage %d bytes, want some and at most 64 MiB", used)
	}
	if err := e.Sandbox(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Bound(ctx, Resources{MemoryLimit: "1GiB"}); err == nil {
		t.Error("Bound after Sandbox succeeded; the configuration should be locked")
	}
	if err := (Resources{MemoryLimit: "1 GiB'; SET x"}).Check(); err == nil {
		t.Error("a size with a quote passed Check")
	}
}

// TestOutOfMemoryClass: a query past the memory limit, with nowhere to
// spill (an in-memory database without a temporary directory), is
// engine.ErrOutOfMemory, which is also ErrUnavailable.
func TestOutOfMemoryClass(t *testing.T) {
	ctx := context.Background()
	e, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Bound(ctx, Resources{MemoryLimit: "2MiB", Threads: 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(ctx, "SET temp_directory = ''"); err != nil {
		t.Fatal(err)
	}
	_, err = e.Query(ctx, "SELECT i, count(*) FROM range(2000000) t(i) GROUP BY i ORDER BY i DESC LIMIT 1", 0)
	if !errors.Is(err, engine.ErrOutOfMemory) || !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("want ErrOutOfMemory, got %v", err)
	}
}
