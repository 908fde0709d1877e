package plan

import (
	"testing"
)

func TestDedupFanOut(t *testing.T) {
	p := shopPlanner(t, false)
	for _, body := range []string{
		`{"metrics":["revenue"],"dimensions":["order_lines.product"]}`,
		`{"metrics":["revenue"],"filters":[{"field":"order_lines.product","op":"=","values":["pen"]}]}`,
	} {
		root := planOf(t, p, body, nil)
		ds := nodesOf[*distinct](root)
		if len(ds) != 1 || ds[0].home != "orders" || len(ds[0].key) != 1 || ds[0].key[0] != "order_id" || ds[0].madeBy() != rwFanOut {
			t.Fatalf("%s: want a distinct on orders.order_id, got %+v", body, ds)
		}
		if len(ds[0].fan) != 1 || ds[0].fan[0].rel != "lines_to_orders" || ds[0].fan[0].one != "orders" || ds[0].fan[0].many != "order_lines" {
			t.Fatalf("%s: fan-out hop %+v", body, ds[0].fan)
		}
		agg := nodesOf[*aggregate](root)[0]
		kj, ok := agg.input.(*keyJoin)
		if !agg.keyed || !ok || kj.left != ds[0] {
			t.Fatalf("%s: the aggregate reads the home joined back on its key, got %T", body, agg.input)
		}
		if s, ok := kj.right.(*scan); !ok || s.dataset != "orders" {
			t.Fatalf("%s: key join right side %T", body, kj.right)
		}
	}
}

// Many-to-one paths, and one-to-many paths seen from the many side, never
// repeat home rows: no distinct.
func TestDedupFanOutDoesNotFire(t *testing.T) {
	p := shopPlanner(t, false)
	for _, body := range []string{
		`{"metrics":["revenue"],"dimensions":["customers.region"]}`,
		`{"metrics":["units"],"dimensions":["orders.status","customers.region"]}`,
	} {
		root := planOf(t, p, body, nil)
		if ds := nodesOf[*distinct](root); len(ds) != 0 {
			t.Fatalf("%s: unexpected distinct %+v", body, ds)
		}
		if nodesOf[*aggregate](root)[0].keyed {
			t.Fatalf("%s: aggregate keyed without a fan-out", body)
		}
	}
}

// The distinct covers the dimensions and filters only; a measure's extra
// dataset is joined after the key join.
func TestDedupFanOutMeasureReads(t *testing.T) {
	root := planOf(t, euPlanner(t), `{"metrics":["eu_revenue"],"dimensions":["lines.product"]}`, nil)
	agg := nodesOf[*aggregate](root)[0]
	j, ok := agg.input.(*join)
	if !ok || j.dataset != "customers" || j.madeBy() != rwFanOut {
		t.Fatalf("want customers joined above the key join, got %T", agg.input)
	}
	if _, ok := j.left.(*keyJoin); !ok {
		t.Fatalf("want the key join under the measure's join, got %T", j.left)
	}
}
