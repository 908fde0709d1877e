package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// The one-to-many join below a fan-out distinct is inner (an order without
// lines is in no product group); the many-to-one joins stay LEFT JOINs.
func TestFanMembers(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["revenue"],"dimensions":["order_lines.product","customers.region"]}`, nil)
	var inner, left []string
	for _, j := range nodesOf[*join](root) {
		if j.inner {
			inner = append(inner, j.dataset)
			if j.toOne || j.madeBy() != rwFanMembers {
				t.Fatalf("only one-to-many joins are made inner, by %s: %+v", rwFanMembers, j)
			}
		} else {
			left = append(left, j.dataset)
		}
	}
	if strings.Join(inner, ",") != "order_lines" || !strings.Contains(strings.Join(left, ","), "customers") {
		t.Fatalf("inner %v, left %v", inner, left)
	}
	q, _ := ParseQuery([]byte(`{"metrics":["revenue"],"dimensions":["order_lines.product"]}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if ex := pl.Explain(); !strings.Contains(ex, "join order_lines along lines_to_orders (one-to-many orders → order_lines)  [fan-out members:") ||
		!strings.Contains(ex, "is in none of their groups (not in their NULL group)") {
		t.Fatalf("EXPLAIN shows the rule:\n%s", ex)
	}
	// Without a fan-out nothing is inner.
	for _, j := range nodesOf[*join](planOf(t, p, `{"metrics":["revenue"],"dimensions":["customers.region"]}`, nil)) {
		if j.inner {
			t.Fatalf("many-to-one join made inner: %+v", j)
		}
	}
}
