package operator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/operator"
)

// fixture is one test's world: a namespace on the test API server, a
// DuckDB database file with the flights example data, and a reconciler
// whose API writes are counted.
type fixture struct {
	t      testing.TB
	ctx    context.Context
	api    client.Client // uncounted, for test setup and assertions
	ns     string
	dbPath string
	eng    *duckdb.Engine
	writes *writeCounter
	reg    *prometheus.Registry
	r      *operator.Reconciler
}

func newFixture(t testing.TB, opts operator.Options) *fixture {
	t.Helper()
	needEnv(t)
	api, err := client.New(suite.cfg, client.Options{Scheme: suite.scheme})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: context.Background(), api: api, writes: &writeCounter{}, reg: prometheus.NewRegistry()}
	f.ns = newNamespace(t, api)
	f.dbPath = filepath.Join(t.TempDir(), "flights.duckdb")
	f.eng = openFlights(t, f.dbPath, true)
	m, err := operator.NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	rec := suite.events.NewRecorder(suite.scheme, operator.FieldManager)
	f.r = operator.New(countingClient(t, f.writes), nil, suite.scheme, f.eng, rec, m, opts)
	return f
}

// openFlights opens the DuckDB file at path, loading the flights example
// tables (flights, airports) when load is set.
func openFlights(t testing.TB, path string, load bool) *duckdb.Engine {
	t.Helper()
	eng, err := duckdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	if load {
		data := filepath.Join(repoRoot, "examples", "flights", "data")
		for table, file := range map[string]string{"flights": "flights-sample.parquet", "airports": "airports.csv"} {
			if err := eng.LoadFile(context.Background(), table, filepath.Join(data, file)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return eng
}

// setEngine swaps the engine the reconciler asks (an engine that went away
// and came back, or one that cannot be reached).
func (f *fixture) setEngine(e engine.Engine) { f.r.Engine = e }

// exec runs DDL on the fixture's DuckDB database.
func (f *fixture) exec(sql string) {
	f.t.Helper()
	if err := f.eng.Exec(f.ctx, sql); err != nil {
		f.t.Fatal(err)
	}
}

// flightsSpec reads examples/flights/model.yaml into a spec, strictly (an
// unknown key would fail here just as the API server would refuse it).
func flightsSpec(t testing.TB) v1alpha1.SemanticModelSpec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "flights", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var spec v1alpha1.SemanticModelSpec
	if err := yaml.UnmarshalStrict(data, &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// create stores a SemanticModel named name with spec.
func (f *fixture) create(name string, spec v1alpha1.SemanticModelSpec) *v1alpha1.SemanticModel {
	f.t.Helper()
	sm := &v1alpha1.SemanticModel{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}, Spec: spec}
	if err := f.api.Create(f.ctx, sm); err != nil {
		f.t.Fatal(err)
	}
	return sm
}

// update changes the spec of name with edit.
func (f *fixture) update(name string, edit func(*v1alpha1.SemanticModelSpec)) {
	f.t.Helper()
	sm := f.get(name)
	edit(&sm.Spec)
	if err := f.api.Update(f.ctx, sm); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) get(name string) *v1alpha1.SemanticModel {
	f.t.Helper()
	sm := &v1alpha1.SemanticModel{}
	if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: name}, sm); err != nil {
		f.t.Fatal(err)
	}
	return sm
}

// reconcile runs one pass on name and returns what controller-runtime
// would get.
func (f *fixture) reconcile(name string) (reconcile.Result, error) {
	f.t.Helper()
	return f.r.Reconcile(f.ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: f.ns, Name: name}})
}

// mustReconcile runs one pass and fails on an error.
func (f *fixture) mustReconcile(name string) reconcile.Result {
	f.t.Helper()
	res, err := f.reconcile(name)
	if err != nil {
		f.t.Fatalf("reconcile: %v", err)
	}
	return res
}

// configMap returns the published ConfigMap of model name, or nil.
func (f *fixture) configMap(name string) *corev1.ConfigMap {
	f.t.Helper()
	cm := &corev1.ConfigMap{}
	err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: v1alpha1.ConfigMapName(name)}, cm)
	if err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil
		}
		f.t.Fatal(err)
	}
	return cm
}

// cond returns condition typ of sm, failing when it is absent.
func cond(t testing.TB, sm *v1alpha1.SemanticModel, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(sm.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("condition %s missing; conditions: %+v", typ, sm.Status.Conditions)
	}
	if c.ObservedGeneration != sm.Generation {
		t.Errorf("condition %s observedGeneration %d, want %d", typ, c.ObservedGeneration, sm.Generation)
	}
	return *c
}

// wantCond checks status and reason of a condition.
func wantCond(t testing.TB, sm *v1alpha1.SemanticModel, typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	c := cond(t, sm, typ)
	if c.Status != status || c.Reason != reason {
		t.Errorf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	return c
}

// bundleOf decodes the artifact bundle of a published ConfigMap.
func bundleOf(t testing.TB, cm *corev1.ConfigMap) *compiler.Bundle {
	t.Helper()
	b, err := compiler.DecodeBundle(cm.BinaryData[v1alpha1.ArtifactKey], 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventReasons waits up to 10 s for events about name in the fixture's
// namespace with every reason in want, and returns all reasons seen.
func (f *fixture) eventReasons(name string, want ...string) []string {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := &eventsv1.EventList{}
		if err := f.api.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
			f.t.Fatal(err)
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Regarding.Kind == "SemanticModel" {
				seen = append(seen, e.Reason)
			}
		}
		missing := false
		for _, w := range want {
			if !contains(seen, w) {
				missing = true
			}
		}
		if !missing || time.Now().After(deadline) {
			return seen
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventNotes returns the notes of every event in the namespace.
func (f *fixture) eventNotes() string {
	f.t.Helper()
	list := &eventsv1.EventList{}
	if err := f.api.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
		f.t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		b.WriteString(e.Note)
		b.WriteString("\n")
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
