package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/operator"
)

func TestFlags(t *testing.T) {
	c, err := parseFlags([]string{"--namespaces", " a, b ,", "--default-schema", "public", "--resync", "1m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.namespaceList(), "|"); got != "a|b" {
		t.Errorf("namespaces %q", got)
	}
	if c.engine != "duckdb" || c.leaderElectionID != operator.DefaultLeaderElectionID || c.opts.MaxArtifactBytes != 900<<10 ||
		c.resync != time.Minute || c.opts.Compile.DefaultSchema != "public" ||
		c.metricsAddr != "127.0.0.1:8082" || c.probeAddr != "127.0.0.1:8081" || c.verbose {
		t.Errorf("defaults: %+v", c)
	}
	// The chart's spelling (--flag=value, -v) and the standard library's
	// (-flag value, --v) both parse.
	for _, args := range [][]string{
		{"--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "-v"},
		{"-metrics-bind-address", ":8080", "-health-probe-bind-address=:8081", "--v"},
	} {
		c, err := parseFlags(args)
		if err != nil || c.metricsAddr != ":8080" || c.probeAddr != ":8081" || !c.verbose {
			t.Errorf("%q: %v %+v", args, err, c)
		}
	}
	for _, bad := range [][]string{
		{"--engine", "oracle"},
		{"--engine", "postgres"},
		{"--engine", "trino"},
		{"--engine", "trino", "--dsn-env", "A", "--password-file", "p"},
		{"--dsn-env", "A", "--dsn-file", "b"},
		{"--dsn", "postgres://u:p@h/db"}, // no flag takes a DSN with its password
		{"extra"},
	} {
		_, err := parseFlags(bad)
		if err == nil {
			t.Errorf("%v accepted", bad)
		} else if !strings.HasPrefix(err.Error(), "operator: ") || !strings.HasSuffix(err.Error(), "Run 'operator --help' for usage and examples.") {
			t.Errorf("%v: not one reason and the hint: %q", bad, err)
		}
	}
}

// openFromFlags opens the engine the command line args configure; it is
// closed when the test ends.
func openFromFlags(t *testing.T, args ...string) engine.Engine {
	t.Helper()
	c, err := parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := openEngine(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

func TestOpenDuckDBFromFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.duckdb")
	dsnFile := filepath.Join(dir, "dsn")
	if err := os.WriteFile(dsnFile, []byte(db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eng := openFromFlags(t, "--dsn-file", dsnFile)
	if _, ok := eng.(*duckdb.Engine); !ok {
		t.Fatalf("engine %T", eng)
	}
	if err := eng.Exec(context.Background(), "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("the DSN file's path was not used: %v", err)
	}
}
