package cases_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/cases/casefile"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// parallelModel: one fact related twice to one calendar (order date and
// ship date). The document is valid with warning OSS2020; the artifact
// records both candidate paths for a planner; a query that joins the
// calendar without a choice is refused (OSS4011) instead of being answered
// through whichever relationship comes first; queries that do not cross
// the choice answer as before.
const parallelModel = `
version: "0.2.0.dev0"
semantic_model:
  - name: shop
    datasets:
      - name: orders
        source: orders
        primary_key: [order_id]
        fields:
          - {name: order_id, expression: {dialects: [{dialect: ANSI_SQL, expression: order_id}]}}
          - {name: channel, expression: {dialects: [{dialect: ANSI_SQL, expression: channel}]}}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}}
      - name: calendar
        source: calendar
        primary_key: [day]
        fields:
          - {name: month, expression: {dialects: [{dialect: ANSI_SQL, expression: month}]}}
    relationships:
      - {name: orders_order_date, from: orders, to: calendar, from_columns: [order_day], to_columns: [day]}
      - {name: orders_ship_date, from: orders, to: calendar, from_columns: [ship_day], to_columns: [day]}
    metrics:
      - {name: revenue, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(orders.amount)"}]}}
      - name: shipped_revenue
        expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(orders.amount)"}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"via": ["orders_ship_date"]}'}]
`

const parallelTables = `
CREATE TABLE calendar (day DATE, month VARCHAR);
INSERT INTO calendar VALUES (DATE '2024-01-31', '2024-01'), (DATE '2024-02-01', '2024-02');
CREATE TABLE orders (order_id INTEGER, channel VARCHAR, order_day DATE, ship_day DATE, amount INTEGER);
INSERT INTO orders VALUES (1, 'web', DATE '2024-01-31', DATE '2024-02-01', 10), (2, 'shop', DATE '2024-01-31', DATE '2024-01-31', 7), (3, 'web', DATE '2024-02-01', NULL, 4);
`

func TestParallelRelationships(t *testing.T) {
	arts, probs := compiler.Load([]byte(parallelModel), compiler.CompileOptions{})
	if probs.HasErrors() || len(probs) != 1 || probs[0].Code != compiler.CodeAmbiguousPaths {
		t.Fatalf("want exactly one OSS2020 warning, got %v", probs)
	}
	art := arts[0]
	if len(art.JoinChoices) != 1 || art.JoinChoices[0].From != "orders" || art.JoinChoices[0].To != "calendar" ||
		len(art.JoinChoices[0].Paths) != 2 || art.JoinChoices[0].Paths[1][0] != "orders_ship_date" {
		t.Fatalf("join choices %+v", art.JoinChoices)
	}
	if m := art.Metric("shipped_revenue"); len(m.Via) != 1 || m.Via[0] != "orders_ship_date" {
		t.Fatalf("via %+v", m.Via)
	}
	planner, err := plan.New(art)
	if err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t)
	if err := eng.Exec(context.Background(), parallelTables); err != nil {
		t.Fatal(err)
	}
	t.Run("unchosen calendar join is refused naming both paths", func(t *testing.T) {
		q, _ := plan.ParseQuery([]byte(`{"metrics": ["revenue"], "dimensions": ["calendar.month"]}`))
		_, probs := planner.Plan(q, dialect.DuckDB)
		if len(probs) == 0 || probs[0].Code != compiler.CodeAmbiguousJoin ||
			!strings.Contains(probs[0].Message, "orders_order_date") || !strings.Contains(probs[0].Message, "orders_ship_date") {
			t.Fatalf("want OSS4011 naming both relationships, got %v", probs)
		}
	})
	refused := []struct{ name, query, code, says string }{
		{"via naming no relationship", `{"metrics": ["revenue"], "dimensions": [{"field": "calendar.month", "via": "orders_ship_dat"}]}`, compiler.CodeBadVia, `did you mean "orders_ship_date"`},
		{"via on no path to the member", `{"metrics": ["revenue"], "dimensions": [{"field": "orders.channel", "via": "orders_ship_date"}]}`, compiler.CodeBadVia, "the query's rows are orders's own, joined along no relationship"},
		{"one field twice along one path", `{"metrics": ["revenue"], "dimensions": [{"field": "calendar.month", "via": "orders_ship_date"}, {"field": "calendar.month", "via": "orders_ship_date"}]}`, compiler.CodeBadQuery, "calendar.month@orders_ship_date is listed twice"},
		{"order by a field selected along two paths", `{"metrics": ["revenue"], "dimensions": [{"field": "calendar.month", "via": "orders_ship_date"}, {"field": "calendar.month", "via": "orders_order_date"}], "order_by": [{"key": "calendar.month"}]}`, compiler.CodeBadOrderBy, "calendar.month@orders_ship_date, calendar.month@orders_order_date"},
		{"a pinned and an unpinned metric", `{"metrics": ["revenue", "shipped_revenue"], "dimensions": ["calendar.month"]}`, compiler.CodeAmbiguousJoin, "metric revenue pins none"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			q, probs := plan.ParseQuery([]byte(r.query))
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			_, probs = planner.Plan(q, dialect.DuckDB)
			if len(probs) != 1 || probs[0].Code != r.code || !strings.Contains(probs[0].Message, r.says) {
				t.Fatalf("want %s saying %q, got %v", r.code, r.says, probs)
			}
		})
	}
	t.Run("explain names the chosen relationship", func(t *testing.T) {
		for q, says := range map[string]string{
			`{"metrics": ["revenue"], "dimensions": [{"field": "calendar.month", "via": "orders_ship_date"}]}`:                                                          "left join calendar along orders_ship_date (many-to-one orders → calendar)  [per-home aggregation: dimension calendar.month@orders_ship_date reads it; rows do not repeat; orders_ship_date chosen of several paths by the query's via orders_ship_date]",
			`{"metrics": ["revenue"], "dimensions": [{"field": "calendar.month", "via": "orders_order_date"}, {"field": "calendar.month", "via": "orders_ship_date"}]}`: "left join calendar as calendar@orders_ship_date along orders_ship_date (many-to-one orders → calendar)  [per-home aggregation: dimension calendar.month@orders_ship_date reads it; rows do not repeat; orders_ship_date chosen of several paths by the query's via orders_ship_date; calendar is also joined along another path, so this path has its own alias]",
			`{"metrics": ["shipped_revenue"], "dimensions": ["calendar.month"]}`:                                                                                        "orders_ship_date chosen of several paths by metric shipped_revenue's pinned via",
		} {
			pq, _ := plan.ParseQuery([]byte(q))
			p, probs := planner.Plan(pq, dialect.DuckDB)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if ex := p.Explain(); !strings.Contains(ex, says) {
				t.Fatalf("EXPLAIN of %s lacks %q:\n%s", q, says, ex)
			}
		}
	})
	pg, err := postgres.Open(context.Background(), postgres.Config{DSN: pgtest.Shared(t).NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	if err := pg.Exec(context.Background(), parallelTables); err != nil {
		t.Fatal(err)
	}
	for _, on := range []struct {
		name string
		eng  engine.Engine
	}{{"duckdb", eng}, {"postgres", pg}} {
		t.Run("query not crossing the choice answers on "+on.name, func(t *testing.T) {
			q, _ := plan.ParseQuery([]byte(`{"metrics": ["revenue", "shipped_revenue"], "dimensions": ["orders.channel"]}`))
			p, probs := planner.Plan(q, on.eng.Dialect())
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			got, err := on.eng.Query(context.Background(), p.SQL, 0)
			if err != nil {
				t.Fatal(err)
			}
			want, err := on.eng.Query(context.Background(), `SELECT channel, SUM(amount), SUM(amount) FROM orders GROUP BY 1`, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := casefile.Match(want.Rows, got.Rows, false, 0); !ok {
				t.Fatalf("planned %v, hand-written %v: %s", got.Rows, want.Rows, why)
			}
		})
	}
}

// In the RW-01 constellation a dimension of the other fact dataset can be
// reached from orders through dates, products or stores, and each gives a
// different answer; with no way to choose yet, the query is refused
// (OSS4011) instead of using the first shared dimension in document order.
func TestConstellationCrossFactDimensionIsRefused(t *testing.T) {
	c, err := casefile.Load("RW-01")
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(c.Model, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	planner, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	q, _ := plan.ParseQuery([]byte(`{"metrics": ["sold"], "dimensions": ["returns.refund"]}`))
	_, probs = planner.Plan(q, dialect.DuckDB)
	if len(probs) == 0 || probs[0].Code != compiler.CodeAmbiguousJoin || !strings.Contains(probs[0].Message, "more than one route") {
		t.Fatalf("want OSS4011 naming two routes, got %v", probs)
	}
}
