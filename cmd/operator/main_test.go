package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/bindcheck"
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
	c, err = parseFlags([]string{"--engine", "postgres", "--dsn-env", "A", "--view-grant", "analyst=bi_na", "--view-grant", " partner = bi_p ", "--view-grant", "analyst=bi_na2", "--view-grant", "analyst=bi_na"})
	if err != nil || fmt.Sprint(c.opts.ViewGrants) != "map[analyst:[bi_na bi_na2] partner:[bi_p]]" {
		t.Errorf("--view-grant: %v %v", err, c)
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
		{"--view-grant", "analyst=bi_na"},                                     // DuckDB has no logins
		{"--engine", "postgres", "--dsn-env", "A", "--view-grant", "analyst"}, // no login
		{"--engine", "postgres", "--dsn-env", "A", "--view-grant", "=bi_na"},
		{"--engine", "postgres", "--dsn-env", "A", "--allow-read", "/data"}, // a networked engine reads what its login may
		{"--engine-memory-limit", "lots"},
		{"--engine-threads", "-1"},
		{"--engine", "postgres", "--dsn-env", "A", "--engine-memory-limit", "1GiB"}, // PostgreSQL's memory is its own configuration
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

// --engine-memory-limit and --engine-threads reach the operator's DuckDB,
// as they reach the server's.
func TestOperatorDuckDBResources(t *testing.T) {
	eng := openFromFlags(t, "--engine-memory-limit", "300MiB", "--engine-threads", "1")
	res, err := eng.Query(context.Background(), "SELECT current_setting('memory_limit'), current_setting('threads')", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows[0]); got != "[300.0 MiB 1]" {
		t.Errorf("memory_limit, threads = %s, want 300 MiB and 1", got)
	}
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

// TestOperatorDuckDBSandboxed reproduces issue 13 finding 3 on the
// operator's engine: a SemanticModel author's query sources call
// read_csv() and read_text() on files of the operator's host (in a
// cluster: its mounted Secrets). The DuckDB the operator opens from its
// flags refuses both, so binding reports them unreadable instead of
// describing them (a read_csv header would otherwise reach status as
// column names), and no view over them can be created; tables of the
// database and the files --allow-read names still bind. Issue 25 item 3:
// a model's glob source (`/*.csv`, or the data glob itself) no longer
// widens the sandbox, so neither it nor a tokens file beside the allowed
// data is read.
func TestOperatorDuckDBSandboxed(t *testing.T) {
	dir := t.TempDir()
	const secret = "operator_secret_0123456789"
	host := filepath.Join(dir, "host.csv")
	tokens := filepath.Join(dir, "data", "tokens.yaml")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{host: secret + "\n1\n", tokens: "tokens: [" + secret + "]\n", filepath.Join(dir, "data", "a.csv"): "x\n1\n"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dsnFile := filepath.Join(dir, "dsn")
	if err := os.WriteFile(dsnFile, []byte(filepath.Join(dir, "x.duckdb")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eng := openFromFlags(t, "--dsn-file", dsnFile, "--allow-read", filepath.Join(dir, "data", "*.csv"))
	ctx := context.Background()
	if err := eng.Exec(ctx, "CREATE TABLE orders (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load([]byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: orders
        source: orders
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}, datatype: Integer}
      - name: csv_leak
        source: "SELECT * FROM read_csv('`+host+`')"
        fields:
          - {name: account, expression: {dialects: [{dialect: ANSI_SQL, expression: account}]}, datatype: String}
      - name: text_leak
        source: "SELECT content FROM read_text('`+dsnFile+`')"
        fields:
          - {name: content, expression: {dialects: [{dialect: ANSI_SQL, expression: content}]}, datatype: String}
      - name: data
        source: `+filepath.Join(dir, "data", "*.csv")+`
        fields:
          - {name: x, expression: {dialects: [{dialect: ANSI_SQL, expression: x}]}, datatype: Integer}
      - name: root_glob
        source: /*.csv
        fields:
          - {name: x, expression: {dialects: [{dialect: ANSI_SQL, expression: x}]}, datatype: Integer}
      - name: beside_data
        source: "SELECT content FROM read_text('`+tokens+`')"
        fields:
          - {name: content, expression: {dialects: [{dialect: ANSI_SQL, expression: content}]}, datatype: String}
    metrics:
      - {name: n, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(orders.id)}]}}
`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	res := bindcheck.Check(ctx, eng, arts, 10*time.Second)
	if res.Unavailable != nil {
		t.Fatal(res.Unavailable)
	}
	if len(res.Denied) != 4 || !strings.Contains(res.Denied[0], "outside the engine's sandbox") || strings.Contains(fmt.Sprint(res.Denied, res.Missing, res.Bindings), secret) {
		t.Errorf("host files not refused: denied %q, missing %q, bindings %+v", res.Denied, res.Missing, res.Bindings)
	}
	bound := 0
	for _, b := range res.Bindings {
		if (b.Dataset == "orders" || b.Dataset == "data") && b.Columns == 1 && len(b.Missing) == 0 {
			bound++
		}
	}
	if bound != 2 {
		t.Errorf("the table and the allowed files did not both bind: %+v", res.Bindings)
	}
	err := eng.Exec(ctx, "CREATE VIEW leak AS SELECT * FROM read_csv("+dialect.DuckDB.QuoteString(host)+")")
	if !errors.Is(err, engine.ErrSandboxed) {
		t.Errorf("a view over a host file: %v, want engine.ErrSandboxed", err)
	}
}
