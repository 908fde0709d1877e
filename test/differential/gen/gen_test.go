package gen

import (
	"bytes"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

// TestModelsValidate: every generated document (and governance) is valid
// for the real compiler, and every case either has an answer or the code
// it must be refused with.
func TestModelsValidate(t *testing.T) {
	for seed := int64(1); seed <= 500; seed++ {
		g := GenerateWith(seed, Options{})
		c := g.Case
		_, probs := compiler.LoadGoverned(c.Model, c.Governance, compiler.CompileOptions{})
		if probs.HasErrors() {
			t.Fatalf("seed %d: the generated model does not compile:\n%s\n%s", seed, probs, c.Model)
		}
		if c.Want == nil && c.WantCode == "" {
			t.Fatalf("seed %d: no answer and no code: %v\nquery %s", seed, g.Err, c.Query)
		}
	}
}

// TestDeterministic: a seed always gives the same case.
func TestDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		a, b := Generate(seed), Generate(seed)
		if !bytes.Equal(a.Model, b.Model) || !bytes.Equal(a.Query, b.Query) || a.Name != b.Name {
			t.Fatalf("seed %d: two different cases", seed)
		}
	}
}
