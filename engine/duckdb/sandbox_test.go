package duckdb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// sandboxDir writes the files of a sandbox test under a temporary
// directory and returns a function giving a file's path.
func sandboxDir(t *testing.T, files map[string]string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) string { return filepath.Join(dir, name) }
}

func sandboxed(t *testing.T, allow []string) *duckdb.Engine {
	t.Helper()
	e, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Exec(context.Background(), "CREATE TABLE loaded AS SELECT 42 AS v"); err != nil {
		t.Fatal(err)
	}
	if err := e.Sandbox(context.Background(), allow); err != nil {
		t.Fatal(err)
	}
	return e
}

// wantSum runs q and checks its one value.
func wantSum(t *testing.T, e *duckdb.Engine, q string, want int64) {
	t.Helper()
	res, err := e.Query(context.Background(), q, 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != want && res.Rows[0][0] != float64(want) {
		t.Errorf("%s: %+v, %v; want %d", q, res, err, want)
	}
}

// wantRefused checks that q fails as outside the sandbox.
func wantRefused(t *testing.T, e *duckdb.Engine, q string) {
	t.Helper()
	if _, err := e.Query(context.Background(), q, 0); !errors.Is(err, engine.ErrSandboxed) {
		t.Errorf("%s: %v; want refused by the sandbox", q, err)
	}
}

// TestSandbox: after Sandbox, the allowed file, the files an allowed glob
// matches and a table loaded before are read; every other file (by
// read_text, read_csv, glob, COPY, ATTACH) is engine.ErrSandboxed, and no
// statement can lift the limit.
func TestSandbox(t *testing.T) {
	p := sandboxDir(t, map[string]string{"one.csv": "x\n1\n", "parts/a.csv": "x\n2\n", "parts/b.csv": "x\n3\n", "secret.txt": "s3cret\n"})
	e := sandboxed(t, []string{p("one.csv"), p("parts/*.csv")})
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("one.csv")+"')", 1)
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("parts/*.csv")+"')", 5)
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("parts/a.csv")+"')", 2)
	wantSum(t, e, "SELECT sum(v) FROM loaded", 42)
	for _, q := range []string{
		"SELECT content FROM read_text('" + p("secret.txt") + "')",
		"SELECT * FROM read_csv('" + p("secret.txt") + "')",
		"SELECT * FROM glob('" + p("*") + "')",
		"SELECT content FROM read_text('" + p("parts/../secret.txt") + "')",
		"COPY (SELECT 1) TO '" + p("out.csv") + "'",
		"ATTACH '" + p("other.duckdb") + "'",
	} {
		wantRefused(t, e, q)
	}
	for _, q := range []string{"SET enable_external_access = true", "RESET lock_configuration", "SET allowed_directories = ['/']"} {
		if err := e.Exec(context.Background(), q); err == nil {
			t.Errorf("%s succeeded after the lock", q)
		}
	}
}

// TestSandboxGlobAllowsOnlyItsFiles: an allowed glob lets through the
// files it matches and nothing else of their directory — not a tokens
// file beside the data, not another pattern over the same directory, not
// a file matching the glob that appears after Sandbox (issue: a glob used
// to allow the whole directory before its first wildcard, so `/*.csv`
// allowed `/`).
func TestSandboxGlobAllowsOnlyItsFiles(t *testing.T) {
	p := sandboxDir(t, map[string]string{"data/a.csv": "x\n2\n", "data/b.csv": "x\n3\n", "data/tokens.yaml": "tokens:\n- s3cret\n"})
	e := sandboxed(t, []string{p("data/*.csv")})
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("data/*.csv")+"')", 5)
	wantRefused(t, e, "SELECT content FROM read_text('"+p("data/tokens.yaml")+"')")
	wantRefused(t, e, "SELECT content FROM read_text('"+p("data/*")+"')")
	wantRefused(t, e, "SELECT * FROM glob('"+p("data/*")+"')")
	if err := os.WriteFile(p("data/c.csv"), []byte("x\n100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, e, "SELECT sum(x) FROM read_csv('"+p("data/*.csv")+"')")
	wantRefused(t, e, "SELECT sum(x) FROM read_csv('"+p("data/c.csv")+"')")
}

// TestSandboxDirectory: an allowed directory lets through every file
// below it and nothing beside it.
func TestSandboxDirectory(t *testing.T) {
	p := sandboxDir(t, map[string]string{"data/a.csv": "x\n2\n", "data/sub/b.csv": "x\n3\n", "secret.csv": "x\n9\n"})
	e := sandboxed(t, []string{p("data")})
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("data/sub/b.csv")+"')", 3)
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("data/*.csv")+"')", 2)
	wantRefused(t, e, "SELECT sum(x) FROM read_csv('"+p("secret.csv")+"')")
	wantRefused(t, e, "SELECT sum(x) FROM read_csv('"+p("data/../secret.csv")+"')")
}

// TestSandboxNothingAllowed: with no entries only the database is read.
func TestSandboxNothingAllowed(t *testing.T) {
	p := sandboxDir(t, map[string]string{"a.csv": "x\n2\n"})
	e := sandboxed(t, nil)
	wantSum(t, e, "SELECT sum(v) FROM loaded", 42)
	wantRefused(t, e, "SELECT sum(x) FROM read_csv('"+p("a.csv")+"')")
	wantRefused(t, e, "SELECT content FROM read_text('/etc/passwd')")
}

// TestSandboxRefusesEntries: remote files, recursive globs and globs that
// match nothing are refused before anything is set.
func TestSandboxRefusesEntries(t *testing.T) {
	p := sandboxDir(t, map[string]string{"a.csv": "x\n1\n"})
	for _, a := range []string{"s3://bucket/x.parquet", p("**/*.csv"), p("*.parquet")} {
		e, err := duckdb.Open("")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Sandbox(context.Background(), []string{a}); err == nil {
			t.Errorf("%s was accepted", a)
		}
		e.Close()
	}
}

// TestSandboxRelative: relative entries and relative query paths are both
// resolved against the working directory.
func TestSandboxRelative(t *testing.T) {
	p := sandboxDir(t, map[string]string{"data/a.csv": "x\n2\n", "data/b.csv": "x\n3\n", "data/t.yaml": "s3cret\n"})
	t.Chdir(p("."))
	e := sandboxed(t, []string{"data/*.csv"})
	wantSum(t, e, "SELECT sum(x) FROM read_csv('data/*.csv')", 5)
	wantSum(t, e, "SELECT sum(x) FROM read_csv('"+p("data/*.csv")+"')", 5)
	wantRefused(t, e, "SELECT content FROM read_text('data/t.yaml')")
}
