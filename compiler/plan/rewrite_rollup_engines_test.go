package plan_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// shopRollups are rollups of the golden shop model over its hard cases:
// a zoned timestamp, NULL keys, a distinct count, two homes (orders and
// refunds) and a dimension behind a one-to-many hop (order_lines.product
// from orders).
const shopRollups = `[
 {"version": 1, "name": "orders_daily", "measures": ["revenue", "order_count", "completion_rate", "customers_with_orders"],
  "dimensions": ["customers.region", "orders.status", "orders.customer_id"], "time_dimension": {"field": "orders.ordered_at", "grain": "day"}},
 {"version": 1, "name": "net_by_region", "measures": ["revenue", "refund_total"], "dimensions": ["customers.region"]},
 {"version": 1, "name": "units_by_product", "measures": ["units", "revenue"], "dimensions": ["order_lines.product", "customers.region"]}]`

// shopRollupCases are queries of the shop model with the rollup that
// must answer ("" for the base tables).
var shopRollupCases = []struct{ query, rollup string }{
	{`{"metrics": ["revenue", "order_count", "completion_rate"], "dimensions": ["customers.region", {"field": "orders.ordered_at", "grain": "month"}]}`, "orders_daily"},
	{`{"metrics": ["customers_with_orders"], "dimensions": ["orders.status"]}`, "orders_daily"},
	{`{"metrics": ["revenue"], "dimensions": ["customers.region"], "filters": [{"field": "orders.status", "op": "=", "value": "complete"}]}`, "orders_daily"},
	{`{"metrics": ["net_revenue"], "dimensions": ["customers.region"]}`, "net_by_region"},
	{`{"metrics": ["units", "revenue"], "dimensions": ["order_lines.product"]}`, "units_by_product"},
	{`{"metrics": ["units", "revenue"], "dimensions": ["customers.region"]}`, ""},
	{`{"metrics": ["revenue_running"], "dimensions": [{"field": "orders.ordered_at", "grain": "week"}]}`, "orders_daily"},
	{`{"metrics": ["revenue"], "dimensions": ["customers.region"], "timezone": "America/New_York"}`, "orders_daily"},
	{`{"metrics": ["revenue"], "dimensions": [{"field": "orders.ordered_at", "grain": "day"}], "timezone": "Europe/Amsterdam"}`, ""},
}

func loadShopRollups(t *testing.T) *compiler.Artifact {
	t.Helper()
	data, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.TrimRight(string(data), "\n") + "\n    custom_extensions:\n      - vendor_name: OSSIE\n        data: '{\"rollups\": " + shopRollups + "}'\n"
	arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	return arts[0]
}

// checkShopRollups builds every shop rollup with run (its build SQL,
// in schema ossie), then plans each case with and without the rollups
// and compares the rows run returns.
func checkShopRollups(t *testing.T, d dialect.Dialect, exec func(sql string) error, run func(t *testing.T, sql string) [][]any) {
	base, with := buildShopRollups(t, d, exec)
	used := randomRollupQueries(t, base, with, d,
		[]string{"revenue", "order_count", "completion_rate", "customers_with_orders", "net_revenue", "units", "refund_total", "revenue_running", "revenue_per_customer"},
		[]plan.Dimension{{Field: "customers.region"}, {Field: "orders.status"}, {Field: "orders.customer_id"}, {Field: "order_lines.product"},
			{Field: "orders.ordered_at", Grain: "day"}, {Field: "orders.ordered_at", Grain: "week"}, {Field: "orders.ordered_at", Grain: "month"}, {Field: "orders.ordered_at", Grain: "hour"}},
		[]plan.Filter{{Field: "customers.region", Op: "=", Value: "NA"}, {Field: "orders.status", Op: "in", Values: []any{"complete", "pending"}},
			{Field: "customers.region", Op: "is_null"}, {Field: "orders.ordered_at", Grain: "month", Op: "gte", Value: "2024-04-01"},
			{Field: "order_lines.product", Op: "=", Value: "apple"}, {Metric: "revenue", Op: "gt", Value: 10}},
		run)
	if used["orders_daily"] < 20 { // the other rollups answer the fixed cases above
		t.Fatalf("too few queries answered from rollups to check anything: %v", used)
	}
	for _, c := range shopRollupCases {
		q := query(t, c.query)
		pl, probs := with.Plan(q, d)
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		if pl.Rollup != c.rollup {
			t.Errorf("%s: answered from %q, want %q\n%s", c.query, pl.Rollup, c.rollup, pl.Explain())
			continue
		}
		bp, _ := base.Plan(q, d)
		got, want := run(t, pl.SQL), run(t, bp.SQL)
		if len(want) == 0 {
			t.Fatalf("%s: the base answer is empty", c.query)
		}
		if diff := compareRows(got, want); diff != "" {
			t.Errorf("%s: %s\nrollup SQL: %s\n got: %v\nwant: %v", c.query, diff, pl.SQL, got, want)
		}
	}
}

// buildShopRollups builds every shop rollup with exec (its build SQL, in
// schema ossie) and returns planners of the shop model without and with
// them.
func buildShopRollups(t *testing.T, d dialect.Dialect, exec func(sql string) error) (base, with *plan.Planner) {
	t.Helper()
	art := loadShopRollups(t)
	if err := exec(`CREATE SCHEMA ossie`); err != nil {
		t.Fatal(err)
	}
	var states []plan.RollupState
	for _, r := range art.Rollups {
		rb, probs := plan.BuildRollup(art, r.Name, d)
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		if err := exec(`CREATE TABLE ossie.` + d.QuoteIdent(rb.Table) + ` AS ` + rb.SQL); err != nil {
			t.Fatalf("%v\n%s", err, rb.SQL)
		}
		states = append(states, plan.RollupState{Name: r.Name, Table: []string{"ossie", r.Table}, ArtifactVersion: art.Version, BuiltAt: builtAt})
	}
	base, _ = plan.New(art)
	with, _ = plan.New(art)
	with.Rollups = func() []plan.RollupState { return states }
	for _, p := range []*plan.Planner{base, with} {
		p.Now = func() time.Time { return builtAt }
	}
	return base, with
}

// checkRollupCountType: a COUNT answered from a rollup (the SUM of its
// count partials) has the engine type of the base tables' COUNT, so the
// answer's datatype does not change with the path (PostgreSQL types the
// SUM of BIGINTs NUMERIC, DuckDB HUGEINT). types gives the engine's
// column type names of a statement.
func checkRollupCountType(t *testing.T, d dialect.Dialect, exec func(sql string) error, types func(t *testing.T, sql string) []string) {
	base, with := buildShopRollups(t, d, exec)
	q := query(t, `{"metrics": ["order_count", "completion_rate", "customers_with_orders"], "dimensions": ["customers.region"]}`)
	pl, probs := with.Plan(q, d)
	if probs.HasErrors() || pl.Rollup != "orders_daily" {
		t.Fatalf("answered from %q, want orders_daily: %v\n%s", pl.Rollup, probs, pl.Explain())
	}
	bp, _ := base.Plan(q, d)
	got, want := types(t, pl.SQL), types(t, bp.SQL)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("column types from the rollup %v, from the base tables %v\nrollup SQL: %s", got, want, pl.SQL)
	}
}

func TestRollupCountTypeDuckDB(t *testing.T) {
	db := openShop(t)
	checkRollupCountType(t, dialect.DuckDB, func(s string) error { _, err := db.Exec(s); return err },
		func(t *testing.T, q string) []string {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			defer rows.Close()
			cts, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, c := range cts {
				out = append(out, c.DatabaseTypeName())
			}
			return out
		})
}

func TestRollupCountTypePostgres(t *testing.T) {
	eng := openShopPostgres(t)
	checkRollupCountType(t, dialect.Postgres, func(s string) error { return eng.Exec(context.Background(), s) },
		func(t *testing.T, q string) []string {
			res, err := eng.Query(context.Background(), q, 0)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			var out []string
			for _, c := range res.Columns {
				out = append(out, c.Type)
			}
			return out
		})
}

// TestRollupShopDuckDB: the shop rollups answer as the base tables do on
// DuckDB.
func TestRollupShopDuckDB(t *testing.T) {
	db := openShop(t)
	checkShopRollups(t, dialect.DuckDB, func(s string) error { _, err := db.Exec(s); return err },
		func(t *testing.T, q string) [][]any { return queryRows(t, db, q) })
}

// TestRollupShopPostgres: the same on a real PostgreSQL.
func TestRollupShopPostgres(t *testing.T) {
	eng := openShopPostgres(t)
	checkShopRollups(t, dialect.Postgres, func(s string) error { return eng.Exec(context.Background(), s) },
		func(t *testing.T, q string) [][]any { return pgRows(t, eng, q) })
}
