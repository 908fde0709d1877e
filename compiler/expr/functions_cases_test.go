package expr

import (
	"os"
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// functionCases is the conformance suite's list of function cases, run on
// DuckDB, PostgreSQL and Trino by test/conformance.
const functionCases = "../../test/conformance/functions.yaml"

// TestFunctionCasesCoverCatalogue keeps functions.yaml and the catalogue
// together: every REQUIRED function has a case, and every case's
// expression is valid Ossie SQL that uses the function it names.
func TestFunctionCasesCoverCatalogue(t *testing.T) {
	raw, err := os.ReadFile(functionCases)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []functionCase `yaml:"cases"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range file.Cases {
		n, errs := Parse(c.Expr)
		if len(errs) > 0 {
			t.Errorf("case %s: %q does not parse: %v", c.Name, c.Expr, errs)
			continue
		}
		fi, isFunc := Lookup(c.Function)
		if !isFunc {
			continue // an operator or a construct (/, CAST, CASE, ...)
		}
		uses := false
		Walk(n, func(x Node) bool {
			if f, ok := x.(Func); ok && f.Name == fi.Name {
				uses = true
			}
			return !uses
		})
		if !uses {
			t.Errorf("case %s is about %s but %q does not call it", c.Name, fi.Name, c.Expr)
		}
		covered[fi.Name] = true
	}
	for _, fi := range Functions() {
		if fi.Spec == Required && !covered[fi.Name] {
			t.Errorf("REQUIRED function %s has no case in functions.yaml", fi.Name)
		}
	}
	if !slices.ContainsFunc(file.Cases, func(c functionCase) bool { return len(c.Engines) > 0 }) {
		t.Error("no case covers a function refused on an engine (OSS3008)")
	}
}

// functionCase is the part of a functions.yaml case this test reads.
type functionCase struct {
	Name     string   `yaml:"name"`
	Function string   `yaml:"function"`
	Expr     string   `yaml:"expr"`
	Engines  []string `yaml:"engines"`
}
