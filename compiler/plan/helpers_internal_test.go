package plan

import (
	"os"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// shopPlanner compiles testdata/shop.yaml, with testdata/shop.governance.yaml
// when governed.
func shopPlanner(t *testing.T, governed bool) *Planner {
	t.Helper()
	doc, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var arts []*compiler.Artifact
	var probs compiler.Problems
	if governed {
		gov, err := os.ReadFile("testdata/shop.governance.yaml")
		if err != nil {
			t.Fatal(err)
		}
		arts, probs = compiler.LoadGoverned(doc, gov, compiler.CompileOptions{})
	} else {
		arts, probs = compiler.Load(doc, compiler.CompileOptions{})
	}
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planOf plans a JSON query body for DuckDB under c and returns its
// logical plan; it fails the test on any problem.
func planOf(t *testing.T, p *Planner, body string, c *Caller) node {
	t.Helper()
	q, probs := ParseQuery([]byte(body))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	pl, probs := p.PlanFor(q, dialect.DuckDB, c)
	if probs.HasErrors() {
		t.Fatalf("%s: %v", body, probs)
	}
	return pl.tree
}

// nodesOf lists the nodes of type T under root, depth first.
func nodesOf[T node](root node) []T { return nodesUnder[T](root) }
