package plan_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// duckDBOnly are spellings Trino rejects that other dialects emit: DuckDB's
// timezone(zone, ts) and file readers, PostgreSQL-style :: casts, LIMIT
// before OFFSET, ILIKE, and a bare TIMESTAMP cast (Trino's is milliseconds).
var duckDBOnly = []string{"timezone(", "read_parquet", "read_csv", "read_json", "::", " ILIKE ", "AS TIMESTAMP)", "strftime(", "strptime("}

// TestGoldenTrino plans every testdata/<case>/request.json for Trino and
// compares the SQL with expected.trino.sql (-update rewrites it). No Trino
// runs here, so unlike checkGoldens nothing is executed: the values are
// checked by the conformance suite; this pins the text and refuses
// spellings that only other engines accept.
func TestGoldenTrino(t *testing.T) {
	p := loadShop(t)
	reqs, _ := filepath.Glob("testdata/*/request.json")
	if len(reqs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, req := range reqs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			q := readRequest(t, req)
			pl, probs := p.Plan(q, dialect.Trino)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			checkGoldenSQL(t, filepath.Join(dir, "expected.trino.sql"), pl.SQL)
			for _, bad := range duckDBOnly {
				if strings.Contains(pl.SQL, bad) {
					t.Errorf("Trino SQL contains %q:\n%s", bad, pl.SQL)
				}
			}
			if i, j := strings.Index(pl.SQL, " LIMIT "), strings.Index(pl.SQL, " OFFSET "); i >= 0 && j > i {
				t.Errorf("Trino requires OFFSET before LIMIT:\n%s", pl.SQL)
			}
		})
	}
}
