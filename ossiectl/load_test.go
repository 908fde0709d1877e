package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --load that fails is an OSS5001 problem line naming the table, the
// file and the next step, without DuckDB's statement excerpt.
func TestQueryLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "orders.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "folder.csv")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.csv")
	for _, c := range []struct{ file, want string }{
		{missing, "no file " + missing},
		{bad, "valid Parquet, CSV or JSON file"},
		{sub, "is a directory"},
	} {
		code, out, errs := run(t, "", "query", "testdata/shop.yaml", "--load", "orders="+c.file, "--metrics", "revenue")
		if code != ExitProblems || out != "" {
			t.Errorf("%s: exit %d\n%s%s", c.file, code, out, errs)
		}
		if !strings.Contains(errs, "error OSS5001: --load orders="+c.file) || !strings.Contains(errs, c.want) || strings.Contains(errs, "LINE 1") {
			t.Errorf("%s: want an OSS5001 line naming the file and %q, got\n%s", c.file, c.want, errs)
		}
	}
	code, _, errs := run(t, "", "query", "testdata/shop.yaml", "--load", "orders=nope.csv", "--metrics", "revenue")
	if code != ExitProblems || !strings.Contains(errs, "check the path: a relative FILE is read from the current directory") {
		t.Errorf("relative missing file: exit %d\n%s", code, errs)
	}
	if _, help, _ := run(t, "", "query", "--help"); !strings.Contains(help, "header and no rows loads every column\nas VARCHAR") {
		t.Errorf("query --help should say a header-only CSV loads as VARCHAR:\n%s", help)
	}
}
