package plan_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// loadGovernedShop compiles testdata/shop.yaml with
// testdata/shop.governance.yaml into a planner.
func loadGovernedShop(t testing.TB) *plan.Planner {
	t.Helper()
	doc, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gov, err := os.ReadFile("testdata/shop.governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.LoadGoverned(doc, gov, compiler.CompileOptions{})
	if len(probs) > 0 {
		t.Fatalf("governed shop: %v", probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGovernedGolden plans every testdata/governed/<case> (request.json
// under caller.json) for DuckDB, compares the SQL with expected.duckdb.sql
// and the rows with the hand-written answer.sql on the shop tables.
func TestGovernedGolden(t *testing.T) {
	db := openShop(t)
	checkGovernedGoldens(t, loadGovernedShop(t), dialect.DuckDB, func(t *testing.T, q string) [][]any { return queryRows(t, db, q) })
}

// TestGovernedGoldenTrino checks the Trino text of every governed case
// (Trino cannot run here; the Trino engine tests cover the client).
func TestGovernedGoldenTrino(t *testing.T) {
	checkGovernedGoldens(t, loadGovernedShop(t), dialect.Trino, nil)
}

// checkGovernedGoldens is checkGoldens for governed cases; run nil checks
// the SQL text only.
func checkGovernedGoldens(t *testing.T, p *plan.Planner, d dialect.Dialect, run func(t *testing.T, sql string) [][]any) {
	reqs, _ := filepath.Glob("testdata/governed/*/request.json")
	if len(reqs) < 8 {
		t.Fatalf("found %d governed cases", len(reqs))
	}
	for _, req := range reqs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			q := readRequest(t, req)
			cb, err := os.ReadFile(filepath.Join(dir, "caller.json"))
			if err != nil {
				t.Fatal(err)
			}
			var c plan.Caller
			if err := json.Unmarshal(cb, &c); err != nil {
				t.Fatal(err)
			}
			pl, probs := p.PlanFor(q, d, &c)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			got := checkPlanned(t, dir, d, pl, run, false)
			if run != nil && len(got) == 0 {
				t.Error("a governed case returned no rows; it would prove little")
			}
		})
	}
}
