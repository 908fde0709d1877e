package operator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// salesSpec is an orders model whose quantity is parsed from text, so a
// row with a bad quantity makes the rollup's build fail on the engine
// itself while the model stays valid and bound; with rollup set it
// declares the rollup by_region (by region and month, rebuilt when its
// source changes).
func salesSpec(t testing.TB, rollup bool) v1alpha1.SemanticModelSpec {
	t.Helper()
	if !rollup {
		return salesSpecWith(t, "")
	}
	return salesSpecWith(t, byRegion)
}

// byRegion is the rollup of salesSpec.
const byRegion = `{"version": 1, "name": "by_region", "measures": ["orders_total", "order_count", "total_qty"],
          "dimensions": ["orders.region"], "time_dimension": {"field": "orders.order_date", "grain": "month"}}`

// salesSpecWith is the sales model declaring rollup ("" none).
func salesSpecWith(t testing.TB, rollup string) v1alpha1.SemanticModelSpec {
	t.Helper()
	doc := `
version: "0.2.0.dev0"
semantic_model:
  - name: sales
    datasets:
      - name: orders
        source: sales.orders
        primary_key: [order_id]
        fields:
          - name: order_id
            expression: {dialects: [{dialect: ANSI_SQL, expression: order_id}]}
          - name: region
            expression: {dialects: [{dialect: ANSI_SQL, expression: region}]}
          - name: order_date
            expression: {dialects: [{dialect: ANSI_SQL, expression: order_date}]}
            dimension: {is_time: true}
          - name: amount
            expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}
          - name: qty
            expression: {dialects: [{dialect: ANSI_SQL, expression: CAST(qty_text AS INTEGER)}]}
    metrics:
      - name: orders_total
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.amount)}]}
      - name: order_count
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(orders.order_id)}]}
      - name: total_qty
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.qty)}]}
`
	if rollup != "" {
		doc += `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [` + rollup + `]}'
`
	}
	var spec v1alpha1.SemanticModelSpec
	if err := yaml.UnmarshalStrict([]byte(doc), &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// salesEngines open the engines of the rollup lifecycle with the table
// sales.orders holding three orders.
func salesEngines() map[string]func(t *testing.T) rollupEngine {
	const rows = `INSERT INTO sales.orders VALUES (1, 'NA', DATE '2017-12-01', 50.5, '2'), (2, 'EMEA', DATE '2017-12-02', 24.25, '1'), (3, 'NA', DATE '2018-01-02', 50.5, '3')`
	setup := func(t *testing.T, e rollupEngine, create string) rollupEngine {
		for _, s := range []string{create, rows} {
			if err := e.Exec(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	const table = " sales.orders (order_id INTEGER, region VARCHAR, order_date DATE, amount DOUBLE PRECISION, qty_text VARCHAR)"
	return map[string]func(t *testing.T) rollupEngine{
		"duckdb": func(t *testing.T) rollupEngine {
			eng, err := duckdb.Open(t.TempDir() + "/warehouse.duckdb")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			_ = eng.Exec(context.Background(), "CREATE SCHEMA sales")
			return setup(t, eng, "CREATE TABLE"+table)
		},
		"postgres": func(t *testing.T) rollupEngine {
			eng, err := postgres.Open(context.Background(), postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			return setup(t, eng, "CREATE SCHEMA sales; CREATE TABLE"+table)
		},
		"trino": func(t *testing.T) rollupEngine {
			eng := openTrino(t, "sales", "sales", "ossie_views")
			if err := eng.Exec(context.Background(), "CREATE SCHEMA memory.sales"); err != nil {
				t.Fatal(err)
			}
			return setup(t, eng, "CREATE TABLE"+strings.Replace(table, "DOUBLE PRECISION", "DOUBLE", 1))
		},
	}
}

type rollupEngine interface {
	engine.Engine
	engine.Materializer
}

// The whole life of a rollup on DuckDB, PostgreSQL and Trino, on the real
// API server: built with its state in status, in its table's comment and
// in the artifact ConfigMap; left alone when nothing changed; rebuilt when
// its source changes; a build that fails on the engine keeps the good
// table and its rows and reports the failure; dropped when the rollup
// leaves the spec and by the finalizer when the model is deleted. The
// table's rows are checked against hand-written SQL on the base table.
func TestRollupLifecycle(t *testing.T) {
	for name, open := range salesEngines() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, operator.Options{})
			eng := open(t)
			f.setEngine(eng)
			now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
			f.r.Clock = func() time.Time { return now }
			f.create("sales", salesSpec(t, true))
			f.mustReconcile("sales")

			sm := f.get("sales")
			wantCond(t, sm, v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonRollupsBuilt)
			wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
			art := bundleOf(t, f.configMap("sales")).Artifacts[0]
			ru := art.Rollup("by_region")
			if ru == nil || len(sm.Status.Rollups) != 1 {
				t.Fatalf("rollup %+v, status %+v", ru, sm.Status.Rollups)
			}
			st := sm.Status.Rollups[0]
			if st.Name != "by_region" || st.Model != "sales" || st.Table != `"ossie_views"."`+ru.Table+`"` || st.Rows != 3 || !st.Fresh ||
				st.Version != art.Version || st.BuiltAt == nil || !st.BuiltAt.Time.Equal(now) || st.Watermark == nil ||
				!st.Watermark.Time.Equal(time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)) || st.LastError != "" {
				t.Errorf("status.rollups[0] %+v", st)
			}
			if !controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerRollups) {
				t.Errorf("finalizers %v", sm.Finalizers)
			}
			checkRollupRows(t, eng, ru, "")
			states := rollupStates(t, f)
			if len(states) != 1 || states[0].ArtifactVersion != art.Version || !states[0].BuiltAt.Equal(now) ||
				strings.Join(states[0].Table, ".") != "ossie_views."+ru.Table || states[0].Rows != 3 {
				t.Errorf("published states %+v", states)
			}
			rels, err := eng.Relations(f.ctx, []string{"ossie_views"})
			if err != nil || !strings.Contains(rels[ru.Table].Comment, "ossie.dev/uid="+string(sm.UID)) {
				t.Errorf("table comment %+v, %v", rels[ru.Table], err)
			}
			builtFirst := now

			// Nothing changed: no build, no API write.
			now = now.Add(time.Hour)
			f.writes.Reset()
			f.mustReconcile("sales")
			if n := f.writes.Load(); n != 0 {
				t.Errorf("an unchanged model made %d API writes", n)
			}
			if st := f.get("sales").Status.Rollups[0]; !st.BuiltAt.Time.Equal(builtFirst) {
				t.Errorf("rebuilt without a change: %+v", st)
			}

			// The source changed: rebuilt.
			exec(t, eng, "INSERT INTO sales.orders VALUES (4, 'APAC', DATE '2018-01-05', 10, '4')")
			f.mustReconcile("sales")
			sm = f.get("sales")
			if st := sm.Status.Rollups[0]; !st.BuiltAt.Time.Equal(now) || st.Rows != 4 || !st.Fresh {
				t.Errorf("after a source change: %+v", st)
			}
			checkRollupRows(t, eng, ru, "")
			builtSecond := now

			// A build that fails (a quantity that is no integer) keeps the
			// good table; the rollup is not fresh, so it is not published.
			now = now.Add(time.Hour)
			exec(t, eng, "INSERT INTO sales.orders VALUES (5, 'NA', DATE '2018-01-06', 1, 'x')")
			f.mustReconcile("sales")
			sm = f.get("sales")
			c := wantCond(t, sm, v1alpha1.ConditionRollupsReady, metav1.ConditionFalse, v1alpha1.ReasonRollupFailed)
			if st := sm.Status.Rollups[0]; st.Fresh || st.LastError == "" || st.Rows != 4 || !st.BuiltAt.Time.Equal(builtSecond) {
				t.Errorf("after a failed build: %+v", st)
			}
			if !strings.Contains(c.Message, "by_region") {
				t.Errorf("message %q", c.Message)
			}
			wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
			checkRollupRows(t, eng, ru, "WHERE order_id <> 5")
			if s := rollupStates(t, f); len(s) != 0 {
				t.Errorf("a stale rollup is published: %+v", s)
			}
			if seen := f.eventReasons("sales", operator.EventRollupFailed); !contains(seen, operator.EventRollupFailed) {
				t.Errorf("events %v", seen)
			}

			// The bad row gone, the sources are those the table was built
			// from: fresh again without a build.
			// (Rewritten without DELETE, which Trino's memory connector lacks.)
			exec(t, eng, "CREATE TABLE sales.orders_kept AS SELECT * FROM sales.orders WHERE order_id <> 5")
			exec(t, eng, "DROP TABLE sales.orders")
			exec(t, eng, "ALTER TABLE sales.orders_kept RENAME TO orders")
			f.mustReconcile("sales")
			sm = f.get("sales")
			wantCond(t, sm, v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonRollupsBuilt)
			if st := sm.Status.Rollups[0]; !st.Fresh || !st.BuiltAt.Time.Equal(builtSecond) {
				t.Errorf("after the fix: %+v", st)
			}

			// The rollup leaves the spec: its table is dropped.
			f.update("sales", func(s *v1alpha1.SemanticModelSpec) { *s = salesSpec(t, false) })
			f.mustReconcile("sales")
			sm = f.get("sales")
			wantCond(t, sm, v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonNoRollups)
			if _, ok := tables(t, eng)[ru.Table]; ok || len(sm.Status.Rollups) != 0 || controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerRollups) {
				t.Errorf("after removal: tables %v, status %+v, finalizers %v", tables(t, eng), sm.Status.Rollups, sm.Finalizers)
			}
			if _, ok := f.configMap("sales").Data[v1alpha1.RollupsKey]; ok {
				t.Error("rollups.json left in the ConfigMap")
			}

			// Declared again, then the model is deleted: the finalizer
			// drops the table.
			f.update("sales", func(s *v1alpha1.SemanticModelSpec) { *s = salesSpec(t, true) })
			f.mustReconcile("sales")
			if _, ok := tables(t, eng)[ru.Table]; !ok {
				t.Fatalf("not built again: %v", tables(t, eng))
			}
			if err := f.api.Delete(f.ctx, f.get("sales")); err != nil {
				t.Fatal(err)
			}
			f.mustReconcile("sales")
			if _, ok := tables(t, eng)[ru.Table]; ok {
				t.Errorf("table left after delete: %v", tables(t, eng))
			}
		})
	}
}

// Refresh policies with an interval on DuckDB: incremental replaces only
// the latest partitions once the interval has passed (a late row in an
// older partition stays out until a full build), schedule rebuilds all;
// before the interval nothing runs and the pass asks to be requeued when
// it ends.
func TestRollupRefreshPolicies(t *testing.T) {
	for _, c := range []struct {
		mode, extra string
		decWhere    string // which December rows the table holds after the refresh
	}{
		{"incremental", `, "partition_grain": "month", "refresh": {"mode": "incremental", "every": "1h", "lookback": 1}`, "WHERE order_id <> 7"},
		{"schedule", `, "refresh": {"mode": "schedule", "every": "1h"}`, ""},
	} {
		t.Run(c.mode, func(t *testing.T) {
			f := newFixture(t, operator.Options{})
			eng := salesEngines()["duckdb"](t)
			f.setEngine(eng)
			now := time.Date(2018, 1, 10, 12, 0, 0, 0, time.UTC)
			f.r.Clock = func() time.Time { return now }
			decl := strings.Replace(byRegion, `"grain": "month"}`, `"grain": "day"}`+c.extra, 1)
			f.create("sales", salesSpecWith(t, decl))
			f.mustReconcile("sales")
			art := bundleOf(t, f.configMap("sales")).Artifacts[0]
			ru := art.Rollup("by_region")
			built := f.get("sales").Status.Rollups[0].BuiltAt.Time

			exec(t, eng, "INSERT INTO sales.orders VALUES (6, 'NA', DATE '2018-01-09', 5, '1'), (7, 'NA', DATE '2017-12-20', 7, '1')")
			now = now.Add(30 * time.Minute)
			res := f.mustReconcile("sales")
			if st := f.get("sales").Status.Rollups[0]; !st.BuiltAt.Time.Equal(built) || !st.Fresh {
				t.Errorf("refreshed before its interval: %+v", st)
			}
			if res.RequeueAfter != 30*time.Minute {
				t.Errorf("requeue after %s, want 30m", res.RequeueAfter)
			}

			now = now.Add(30 * time.Minute)
			f.mustReconcile("sales")
			sm := f.get("sales")
			if st := sm.Status.Rollups[0]; !st.BuiltAt.Time.Equal(now) || !st.Fresh {
				t.Errorf("not refreshed after its interval: %+v", st)
			}
			wantCond(t, sm, v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonRollupsBuilt)
			checkRollupRowsBy(t, eng, ru, "day", c.decWhere)
		})
	}
}

// checkRollupRows compares the rollup table's rows with hand-written SQL
// over sales.orders (restricted by where): per region and month, the sum
// of amounts, the count of orders and the sum of quantities.
func checkRollupRows(t *testing.T, eng engine.Engine, ru *compiler.ArtifactRollup, where string) {
	t.Helper()
	checkRollupRowsBy(t, eng, ru, "month", where)
}

// checkRollupRowsBy is checkRollupRows for a rollup at grain.
func checkRollupRowsBy(t *testing.T, eng engine.Engine, ru *compiler.ArtifactRollup, grain, where string) {
	t.Helper()
	col := map[string]string{}
	for _, c := range ru.Columns {
		key := c.Member
		if c.Metric != "" {
			key = c.Metric
		}
		col[key] = eng.Dialect().QuoteIdent(c.Name)
	}
	got := rows(t, eng, "SELECT "+col["orders.region"]+", "+col["orders_total"]+", "+col["order_count"]+", "+col["total_qty"]+
		` FROM "ossie_views"."`+ru.Table+`" ORDER BY `+col["orders.region"]+", "+col["orders.order_date"])
	trunc := "date_trunc('" + grain + "', order_date)"
	want := rows(t, eng, "SELECT region, SUM(amount), COUNT(order_id), SUM(CAST(qty_text AS INTEGER)) FROM sales.orders "+where+
		" GROUP BY region, "+trunc+" ORDER BY region, "+trunc)
	wantRows(t, "rollup rows", got, want)
}

func rollupStates(t *testing.T, f *fixture) []v1alpha1.RollupState {
	t.Helper()
	var states []v1alpha1.RollupState
	if data, ok := f.configMap("sales").Data[v1alpha1.RollupsKey]; ok {
		if err := json.Unmarshal([]byte(data), &states); err != nil {
			t.Fatal(err)
		}
	}
	return states
}

func tables(t *testing.T, eng engine.Materializer) map[string]engine.Relation {
	t.Helper()
	rels, err := eng.Relations(context.Background(), []string{"ossie_views"})
	if err != nil {
		t.Fatal(err)
	}
	return rels
}

func exec(t *testing.T, eng engine.Engine, sql string) {
	t.Helper()
	if err := eng.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}
