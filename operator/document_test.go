package operator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/operator"
)

// TestDocumentRoundTripIsLossless sends every Ossie document of the
// repository to the API server as a SemanticModel spec (as `kubectl apply`
// would, with strict field validation), reads it back and converts it with
// DocumentJSON, then checks the compiler's verdict is the same as on the
// original file: the same artifact versions (a hash of the canonical spec,
// so any lost or altered key changes it) for valid documents, the same
// problem codes and paths for invalid ones. Documents the CRD schema
// refuses (wrong types, missing required keys) never reach the operator;
// the test checks a few known ones are refused.
func TestDocumentRoundTripIsLossless(t *testing.T) {
	f := newFixture(t, operator.Options{})
	var files []string
	for _, pattern := range []string{
		"examples/*/model.yaml",
		"test/cases/*/model.yaml",
		"compiler/testdata/*/*.yaml",
		"compiler/testdata/*/*/*.yaml",
		"compiler/plan/testdata/*.yaml",
		"ossiectl/testdata/*.yaml",
		"server/testdata/*.yaml",
	} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	var refused []string
	for i, file := range files {
		rel, _ := filepath.Rel(repoRoot, file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			continue // not YAML kubectl sends (e.g. duplicate keys)
		}
		var spec any
		if err := json.Unmarshal(js, &spec); err != nil {
			continue
		}
		if _, isMap := spec.(map[string]any); !isMap {
			continue
		}
		if _, isQueries := spec.(map[string]any)["queries"]; isQueries {
			continue
		}
		u, err := createSpec(f, fmt.Sprintf("doc-%d", i), spec)
		if err != nil {
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("%s: %v", rel, err)
			}
			refused = append(refused, rel)
			continue
		}
		if reason, ok := knownDifferences[filepath.Base(file)]; ok {
			t.Logf("%s: skipped: %s", rel, reason)
			continue
		}
		t.Run(rel, func(t *testing.T) {
			_, doc := readBack(t, f, u)
			wantArts, wantProbs := compiler.Load(data, compiler.CompileOptions{})
			gotArts, gotProbs := compiler.Load(doc, compiler.CompileOptions{})
			sameVerdict(t, wantArts, gotArts, wantProbs, gotProbs)
		})
		checked++
	}
	t.Logf("%d documents round-tripped; refused by the CRD schema: %v", checked, refused)
	if checked < 20 {
		t.Errorf("only %d documents checked; the globs no longer find the corpus", checked)
	}
	for _, want := range []string{"wrong_type_name_number.yaml", "missing_source.yaml", "missing_model_name.yaml"} {
		if !slices.ContainsFunc(refused, func(r string) bool { return strings.HasSuffix(r, "/"+want) }) {
			t.Errorf("the API server accepted %s", want)
		}
	}
}

// knownDifferences are documents whose meaning Kubernetes itself changes
// before the operator sees them (docs/operator.md, "The spec").
var knownDifferences = map[string]string{
	"wrong_type_null_description.yaml": "the API server drops null values of non-nullable fields, so `description: null` arrives as absent (ossiectl refuses it with OSS1003)",
}

// createSpec creates a SemanticModel with spec as kubectl apply would
// (strict field validation).
func createSpec(f *fixture, name string, spec any) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ossie.dev/v1alpha1",
		"kind":       "SemanticModel",
		"metadata":   map[string]any{"name": name, "namespace": f.ns},
		"spec":       spec,
	}}
	return u, f.api.Create(f.ctx, u, client.FieldValidation("Strict"))
}

// readBack reads the SemanticModel u back from the API server, as the
// operator's client decodes it, with its document as DocumentJSON writes it.
func readBack(t *testing.T, f *fixture, u *unstructured.Unstructured) (*v1alpha1.SemanticModel, []byte) {
	t.Helper()
	sm := &v1alpha1.SemanticModel{}
	if err := f.api.Get(f.ctx, client.ObjectKeyFromObject(u), sm); err != nil {
		t.Fatal(err)
	}
	doc, err := operator.DocumentJSON(&sm.Spec)
	if err != nil {
		t.Fatal(err)
	}
	return sm, doc
}

// sameVerdict fails unless the file and the spec compile to the same
// artifact versions with the same problem codes and paths.
func sameVerdict(t *testing.T, wantArts, gotArts []*compiler.Artifact, wantProbs, gotProbs compiler.Problems) {
	t.Helper()
	if w, g := versions(wantArts), versions(gotArts); w != g {
		t.Errorf("versions differ: file %s, spec %s", w, g)
	}
	if w, g := problemKeys(wantProbs), problemKeys(gotProbs); w != g {
		t.Errorf("problems differ:\nfile: %s\nspec: %s", w, g)
	}
}

func versions(arts []*compiler.Artifact) string {
	var vs []string
	for _, a := range arts {
		vs = append(vs, a.Name+"="+a.Version)
	}
	return strings.Join(vs, ",")
}

func problemKeys(ps compiler.Problems) string {
	var ks []string
	for _, p := range ps {
		ks = append(ks, fmt.Sprintf("%s %s %s", p.Severity, p.Code, p.Path))
	}
	slices.Sort(ks)
	return strings.Join(ks, "; ")
}

// TestGovernanceRoundTripIsLossless does for spec.governance what
// TestDocumentRoundTripIsLossless does for the document: each governance
// file of the repository (its `views` moved to spec.views) goes to the API
// server with its model, is read back as ossie.Governance and given to the
// compiler as JSON, as the operator does; the verdict must be the file's:
// the same artifact versions (governance is part of them) and the same
// problem codes and paths.
func TestGovernanceRoundTripIsLossless(t *testing.T) {
	f := newFixture(t, operator.Options{})
	pairs := [][2]string{
		{"compiler/testdata/governance/model.yaml", "compiler/testdata/governance/valid.yaml"},
		{"compiler/testdata/governance/model.yaml", "compiler/testdata/governance/invalid.yaml"},
		{"compiler/plan/testdata/shop.yaml", "compiler/plan/testdata/shop.governance.yaml"},
		{"server/testdata/shop.yaml", "server/testdata/shop.governance.yaml"},
		{"ossiectl/testdata/shop.yaml", "ossiectl/testdata/shop.governance.yaml"},
	}
	checked := 0
	for i, pair := range pairs {
		model, gov := readFile(t, pair[0]), readFile(t, pair[1])
		var spec, rules map[string]any
		if err := yaml.Unmarshal(model, &spec); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(gov, &rules); err != nil {
			t.Fatal(err)
		}
		if views, ok := rules["views"]; ok {
			spec["views"] = views
			delete(rules, "views")
		}
		spec["governance"] = rules
		u, err := createSpec(f, fmt.Sprintf("gov-%d", i), spec)
		if err != nil {
			t.Logf("%s: refused by the CRD schema: %v", pair[1], err)
			continue
		}
		t.Run(pair[1], func(t *testing.T) {
			sm, doc := readBack(t, f, u)
			rulesJSON, err := json.Marshal(sm.Spec.Governance)
			if err != nil {
				t.Fatal(err)
			}
			wantArts, wantProbs := compiler.LoadGoverned(model, gov, compiler.CompileOptions{})
			gotArts, gotProbs := compiler.LoadGoverned(doc, rulesJSON, compiler.CompileOptions{})
			sameVerdict(t, wantArts, gotArts, wantProbs, gotProbs)
		})
		checked++
	}
	if checked < 4 {
		t.Errorf("only %d governance files reached the operator", checked)
	}
}

func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
