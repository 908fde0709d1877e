package operator_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// shopViewsSpec is a small orders model with two governed views, the
// subject of the view lifecycle tests on every engine.
const shopViewsSpec = `
version: "0.2.0.dev0"
semantic_model:
  - name: shop
    datasets:
      - name: orders
        source: shop.orders
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
    metrics:
      - name: orders_total
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.amount)}]}
      - name: order_count
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(orders.order_id)}]}
governance:
  roles: [{name: analyst}]
views:
  - name: orders_by_region
    role: analyst
    metrics: [orders_total, order_count]
    dimensions: [{field: orders.region}]
  - name: orders_by_month
    role: analyst
    metrics: [order_count]
    dimensions: [{field: orders.order_date, grain: month}]
`

// shopTables creates the shop schema (the rows of test/e2e's shop model).
const shopTables = `CREATE SCHEMA shop;
CREATE TABLE shop.orders (order_id INTEGER PRIMARY KEY, region VARCHAR, order_date DATE, amount DECIMAL(10,2));
INSERT INTO shop.orders VALUES (1,'NA','2017-12-01',50.36),(2,'EMEA','2017-12-02',24.12),(3,'NA','2018-01-02',50.36)`

func shopSpec(t testing.TB) v1alpha1.SemanticModelSpec {
	t.Helper()
	var spec v1alpha1.SemanticModelSpec
	if err := yaml.UnmarshalStrict([]byte(shopViewsSpec), &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// viewEngine counts the view DDL the operator runs on an engine.
type viewEngine struct {
	engine.Engine
	viewer         engine.Viewer
	applies, drops atomic.Int64
}

func (v *viewEngine) Relations(ctx context.Context, schema []string) (map[string]engine.Relation, error) {
	return v.viewer.Relations(ctx, schema)
}

func (v *viewEngine) ApplyView(ctx context.Context, d engine.ViewDef) error {
	v.applies.Add(1)
	return v.viewer.ApplyView(ctx, d)
}

func (v *viewEngine) DropView(ctx context.Context, schema []string, name string) error {
	v.drops.Add(1)
	return v.viewer.DropView(ctx, schema, name)
}

// openShop opens a DuckDB database file with the shop tables.
func openShop(t testing.TB) *viewEngine {
	t.Helper()
	eng, err := duckdb.Open(t.TempDir() + "/warehouse.duckdb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	for _, stmt := range strings.Split(shopTables, ";") {
		if err := eng.Exec(context.Background(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	return &viewEngine{Engine: eng, viewer: eng}
}

// shopEngines opens the engines the lifecycle runs on, each with the shop
// tables: DuckDB in a temporary file, a fresh database on the shared
// PostgreSQL test server, and the memory catalog of the shared real Trino.
func shopEngines() map[string]func(t *testing.T) *viewEngine {
	return map[string]func(t *testing.T) *viewEngine{
		"duckdb": func(t *testing.T) *viewEngine { return openShop(t) },
		"postgres": func(t *testing.T) *viewEngine {
			dsn := pgtest.Shared(t).NewDatabase(t)
			eng, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			if err := eng.Exec(context.Background(), shopTables); err != nil {
				t.Fatal(err)
			}
			return &viewEngine{Engine: eng, viewer: eng}
		},
		"trino": openTrinoShop,
	}
}

// rows reads a view (or any SELECT) on the engine.
func rows(t *testing.T, eng engine.Engine, sql string) [][]any {
	t.Helper()
	res, err := eng.Query(context.Background(), sql, 0)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res.Rows
}

func wantRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	if ok, why := casefile.Match(want, got, false, 1e-9); !ok {
		t.Errorf("%s: %s\ngot:\n%swant:\n%s", what, why, casefile.FormatRows(got), casefile.FormatRows(want))
	}
}

// relations lists the view schema.
func relations(t *testing.T, eng *viewEngine) map[string]engine.Relation {
	t.Helper()
	rels, err := eng.viewer.Relations(context.Background(), []string{"ossie_views"})
	if err != nil {
		t.Fatal(err)
	}
	return rels
}

// The whole life of two views on DuckDB, PostgreSQL and Trino: created under
// their role with an ownership comment, left alone when nothing changed
// (no API write, no DDL), replaced when their definition changes (also
// when the columns change, which PostgreSQL's CREATE OR REPLACE refuses),
// renamed (the old one dropped), removed from the spec (dropped), and
// dropped by the finalizer when the model is deleted.
func TestViewLifecycle(t *testing.T) {
	for name, open := range shopEngines() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, operator.Options{})
			eng := open(t)
			f.setEngine(eng)
			f.create("shop", shopSpec(t))
			f.mustReconcile("shop")
			sm := f.get("shop")
			wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
			wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
			if len(sm.Status.Views) != 2 || sm.Status.Views[0].Relation != `"ossie_views"."orders_by_region"` || sm.Status.Views[0].Role != "analyst" ||
				strings.Join(sm.Status.Views[0].Columns, ",") != "orders.region,orders_total,order_count" ||
				strings.Join(sm.Status.Views[1].Columns, ",") != "orders.order_date.month,order_count" {
				t.Errorf("status.views %+v", sm.Status.Views)
			}
			if !controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerViews) {
				t.Errorf("no finalizer: %v", sm.Finalizers)
			}
			if got := sm.Annotations[v1alpha1.AnnotationViews]; got != `[{"schema":"ossie_views","name":"orders_by_month"},{"schema":"ossie_views","name":"orders_by_region"}]` {
				t.Errorf("annotation %s", got)
			}
			wantRows(t, "orders_by_region", rows(t, eng, `SELECT * FROM ossie_views.orders_by_region ORDER BY 1`),
				[][]any{{"EMEA", 24.12, 1}, {"NA", 100.72, 2}})
			wantRows(t, "orders_by_month", rows(t, eng, `SELECT CAST(CAST("orders.order_date.month" AS DATE) AS VARCHAR), order_count FROM ossie_views.orders_by_month ORDER BY 1`),
				[][]any{{"2017-12-01", 2}, {"2018-01-01", 1}})
			rel := relations(t, eng)["orders_by_region"]
			if !rel.View || !strings.Contains(rel.Comment, "ossie.dev/owner="+f.ns+"/shop") || !strings.Contains(rel.Comment, "ossie.dev/uid="+string(sm.UID)) {
				t.Errorf("ownership comment %+v", rel)
			}

			// Nothing changed: no API write and no DDL.
			f.writes.Reset()
			applies := eng.applies.Load()
			for range 2 {
				f.mustReconcile("shop")
			}
			if n := f.writes.Load(); n != 0 {
				t.Errorf("%d API writes for unchanged views", n)
			}
			if n := eng.applies.Load() - applies; n != 0 {
				t.Errorf("%d view DDL statements for unchanged views", n)
			}

			// A new filter and one column fewer: replaced in place.
			f.update("shop", func(s *v1alpha1.SemanticModelSpec) {
				s.Views[0].Metrics = []string{"orders_total"}
				s.Views[0].Filters = []v1alpha1.ViewFilter{{Field: "orders.region", Op: "in", Values: jsonValues(t, `"NA"`)}}
			})
			f.mustReconcile("shop")
			wantCond(t, f.get("shop"), v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
			wantRows(t, "replaced orders_by_region", rows(t, eng, `SELECT * FROM ossie_views.orders_by_region`), [][]any{{"NA", 100.72}})
			if v := f.get("shop").Status.Views; len(v) != 2 || v[0].Name != "orders_by_region" {
				t.Errorf("status.views out of spec order: %+v", v)
			}
			// The pass after a change writes nothing more.
			f.writes.Reset()
			f.mustReconcile("shop")
			if n := f.writes.Load(); n != 0 {
				t.Errorf("%d API writes on the pass after a replace", n)
			}
			if c := relations(t, eng)["orders_by_region"].Comment; c == rel.Comment || !strings.Contains(c, "ossie.dev/uid="+string(sm.UID)) {
				t.Errorf("comment after replace: %q", c)
			}

			// Renamed: the new name exists, the old one is gone.
			f.update("shop", func(s *v1alpha1.SemanticModelSpec) { s.Views[1].Name = "orders_monthly" })
			f.mustReconcile("shop")
			sm = f.get("shop")
			wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
			rels := relations(t, eng)
			if _, old := rels["orders_by_month"]; old || !rels["orders_monthly"].View {
				t.Errorf("after rename: %v", rels)
			}
			if got := sm.Annotations[v1alpha1.AnnotationViews]; got != `[{"schema":"ossie_views","name":"orders_by_region"},{"schema":"ossie_views","name":"orders_monthly"}]` {
				t.Errorf("annotation after rename %s", got)
			}
			if seen := f.eventReasons("shop", operator.EventViewsApplied); !contains(seen, operator.EventViewsApplied) {
				t.Errorf("events %v", seen)
			}

			// Removed from the spec: dropped.
			f.update("shop", func(s *v1alpha1.SemanticModelSpec) { s.Views = s.Views[:1] })
			f.mustReconcile("shop")
			if _, ok := relations(t, eng)["orders_monthly"]; ok {
				t.Error("a view removed from the spec was not dropped")
			}

			// Deleted: the finalizer drops the rest, then lets go.
			if err := f.api.Delete(f.ctx, f.get("shop")); err != nil {
				t.Fatal(err)
			}
			if _, err := f.reconcile("shop"); err != nil {
				t.Fatal(err)
			}
			if rels := relations(t, eng); len(rels) != 0 {
				t.Errorf("views left after deletion: %v", rels)
			}
			if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: "shop"}, &v1alpha1.SemanticModel{}); !apierrors.IsNotFound(err) {
				t.Errorf("the model is still there after finalization: %v", err)
			}
		})
	}
}

// A name held by something that is not this model's view — a table, a
// view someone made by hand, another model's view — is never touched.
func TestViewNameConflict(t *testing.T) {
	for name, open := range shopEngines() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, operator.Options{})
			eng := open(t)
			f.setEngine(eng)
			ctx := context.Background()
			for _, stmt := range []string{
				"CREATE SCHEMA ossie_views",
				"CREATE VIEW ossie_views.orders_by_region AS SELECT 42 AS answer",
				"CREATE TABLE ossie_views.orders_by_month (keep INTEGER)",
			} {
				if err := eng.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			f.create("shop", shopSpec(t))
			f.mustReconcile("shop")
			sm := f.get("shop")
			c := wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonNameConflict)
			if !strings.Contains(c.Message, "orders_by_region") || !strings.Contains(c.Message, "orders_by_month") {
				t.Errorf("message %s", c.Message)
			}
			wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished)
			wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonViewsNotReady)
			wantRows(t, "foreign view", rows(t, eng, "SELECT * FROM ossie_views.orders_by_region"), [][]any{{42}})
			if f.eventReasons("shop", operator.EventNameConflict); !strings.Contains(f.eventNotes(), "orders_by_region") {
				t.Error("no NameConflict event")
			}

			// Once the names are free, a second model claims the same views:
			// the first keeps them, the second is a NameConflict.
			for _, stmt := range []string{"DROP VIEW ossie_views.orders_by_region", "DROP TABLE ossie_views.orders_by_month"} {
				if err := eng.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			f.mustReconcile("shop")
			first := f.get("shop")
			wantCond(t, first, v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
			f.create("shop-copy", shopSpec(t))
			f.mustReconcile("shop-copy")
			second := f.get("shop-copy")
			c = wantCond(t, second, v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonNameConflict)
			if !strings.Contains(c.Message, "belongs to SemanticModel "+f.ns+"/shop ") {
				t.Errorf("message does not name the owner: %s", c.Message)
			}
			if len(second.Status.Views) != 0 || second.Annotations[v1alpha1.AnnotationViews] != "" {
				t.Errorf("the second model claims views: %+v %v", second.Status.Views, second.Annotations)
			}
			if !strings.Contains(relations(t, eng)["orders_by_region"].Comment, string(first.UID)) {
				t.Error("the first model's view was taken over")
			}
			// Deleting the second model drops nothing of the first's.
			if err := f.api.Delete(f.ctx, second); err != nil {
				t.Fatal(err)
			}
			if _, err := f.reconcile("shop-copy"); err != nil {
				t.Fatal(err)
			}
			if rels := relations(t, eng); len(rels) != 2 {
				t.Errorf("views after deleting the second model: %v", rels)
			}
		})
	}
}

// viewReclaimPolicy retain: deleting the model leaves its views, and no
// views finalizer holds the model (only the artifact one, whose pass
// deletes the ConfigMap).
func TestViewRetainPolicy(t *testing.T) {
	f := newFixture(t, operator.Options{})
	eng := openShop(t)
	f.setEngine(eng)
	spec := shopSpec(t)
	spec.ViewReclaimPolicy = v1alpha1.ViewReclaimRetain
	f.create("shop", spec)
	f.mustReconcile("shop")
	sm := f.get("shop")
	wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
	if len(sm.Finalizers) != 1 || sm.Finalizers[0] != v1alpha1.FinalizerArtifact {
		t.Errorf("finalizers %v under retain", sm.Finalizers)
	}
	if err := f.api.Delete(f.ctx, sm); err != nil {
		t.Fatal(err)
	}
	f.mustReconcile("shop")
	if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: "shop"}, &v1alpha1.SemanticModel{}); !apierrors.IsNotFound(err) {
		t.Errorf("the model waits for a finalizer: %v", err)
	}
	if rels := relations(t, eng); len(rels) != 2 {
		t.Errorf("retained views: %v", rels)
	}

	// A new model of the same name is another object: the retained views
	// are not its own. (envtest runs no garbage collector: the finalizer
	// deleted the old model's ConfigMap.)
	f.create("shop", shopSpec(t))
	f.mustReconcile("shop")
	wantCond(t, f.get("shop"), v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonNameConflict)
}

// A view the engine refuses is ViewsReady=False with the engine's message;
// the artifact is published all the same.
func TestViewFailureDoesNotBlockPublication(t *testing.T) {
	f := newFixture(t, operator.Options{ViewSchema: "no_such_db.views"})
	eng := openShop(t)
	f.setEngine(eng)
	f.create("shop", shopSpec(t))
	f.mustReconcile("shop")
	sm := f.get("shop")
	c := wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed)
	if !strings.Contains(c.Message, "no_such_db") || !strings.Contains(c.Message, "duckdb:") {
		t.Errorf("message lacks the engine's diagnostic: %s", c.Message)
	}
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonViewsNotReady)
	if f.configMap("shop") == nil {
		t.Error("not published")
	}
	if seen := f.eventReasons("shop", operator.EventViewFailed); !contains(seen, operator.EventViewFailed) {
		t.Errorf("events %v", seen)
	}
}

// Views are checked with the model: an undeclared role, unknown members
// and a relative date range are validation problems, all at once, with
// paths into spec.views; nothing is published or created.
func TestInvalidViewsAreValidationProblems(t *testing.T) {
	f := newFixture(t, operator.Options{})
	eng := openShop(t)
	f.setEngine(eng)
	spec := shopSpec(t)
	spec.Views[0].Role = "nobody"
	spec.Views[0].Metrics = []string{"orders_totl"}
	spec.Views[1].Filters = []v1alpha1.ViewFilter{{Field: "orders.order_date", Op: "in_date_range", Values: jsonValues(t, `"last 7 days"`)}}
	spec.Governance.Attributes = []ossie.GovernanceAttribute{{Name: "region"}}
	spec.Governance.Roles = append(spec.Governance.Roles, ossie.Role{Name: "regional",
		RowFilters: []ossie.RowFilter{{Dataset: "orders", Expression: "region = {{ caller.region }}"}}})
	spec.Views = append(spec.Views, v1alpha1.View{Name: "regional", Role: "regional", Metrics: []string{"order_count"}})
	// A member the role may not read is unknown to it, as on the server.
	spec.Governance.Roles = append(spec.Governance.Roles, ossie.Role{Name: "counter", Metrics: &ossie.Access{Allow: []string{"order_count"}}})
	spec.Views = append(spec.Views, v1alpha1.View{Name: "counted", Role: "counter", Metrics: []string{"order_count", "orders_total"}})
	f.create("shop", spec)
	f.mustReconcile("shop")
	sm := f.get("shop")
	wantCond(t, sm, v1alpha1.ConditionValidated, metav1.ConditionFalse, v1alpha1.ReasonValidationFailed)
	var got []string
	for _, p := range sm.Status.Problems {
		got = append(got, p.Code+" "+p.Path)
	}
	for _, want := range []string{"OSS2009 views[0].role", "OSS4002 views[0].metrics[0]", "OSS4005 views[1].filters", "OSS2017 views[2].role", "OSS4002 views[3].metrics[1]"} {
		if !contains(got, want) {
			t.Errorf("problems %v lack %s", got, want)
		}
	}
	if f.configMap("shop") != nil || len(relations(t, eng)) != 0 {
		t.Error("an invalid spec was published or created views")
	}
}

func jsonValues(t *testing.T, values ...string) []apiextensionsv1.JSON {
	t.Helper()
	out := make([]apiextensionsv1.JSON, len(values))
	for i, v := range values {
		out[i].Raw = []byte(v)
	}
	return out
}

// Names and filter values are data: a view name and a filter value
// written as SQL injections are quoted and escaped, the view reads them
// literally and the tables survive.
func TestViewNamesAndValuesAreQuoted(t *testing.T) {
	f := newFixture(t, operator.Options{})
	eng := openShop(t)
	f.setEngine(eng)
	spec := shopSpec(t)
	const evil = `x"; DROP TABLE shop.orders; --`
	spec.Views = spec.Views[:1]
	spec.Views[0].Name = evil
	spec.Views[0].Filters = []v1alpha1.ViewFilter{{Field: "orders.region", Op: "in", Values: jsonValues(t, `"NA'; DROP TABLE shop.orders; --"`, `"NA"`)}}
	f.create("shop", spec)
	f.mustReconcile("shop")
	sm := f.get("shop")
	wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
	if got := sm.Status.Views[0].Relation; got != `"ossie_views"."x""; DROP TABLE shop.orders; --"` {
		t.Errorf("relation %s", got)
	}
	wantRows(t, "view with a quoted name", rows(t, eng, `SELECT * FROM ossie_views."x""; DROP TABLE shop.orders; --"`), [][]any{{"NA", 100.72, 2}})
	wantRows(t, "tables intact", rows(t, eng, `SELECT count(*) FROM shop.orders`), [][]any{{3}})
}

// While the engine cannot drop the views of a deleted model, the
// finalizer holds it and the pass is retried; once the engine is back the
// views are dropped and the model goes.
func TestFinalizerWaitsForTheEngine(t *testing.T) {
	f := newFixture(t, operator.Options{EngineTimeout: 2 * time.Second})
	eng := openShop(t)
	f.setEngine(eng)
	f.create("shop", shopSpec(t))
	f.mustReconcile("shop")
	wantCond(t, f.get("shop"), v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)

	down, err := postgres.Open(context.Background(), postgres.Config{DSN: "postgres://ossie:pw@127.0.0.1:1/ossie?connect_timeout=1&sslmode=disable"})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	f.setEngine(down)
	if err := f.api.Delete(f.ctx, f.get("shop")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reconcile("shop"); err == nil {
		t.Fatal("finalization reported success without dropping the views")
	}
	if sm := f.get("shop"); !controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerViews) || sm.DeletionTimestamp.IsZero() {
		t.Errorf("the model is not held: %v", sm.Finalizers)
	}
	if len(relations(t, eng)) != 2 {
		t.Error("views changed while the engine was away")
	}

	f.setEngine(eng)
	if _, err := f.reconcile("shop"); err != nil {
		t.Fatal(err)
	}
	if rels := relations(t, eng); len(rels) != 0 {
		t.Errorf("views left: %v", rels)
	}
	if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: "shop"}, &v1alpha1.SemanticModel{}); !apierrors.IsNotFound(err) {
		t.Errorf("the model is still there: %v", err)
	}
}
