package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

func TestAggregatePerHome(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["revenue","order_count"],"dimensions":["customers.region"],"filters":[{"field":"orders.status","op":"=","values":["complete"]}]}`, nil)
	aggs := nodesOf[*aggregate](root)
	if len(aggs) != 1 || aggs[0].home != "orders" || len(aggs[0].measures) != 2 || aggs[0].madeBy() != rwAggregate {
		t.Fatalf("want one aggregate at orders with two measures, got %+v", aggs)
	}
	f, ok := aggs[0].input.(*filter)
	if !ok || len(f.dims) != 1 || f.dims[0].dm.name != "orders.status" {
		t.Fatalf("dimension filter below the aggregate: got %T", aggs[0].input)
	}
	j, ok := f.input.(*join)
	if !ok || j.dataset != "customers" || !j.toOne || j.rel.Name != "orders_to_customers" || j.by.dm == nil || j.by.dm.name != "customers.region" {
		t.Fatalf("customers joined many-to-one for customers.region: got %+v", f.input)
	}
	if s, ok := j.left.(*scan); !ok || s.dataset != "orders" {
		t.Fatalf("the join chain starts at the home scan: got %T", j.left)
	}
}

// Measures of different homes get one aggregate each, in first-use order
// (revenue_per_customer's two measures live at orders and customers).
func TestAggregatePerHomeSeveralHomes(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["refund_total","units","revenue_per_customer"]}`, nil)
	var homes []string
	for _, a := range nodesOf[*aggregate](root) {
		homes = append(homes, a.home)
	}
	if strings.Join(homes, " ") != "refunds order_lines orders customers" {
		t.Fatalf("homes %v, want [refunds order_lines orders customers]", homes)
	}
}

// euShop has a measure reading two datasets (home orders, customers
// reached many-to-one) and a one-to-many hop to lines.
const euShop = `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: orders
        source: orders
        primary_key: [id]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: customer_id, expression: {dialects: [{dialect: ANSI_SQL, expression: customer_id}]}}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}}
      - name: customers
        source: customers
        primary_key: [id]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: region, expression: {dialects: [{dialect: ANSI_SQL, expression: region}]}}
      - name: lines
        source: lines
        fields:
          - {name: order_id, expression: {dialects: [{dialect: ANSI_SQL, expression: order_id}]}}
          - {name: product, expression: {dialects: [{dialect: ANSI_SQL, expression: product}]}}
    relationships:
      - {name: orders_customers, from: orders, to: customers, from_columns: [customer_id], to_columns: [id]}
      - {name: lines_orders, from: lines, to: orders, from_columns: [order_id], to_columns: [id]}
    metrics:
      - name: eu_revenue
        expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(CASE WHEN customers.region = 'EU' THEN orders.amount END)"}]}
`

func euPlanner(t *testing.T) *Planner {
	t.Helper()
	arts, probs := compiler.Load([]byte(euShop), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A measure reading a second dataset joins it many-to-one from its home.
func TestAggregatePerHomeMeasureReads(t *testing.T) {
	root := planOf(t, euPlanner(t), `{"metrics":["eu_revenue"]}`, nil)
	agg := nodesOf[*aggregate](root)[0]
	j, ok := agg.input.(*join)
	if agg.home != "orders" || !ok || j.dataset != "customers" || !j.toOne || j.by.dm != nil {
		t.Fatalf("want orders joined to customers for the measure, got %s %T %+v", agg.home, agg.input, agg.input)
	}
}

// A member no relationship reaches is OSS4010 at its path, once even when
// several homes cannot reach it.
func TestAggregatePerHomeUnreachable(t *testing.T) {
	doc := `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: a
        source: a
        fields:
          - {name: x, expression: {dialects: [{dialect: ANSI_SQL, expression: x}]}}
      - name: b
        source: b
        fields:
          - {name: y, expression: {dialects: [{dialect: ANSI_SQL, expression: y}]}}
      - name: c
        source: c
        fields:
          - {name: z, expression: {dialects: [{dialect: ANSI_SQL, expression: z}]}}
    metrics:
      - {name: xs, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(a.x)}]}}
      - {name: ys, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(b.y)}]}}
`
	arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, _ := New(arts[0])
	q, _ := ParseQuery([]byte(`{"metrics":["xs","ys"],"dimensions":["c.z"],"filters":[{"field":"c.z","op":"is_null"}]}`))
	_, probs = p.Plan(q, dialect.DuckDB)
	if len(probs) != 2 || probs[0].Code != compiler.CodeUnreachable || probs[0].Path != "dimensions[0]" ||
		probs[1].Code != compiler.CodeUnreachable || probs[1].Path != "filters[0]" {
		t.Fatalf("want OSS4010 at dimensions[0] and filters[0], got %v", probs)
	}
}
