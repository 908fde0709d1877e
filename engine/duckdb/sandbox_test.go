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

// TestSandbox: after Sandbox, the allowed file and the files a glob names
// are read, a table loaded before stays readable, every other file (by
// read_text, read_csv, glob, COPY, ATTACH) is engine.ErrPermissionDenied,
// and no statement can lift the limit.
func TestSandbox(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.csv", "x\n1\n")
	write("parts/a.csv", "x\n2\n")
	write("parts/b.csv", "x\n3\n")
	secret := write("secret.txt", "s3cret\n")
	e, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := e.Exec(ctx, "CREATE TABLE loaded AS SELECT 42 AS v"); err != nil {
		t.Fatal(err)
	}
	if err := e.Sandbox(ctx, []string{one, filepath.Join(dir, "parts", "*.csv")}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int64{
		"SELECT sum(x) FROM read_csv('" + one + "')":                                  1,
		"SELECT sum(x) FROM read_csv('" + filepath.Join(dir, "parts", "*.csv") + "')": 5,
		"SELECT sum(v) FROM loaded":                                                   42,
	} {
		res, err := e.Query(ctx, q, 0)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != want && res.Rows[0][0] != float64(want) {
			t.Errorf("%s: %+v, %v; want %d", q, res, err, want)
		}
	}
	for _, q := range []string{
		"SELECT content FROM read_text('" + secret + "')",
		"SELECT * FROM read_csv('" + secret + "')",
		"SELECT * FROM glob('" + dir + "/*')",
		"COPY (SELECT 1) TO '" + filepath.Join(dir, "out.csv") + "'",
		"ATTACH '" + filepath.Join(dir, "other.duckdb") + "'",
	} {
		if _, err := e.Query(ctx, q, 0); !errors.Is(err, engine.ErrPermissionDenied) {
			t.Errorf("%s: %v; want permission denied", q, err)
		}
	}
	for _, q := range []string{"SET enable_external_access = true", "RESET lock_configuration", "SET allowed_directories = ['/']"} {
		if err := e.Exec(ctx, q); err == nil {
			t.Errorf("%s succeeded after the lock", q)
		}
	}
	if err := e.Sandbox(ctx, []string{"s3://bucket/x.parquet"}); err == nil {
		t.Error("a remote file source was accepted")
	}
}
