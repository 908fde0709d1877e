package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Every node is one line naming its rewrite; the fan-out line says which
// member crosses which one-to-many relationship.
func TestExplain(t *testing.T) {
	p := shopPlanner(t, false)
	q, _ := ParseQuery([]byte(`{"metrics":["revenue","refund_total"],"dimensions":["order_lines.product",{"field":"orders.ordered_at","grain":"month"}],"filters":[{"metric":"revenue","op":"gt","values":[1]}],"limit":5,"timezone":"Asia/Tokyo"}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	out := pl.Explain()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	n := 0
	var count func(node)
	count = func(x node) {
		n++
		for _, in := range x.inputs() {
			count(in)
		}
	}
	count(pl.tree)
	nodeLines := 0
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "·") {
			nodeLines++
		}
		if !strings.Contains(l, "  [") || !strings.HasSuffix(l, "]") {
			t.Errorf("line without its rewrite: %q", l)
		}
	}
	if nodeLines != n {
		t.Errorf("%d node lines for %d nodes:\n%s", nodeLines, n, out)
	}
	for _, want := range []string{
		"limit 5  [order and limit:",
		"filter revenue gt 1  [metric filters:",
		"stacked, grouped on the dimensions  [chasm-safe combine:",
		"distinct on orders primary key (order_id)  [fan-out dedup: distinct on orders primary key: dimension order_lines.product is reached through one-to-many orders → order_lines (lines_to_orders)",
		"· dimension orders.ordered_at.month in time zone Asia/Tokyo  [query time zone:",
		"aggregate g1 at refunds by order_lines.product, orders.ordered_at.month  [per-home aggregation:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	if (&Plan{}).Explain() != "" {
		t.Error("a Plan not made by a Planner explains nothing")
	}
}
