package ossiectl

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestServeEngineResources: serve and mcp take --engine-memory-limit and
// --engine-threads (a size DuckDB cannot read is a usage error), and
// serve's reach DuckDB: a second handle on the served file in this
// process (one database instance per file) reads the settings.
func TestServeEngineResources(t *testing.T) {
	for _, cmd := range []string{"serve", "mcp"} {
		if code, help, _ := run(t, "", cmd, "--help"); code != 0 || !strings.Contains(help, "--engine-memory-limit") || !strings.Contains(help, "--engine-threads") {
			t.Errorf("%s --help (exit %d) lacks the engine resource flags", cmd, code)
		}
	}
	if code, _, errs := run(t, "", "serve", "--models", "../server/testdata/shop.yaml", "--engine-memory-limit", "lots", "--addr", "127.0.0.1:0"); code != ExitUsage || !strings.Contains(errs, "--engine-memory-limit") {
		t.Errorf("--engine-memory-limit lots: exit %d %s", code, errs)
	}
	db := filepath.Join(t.TempDir(), "shop.duckdb")
	if e, err := duckdb.Open(db); err != nil {
		t.Fatal(err)
	} else {
		e.Close()
	}
	var out, errb bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", "../server/testdata/shop.yaml", "--duckdb", db, "--engine-memory-limit", "200MiB",
			"--engine-threads", "1", "--addr", addr}, strings.NewReader(""), &out, &errb)
	})
	srv.WaitServing(t)
	e, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	var limit string
	var threads int
	if err := e.DB().QueryRow("SELECT current_setting('memory_limit'), current_setting('threads')").Scan(&limit, &threads); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// DuckDB prints 200MiB as "200.0 MiB".
	if limit != "200.0 MiB" || threads != 1 {
		t.Errorf("served DuckDB: memory_limit %q, threads %d; want 200.0 MiB and 1", limit, threads)
	}
	interruptServe(t, srv, &errb)
}
