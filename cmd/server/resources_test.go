package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestEngineResourcesReachDuckDB starts the server on a DuckDB file with
// --engine-memory-limit and --engine-threads and reads DuckDB's own
// settings through a second handle on the same file in this process
// (the driver shares one database instance per file, and settings are
// the instance's), beside the same settings applied by hand to a
// private database: the flags reach the engine the server queries.
// /metrics reports what its buffer manager holds.
func TestEngineResourcesReachDuckDB(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shop.duckdb")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return runTo(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--duckdb", db, "--create-duckdb",
			"--engine-memory-limit", "300MiB", "--engine-threads", "1", "--addr", addr}, io.Discard, io.Discard)
	})
	srv.WaitServing(t)
	served := settings(t, db)
	hand, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer hand.Close()
	for _, s := range []string{"SET memory_limit = '300MiB'", "SET threads = 1"} {
		if err := hand.Exec(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if want := settingsOf(t, hand); served != want {
		t.Errorf("the served DuckDB has %q, want %q", served, want)
	}
	if _, body := srv.Call("GET", "/metrics", "", ""); !strings.Contains(body, "\nossie_engine_memory_bytes ") {
		t.Errorf("/metrics has no ossie_engine_memory_bytes:\n%.2000s", body)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d", code)
	}

	// Without the flags: duckdb.DefaultMemoryLimit.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	db2 := filepath.Join(t.TempDir(), "default.duckdb")
	srv = servertest.Start(t, func(addr string) int {
		return runTo(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--duckdb", db2, "--create-duckdb", "--addr", addr}, io.Discard, io.Discard)
	})
	srv.WaitServing(t)
	if err := hand.Exec(context.Background(), "SET memory_limit = '"+duckdb.DefaultMemoryLimit+"'"); err != nil {
		t.Fatal(err)
	}
	served, want := settings(t, db2), settingsOf(t, hand)
	if strings.Split(served, " threads ")[0] != strings.Split(want, " threads ")[0] {
		t.Errorf("default: the served DuckDB has %q, want the memory limit of %q", served, want)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// settings are memory_limit and threads of the DuckDB instance of file.
func settings(t *testing.T, file string) string {
	t.Helper()
	e, err := duckdb.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return settingsOf(t, e)
}

func settingsOf(t *testing.T, e *duckdb.Engine) string {
	t.Helper()
	var limit, threads string
	if err := e.DB().QueryRow("SELECT current_setting('memory_limit'), current_setting('threads')::VARCHAR").Scan(&limit, &threads); err != nil {
		t.Fatal(err)
	}
	return "memory_limit " + limit + " threads " + threads
}
