package operator_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// eventsViewSpec has time fields that declare no datatype: ts over a
// TIMESTAMPTZ column (the engine makes it a DateTimeTz), day_on over a
// DATE column (a Date). by_day buckets ts in Amsterdam days.
const eventsViewSpec = `
version: "0.2.0.dev0"
semantic_model:
  - name: ev
    datasets:
      - name: events
        source: ev.events
        primary_key: [id]
        fields:
          - name: id
            expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}
          - name: ts
            expression: {dialects: [{dialect: ANSI_SQL, expression: ts}]}
            dimension: {is_time: true}
          - name: day_on
            expression: {dialects: [{dialect: ANSI_SQL, expression: day_on}]}
            dimension: {is_time: true}
    metrics:
      - name: cnt
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(events.id)}]}
      - name: n_3h
        expression: {dialects: [{dialect: ANSI_SQL, expression: cnt}]}
        custom_extensions:
          - {vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "rolling", "count": 3, "unit": "hour"}}'}
governance:
  roles: [{name: analyst}]
views:
  - name: by_day
    role: analyst
    metrics: [cnt]
    dimensions: [{field: events.ts, grain: day}]
    timezone: Europe/Amsterdam
`

// Instants around midnight UTC: 2023-12-31 23:20Z is 00:20 on 1 January
// in Amsterdam and 2024-01-01 23:30Z 00:30 on the 2nd, so UTC days count
// 1 and 2, Amsterdam days 2 and 1.
var eventsTables = map[string][]string{
	"duckdb": {"CREATE SCHEMA ev", `CREATE TABLE ev.events (id INTEGER, ts TIMESTAMPTZ, day_on DATE)`,
		`INSERT INTO ev.events VALUES (1, TIMESTAMPTZ '2023-12-31 23:20:00+00', DATE '2023-12-31'), (2, TIMESTAMPTZ '2024-01-01 12:00:00+00', DATE '2024-01-01'), (3, TIMESTAMPTZ '2024-01-01 23:30:00+00', DATE '2024-01-01')`},
	"postgres": {"CREATE SCHEMA ev", `CREATE TABLE ev.events (id INTEGER, ts TIMESTAMPTZ, day_on DATE)`,
		`INSERT INTO ev.events VALUES (1, TIMESTAMPTZ '2023-12-31 23:20:00+00', DATE '2023-12-31'), (2, TIMESTAMPTZ '2024-01-01 12:00:00+00', DATE '2024-01-01'), (3, TIMESTAMPTZ '2024-01-01 23:30:00+00', DATE '2024-01-01')`},
	"trino": {"CREATE SCHEMA memory.ev", `CREATE TABLE memory.ev.events (id INTEGER, ts TIMESTAMP(6) WITH TIME ZONE, day_on DATE)`,
		`INSERT INTO memory.ev.events VALUES (1, TIMESTAMP '2023-12-31 23:20:00 UTC', DATE '2023-12-31'), (2, TIMESTAMP '2024-01-01 12:00:00 UTC', DATE '2024-01-01'), (3, TIMESTAMP '2024-01-01 23:30:00 UTC', DATE '2024-01-01')`},
}

// The answer by Amsterdam day, written by hand in each engine's SQL.
var eventsByDaySQL = map[string]string{
	"duckdb":   `SELECT CAST(CAST(date_trunc('day', timezone('Europe/Amsterdam', ts)) AS DATE) AS VARCHAR), COUNT(*) FROM ev.events GROUP BY 1 ORDER BY 1`,
	"postgres": `SELECT CAST(CAST(date_trunc('day', ts AT TIME ZONE 'Europe/Amsterdam') AS DATE) AS VARCHAR), COUNT(*) FROM ev.events GROUP BY 1 ORDER BY 1`,
	"trino":    `SELECT CAST(CAST(date_trunc('day', ts AT TIME ZONE 'Europe/Amsterdam') AS DATE) AS VARCHAR), COUNT(*) FROM memory.ev.events GROUP BY 1 ORDER BY 1`,
}

// A view is planned with the types the engine gives the fields that
// declare none (the published bundle's), not with the document alone: a
// time field over a TIMESTAMPTZ column is a DateTimeTz, bucketed in the
// view's time zone as a declared one is, on DuckDB, PostgreSQL and Trino;
// and a view the engine's types make impossible (an hour window over a
// field that is a Date there) is refused, ViewsReady=False with OSS4061,
// leaving the views in place as they are. Before, views were planned
// before the bind: by_day counted UTC days and the hour window was
// created.
func TestViewsUseEngineTypes(t *testing.T) {
	opens := map[string]func(t *testing.T) *viewEngine{
		"duckdb": func(t *testing.T) *viewEngine {
			eng, err := duckdb.Open(t.TempDir() + "/warehouse.duckdb")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			return &viewEngine{Engine: eng, viewer: eng}
		},
		"postgres": func(t *testing.T) *viewEngine {
			eng, err := postgres.Open(context.Background(), postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			return &viewEngine{Engine: eng, viewer: eng}
		},
		"trino": func(t *testing.T) *viewEngine {
			eng := openTrino(t, "ev", "ev", "ossie_views")
			return &viewEngine{Engine: eng, viewer: eng}
		},
	}
	for name, open := range opens {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, operator.Options{})
			eng := open(t)
			for _, s := range eventsTables[name] {
				if err := eng.Exec(context.Background(), s); err != nil {
					t.Fatal(err)
				}
			}
			f.setEngine(eng)
			var spec v1alpha1.SemanticModelSpec
			if err := yaml.UnmarshalStrict([]byte(eventsViewSpec), &spec); err != nil {
				t.Fatal(err)
			}
			f.create("ev", spec)
			f.mustReconcile("ev")
			wantCond(t, f.get("ev"), v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
			want := rows(t, eng, eventsByDaySQL[name])
			if ok, why := casefile.Match([][]any{{"2024-01-01", 2}, {"2024-01-02", 1}}, want, false, 0); !ok {
				t.Fatalf("the hand-written SQL: %s", why)
			}
			byDay := `SELECT CAST(CAST("events.ts.day" AS DATE) AS VARCHAR), cnt FROM ossie_views.by_day ORDER BY 1`
			wantRows(t, "by_day", rows(t, eng, byDay), want)

			// Drift (a column the model reads is dropped; Trino's memory
			// connector cannot drop one): the published version keeps
			// serving, and its views keep its engine types.
			if name != "trino" {
				if err := eng.Exec(context.Background(), "ALTER TABLE ev.events DROP COLUMN day_on"); err != nil {
					t.Fatal(err)
				}
				f.mustReconcile("ev")
				wantCond(t, f.get("ev"), v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift)
				wantRows(t, "by_day while drifted", rows(t, eng, byDay), want)
				if err := eng.Exec(context.Background(), "ALTER TABLE ev.events ADD COLUMN day_on DATE"); err != nil {
					t.Fatal(err)
				}
			}

			f.update("ev", func(s *v1alpha1.SemanticModelSpec) {
				s.Views = append(s.Views, v1alpha1.View{Name: "hours_of_dates", Role: "analyst", Metrics: []string{"n_3h"},
					Dimensions: []v1alpha1.ViewDimension{{Field: "events.day_on", Grain: "day"}}})
			})
			f.mustReconcile("ev")
			sm := f.get("ev")
			wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished)
			c := wantCond(t, sm, v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed)
			if !strings.Contains(c.Message, "OSS4061") || !strings.Contains(c.Message, "views[1]") {
				t.Errorf("ViewsReady message: %s", c.Message)
			}
			rels := relations(t, eng)
			if _, made := rels["hours_of_dates"]; made || !rels["by_day"].View {
				t.Errorf("views after a refused plan: %v", rels)
			}
		})
	}
}
