package plan

import (
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// renamed is a dialect spelled exactly like another under another name.
type renamed struct{ dialect.Dialect }

func (renamed) Name() string { return "renamed" }

// The renderer asks the dialect for spelling only: an engine spelled like
// DuckDB under another name gets DuckDB's SQL, for every query shape.
func TestRenderNeverAsksTheEngineName(t *testing.T) {
	p := shopPlanner(t, true)
	for _, body := range []string{
		`{"metrics":["net_revenue","units"],"dimensions":["order_lines.product",{"field":"orders.ordered_at","grain":"week","week_start":"sunday"}],"filters":[{"field":"customers.region","op":"in","values":["EU"]},{"metric":"revenue","op":"gt","values":[1]}],"order_by":[{"key":"units","dir":"desc"}],"limit":3,"offset":1,"timezone":"Asia/Tokyo"}`,
		`{"metrics":["revenue","refund_total"]}`,
	} {
		q, _ := ParseQuery([]byte(body))
		for _, c := range []*Caller{nil, {Roles: []string{"regional"}, Attributes: map[string]string{"region": "EU"}}} {
			want, probs := p.PlanFor(q, dialect.DuckDB, c)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			got, probs := p.PlanFor(q, renamed{dialect.DuckDB}, c)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if got.SQL != want.SQL {
				t.Fatalf("%s:\n%s\nwant\n%s", body, got.SQL, want.SQL)
			}
		}
	}
}
