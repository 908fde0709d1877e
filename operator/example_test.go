package operator_test

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/operator"
)

// The SemanticModel example users `kubectl apply` must be accepted by the
// API server's schema and publish exactly the artifact version that
// `ossiectl compile examples/flights/model.yaml` prints.
func TestFlightsExampleResource(t *testing.T) {
	f := newFixture(t, operator.Options{})
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "flights", "semanticmodel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var sm v1alpha1.SemanticModel
	if err := yaml.UnmarshalStrict(data, &sm); err != nil {
		t.Fatal(err)
	}
	created := f.create(sm.Name, sm.Spec)
	f.mustReconcile(created.Name)
	got := f.get(created.Name)
	wantCond(t, got, "Ready", "True", "Ready")

	model, err := os.ReadFile(filepath.Join(repoRoot, "examples", "flights", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(model, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if got.Status.PublishedVersion != arts[0].Version {
		t.Fatalf("published %s, ossiectl compiles %s", got.Status.PublishedVersion, arts[0].Version)
	}
}
