package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/kubetest"
)

// In Kubernetes mode the server gives the planner the rollup states
// published with the artifact (data["rollups.json"], as the operator
// writes it): with a state, the flights by origin state are answered from
// the rollup table, with the base tables' numbers; once the state is gone
// from the ConfigMap, from the base tables again, EXPLAIN saying why.
func TestKubernetesRollups(t *testing.T) {
	_, kubeconfig := kubetest.Start(t)
	restCfg, err := KubeRESTConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rollups"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	data := filepath.Join("..", "examples", "flights", "data")
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	for table, file := range map[string]string{"flights": "flights-sample.parquet", "airports": "airports.csv"} {
		if err := eng.LoadFile(ctx, table, filepath.Join(data, file)); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join("..", "examples", "flights", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(append(src, `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_origin", "measures": ["flight_count", "avg_delay"], "dimensions": ["origin.state"]}]}'
`...), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	art := arts[0]
	r := art.Rollup("by_origin")
	rb, probs := plan.BuildRollup(art, r.Name, eng.Dialect())
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if _, err := eng.BuildTable(ctx, engine.TableDef{Schema: []string{"ossie_views"}, Name: r.Table, Query: rb.SQL}); err != nil {
		t.Fatal(err)
	}
	states, _ := json.Marshal([]v1alpha1.RollupState{{Model: "flights", Name: "by_origin", Table: []string{"ossie_views", r.Table},
		ArtifactVersion: art.Version, BuiltAt: time.Now().UTC()}})

	store := NewStore(nil)
	w, err := WatchConfigMaps(ctx, cs, store, KubeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); w.Wait() }()
	srv, err := New(Config{Engine: eng, Store: store, Synced: w.Synced})
	if err != nil {
		t.Fatal(err)
	}
	cm := servertest.ArtifactConfigMap("rollups", "ossie-flights", "flights", servertest.EncodeBundle(t, arts))
	cm.Data = map[string]string{v1alpha1.RollupsKey: string(states)}
	if cm, err = cs.CoreV1().ConfigMaps("rollups").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	q := &plan.Query{Metrics: []string{"flight_count", "avg_delay"}, Dimensions: []plan.Dimension{{Field: "origin.state"}}, OrderBy: []plan.Order{{Key: "origin.state"}}}
	explain := func() string {
		eq := *q
		eq.Explain = true
		p, err := srv.PlanSQL(ctx, "flights", &eq)
		if err != nil {
			return err.Error()
		}
		return p.Explain
	}
	servertest.Eventually(t, "answered from the rollup", func() (bool, string) {
		e := explain()
		return strings.Contains(e, "rollup by_origin: used"), e
	})
	fromRollup, err := srv.Answer(ctx, "flights", q)
	if err != nil {
		t.Fatal(err)
	}

	delete(cm.Data, v1alpha1.RollupsKey)
	if _, err := cs.CoreV1().ConfigMaps("rollups").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "answered from the base tables", func() (bool, string) {
		e := explain()
		return strings.Contains(e, "rollup by_origin: it is not built"), e
	})
	fromBase, err := srv.Answer(ctx, "flights", q)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := casefile.Match(fromBase.Rows, fromRollup.Rows, true, 1e-9); !ok || len(fromBase.Rows) < 40 {
		t.Errorf("rollup and base tables disagree (%d rows): %s", len(fromBase.Rows), why)
	}
}
