package operator_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/operator"
)

// TestManagerWatches runs the reconciler inside a real manager (cache,
// watches, predicates, workqueue) as cmd/operator does, and drives it only
// through the API server and the engine.
func TestManagerWatches(t *testing.T) {
	f := newFixture(t, operator.Options{})
	skip := true
	mgr, err := ctrl.NewManager(suite.cfg, ctrl.Options{
		Scheme:                 suite.scheme,
		Cache:                  operator.CacheOptions([]string{f.ns}, time.Hour),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		t.Fatal(err)
	}
	// No drift recheck: recovery below must come from the request
	// annotation, proving that path works on its own.
	if _, err := operator.Setup(mgr, f.eng, operator.Options{DriftRecheck: -1, BackoffBase: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	f.create("flights", flightsSpec(t))
	f.eventually("Ready", func(sm *v1alpha1.SemanticModel) bool {
		return meta.IsStatusConditionTrue(sm.Status.Conditions, v1alpha1.ConditionReady)
	})
	version := f.get("flights").Status.PublishedVersion

	// Quiet when nothing changes: the operator's own status and ConfigMap
	// writes do not trigger further passes that write.
	before := reconcileCount(t)
	time.Sleep(1500 * time.Millisecond)
	if after := reconcileCount(t); after-before > 1 {
		t.Errorf("%v reconciles while nothing changed", after-before)
	}

	// Drift in the engine is not seen until asked (no recheck configured);
	// the request annotation asks.
	f.exec("ALTER TABLE flights DROP COLUMN distance")
	f.annotate("flights", "1")
	f.eventually("DriftDetected=True", func(sm *v1alpha1.SemanticModel) bool {
		return meta.IsStatusConditionTrue(sm.Status.Conditions, v1alpha1.ConditionDriftDetected)
	})
	f.exec("ALTER TABLE flights ADD COLUMN distance INTEGER")
	f.annotate("flights", "2")
	f.eventually("Ready again", func(sm *v1alpha1.SemanticModel) bool {
		return meta.IsStatusConditionTrue(sm.Status.Conditions, v1alpha1.ConditionReady)
	})

	// A deleted ConfigMap is noticed through the owned-object watch.
	if err := f.api.Delete(f.ctx, f.configMap("flights")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if cm := f.configMap("flights"); cm != nil && cm.Annotations[v1alpha1.AnnotationVersion] == version {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the deleted ConfigMap was not republished")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// annotate sets the reconcile request annotation of name to value.
func (f *fixture) annotate(name, value string) {
	f.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("SemanticModel"))
	u.SetNamespace(f.ns)
	u.SetName(name)
	u.SetAnnotations(map[string]string{v1alpha1.AnnotationReconcileRequest: value})
	patch, err := u.MarshalJSON()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.api.Patch(f.ctx, u, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		f.t.Fatal(err)
	}
}

// eventually polls name until ok holds for its current generation (20 s).
func (f *fixture) eventually(what string, ok func(*v1alpha1.SemanticModel) bool) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sm := f.get("flights")
		if sm.Status.ObservedGeneration == sm.Generation && ok(sm) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not %s after 20s: %+v", what, sm.Status.Conditions)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// reconcileCount sums ossie_operator_reconcile_total over results.
func reconcileCount(t *testing.T) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, fam := range families {
		if fam.GetName() == "ossie_operator_reconcile_total" {
			for _, m := range fam.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}
