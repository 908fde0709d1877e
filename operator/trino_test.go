package operator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// openTrino opens the engine on the shared real Trino (test/trinoserver)
// as its administrator, session catalog memory and the given schema. The
// schemas named in drop are dropped with their contents before and after
// the test (the operator tests use fixed names: shop, ossie_views).
func openTrino(t *testing.T, schema string, drop ...string) *trino.Engine {
	t.Helper()
	srv := trinoserver.Shared(t)
	ctx := context.Background()
	clean := func() {
		for _, s := range drop {
			_ = srv.Exec(ctx, `DROP SCHEMA IF EXISTS memory."`+s+`" CASCADE`)
		}
	}
	clean()
	t.Cleanup(clean)
	eng, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.AdminUser, "memory", schema), RetryTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// openTrinoShop is the shop tables of shopTables in memory.shop of the
// real Trino, with Trino's DDL (no PRIMARY KEY, typed DATE literals).
func openTrinoShop(t *testing.T) *viewEngine {
	t.Helper()
	eng := openTrino(t, "shop", "ossie_views", "shop")
	for _, s := range []string{
		"CREATE SCHEMA memory.shop",
		"CREATE TABLE memory.shop.orders (order_id INTEGER, region VARCHAR, order_date DATE, amount DECIMAL(10,2))",
		"INSERT INTO memory.shop.orders VALUES (1, 'NA', DATE '2017-12-01', 50.36), (2, 'EMEA', DATE '2017-12-02', 24.12), (3, 'NA', DATE '2018-01-02', 50.36)",
	} {
		if err := eng.Exec(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return &viewEngine{Engine: eng, viewer: eng}
}

// The operator's life of a model on a real Trino: published against the
// tables, drift when a column it reads is dropped (the last good version
// keeps serving), recovery when the column is back without a change to
// the resource, and deletion. The view lifecycle on Trino is
// TestViewLifecycle/trino.
func TestDriftAndRecoveryOnTrino(t *testing.T) {
	f := newFixture(t, operator.Options{})
	eng := openTrino(t, "op_flights", "op_flights")
	exec := func(stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			if err := eng.Exec(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
	}
	flights := "CREATE TABLE flights (date TIMESTAMP(6), delay INTEGER, distance INTEGER, origin VARCHAR, destination VARCHAR)"
	exec("CREATE SCHEMA memory.op_flights", flights,
		strings.ReplaceAll(strings.Split(flightsTables, ";")[1], "DOUBLE PRECISION", "DOUBLE"))
	f.setEngine(eng)
	v1 := publishFlights(t, f)

	// The memory connector cannot drop a column: the table is made again
	// without it.
	exec("DROP TABLE flights", strings.Replace(flights, " distance INTEGER,", "", 1))
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) { s.SemanticModel[0].Description = "changed" })
	if _, err := f.reconcile("flights"); err != nil {
		t.Fatalf("drift is not an error to retry: %v", err)
	}
	sm := f.get("flights")
	d := wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift)
	if !strings.Contains(d.Message, "distance") {
		t.Errorf("drift message does not name the column: %s", d.Message)
	}
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing)
	if got := bundleOf(t, f.configMap("flights")).Version; got != v1 {
		t.Errorf("ConfigMap holds %s, want the last good %s", got, v1)
	}

	exec("ALTER TABLE flights ADD COLUMN distance INTEGER")
	f.mustReconcile("flights")
	sm = f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if sm.Status.PublishedVersion == v1 {
		t.Errorf("the changed spec was not published after recovery")
	}

	if err := f.api.Delete(f.ctx, sm); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reconcile("flights"); err != nil {
		t.Fatal(err)
	}
	if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: "flights"}, &v1alpha1.SemanticModel{}); !apierrors.IsNotFound(err) {
		t.Errorf("the model is still there after deletion: %v", err)
	}
}
