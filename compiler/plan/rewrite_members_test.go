package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Without a metric the query is one group without measures at the
// dataset reaching every other member's dataset many-to-one: here orders
// (customers reaches orders only through a one-to-many hop).
func TestDistinctMembers(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"dimensions":["customers.region","orders.status"]}`, nil)
	aggs := nodesOf[*aggregate](root)
	if len(aggs) != 1 || aggs[0].home != "orders" || len(aggs[0].measures) != 0 || aggs[0].madeBy() != rwMembers {
		t.Fatalf("want one distinct-members aggregate at orders, got %+v", aggs)
	}
	if len(nodesOf[*distinct](root)) != 0 {
		t.Fatal("members reached many-to-one need no fan-out dedup")
	}
	js := nodesOf[*join](root)
	if len(js) != 1 || js[0].dataset != "customers" || !js[0].toOne {
		t.Fatalf("customers joined many-to-one: %+v", js)
	}
	q, _ := ParseQuery([]byte(`{"dimensions":["customers.region"],"filters":[{"field":"customers.region","op":"=","values":["EU"]}]}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if a := nodesOf[*aggregate](pl.tree); len(a) != 1 || a[0].home != "customers" {
		t.Fatalf("one dataset: it is the home, got %+v", a)
	}
	if ex := pl.Explain(); !strings.Contains(ex, "distinct members: no metric: the distinct members present in customers rows") {
		t.Fatalf("EXPLAIN names the rewrite and its reason:\n%s", ex)
	}
	if !strings.Contains(pl.SQL, "GROUP BY 1") {
		t.Fatalf("the distinct is a GROUP BY on the dimensions:\n%s", pl.SQL)
	}
}

// With a metric, even one named only by a filter, the rewrite does not fire.
func TestDistinctMembersNotWithAMetric(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"dimensions":["customers.region"],"filters":[{"metric":"order_count","op":"gt","values":[0]}]}`, nil)
	for _, a := range nodesOf[*aggregate](root) {
		if a.madeBy() == rwMembers || len(a.measures) == 0 {
			t.Fatalf("a metric query has measure groups only: %+v", a)
		}
	}
}
