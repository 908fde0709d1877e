package operator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

// adversarialSpecs are SemanticModel specs as the API server hands them
// over (decoded JSON, at most 10,000 levels deep as its decoder allows),
// carrying each JSON shape of about 1 MB in the two schemaless places of
// the CRD: a model's ai_context and a dataset's source.
func adversarialSpecs(t testing.TB) map[string]*v1alpha1.SemanticModel {
	shapes := append(prescantest.JSON(1<<20), prescantest.Shape{Name: "json-arrays-9000",
		Data: []byte(strings.Repeat("[", 9000) + strings.Repeat("]", 9000)), Kind: "depth"})
	out := map[string]*v1alpha1.SemanticModel{}
	for _, s := range shapes {
		for _, place := range []string{"ai_context", "source"} {
			model := `{"name": "m", "ai_context": X, "datasets": [{"name": "t", "source": "t"}]}`
			if place == "source" {
				model = `{"name": "m", "datasets": [{"name": "t", "source": X}]}`
			}
			spec := `{"version": "0.2.0.dev0", "semantic_model": [` + strings.Replace(model, "X", string(s.Data), 1) + `]}`
			sm := &v1alpha1.SemanticModel{}
			if err := json.Unmarshal([]byte(spec), &sm.Spec); err != nil {
				continue // the API server's decoder refuses it too (over 10,000 levels)
			}
			sm.Generation = 1
			out[s.Name+"/"+place] = sm
		}
	}
	if len(out) < 8 {
		t.Fatalf("only %d specs decode", len(out))
	}
	return out
}

// TestValidateRefusesAdversarialSpecs (issue 25): the validate step
// refuses a spec whose schemaless parts nest 9,000 deep or hold hundreds
// of thousands of values with Validated=False and OSS1021 in the status,
// before the YAML parser reads the document; a long string is read.
func TestValidateRefusesAdversarialSpecs(t *testing.T) {
	for name, sm := range adversarialSpecs(t) {
		p := &pass{sm: sm}
		(&Reconciler{}).validate(context.Background(), p)
		c := meta.FindStatusCondition(p.status.Conditions, v1alpha1.ConditionValidated)
		refused := c != nil && c.Status == "False" && strings.Contains(c.Message, compiler.CodeDocumentTooComplex)
		if strings.Contains(name, "long-string") {
			if refused {
				t.Errorf("%s: refused: %s", name, c.Message)
			}
			continue
		}
		if !refused || len(p.status.Problems) != 1 || p.status.Problems[0].Code != compiler.CodeDocumentTooComplex {
			t.Errorf("%s: %+v %+v; want Validated=False with one %s", name, c, p.status.Problems, compiler.CodeDocumentTooComplex)
		}
	}
}

// BenchmarkValidateAdversarialSpecs: the validate step over each spec.
// Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkValidateAdversarialSpecs(b *testing.B) {
	for name, sm := range adversarialSpecs(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				(&Reconciler{}).validate(context.Background(), &pass{sm: sm})
			}
		})
	}
}

// FuzzValidateSpec: any JSON the API server could hand over as a spec,
// starting from the adversarial shapes, is validated without a panic.
func FuzzValidateSpec(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sm := &v1alpha1.SemanticModel{}
		if json.Unmarshal(data, &sm.Spec) != nil {
			return
		}
		(&Reconciler{}).validate(context.Background(), &pass{sm: sm})
	})
}
