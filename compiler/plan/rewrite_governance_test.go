package plan

import (
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

func TestGovernance(t *testing.T) {
	p := shopPlanner(t, true)
	body := `{"metrics":["order_count"],"dimensions":["customers.region","customers.Customer Name"]}`

	// Ungoverned: plain scans, values unmasked.
	root := planOf(t, p, body, nil)
	if rf := nodesOf[*rowFilter](root); len(rf) != 0 {
		t.Fatalf("ungoverned plan has row filters: %+v", rf)
	}
	for _, dm := range nodesOf[*aggregate](root)[0].dims {
		if dm.masked != nil {
			t.Fatalf("ungoverned %s masked", dm.name)
		}
	}

	// regional: customers narrowed wherever read, names partly masked;
	// orders stay a plain scan.
	root = planOf(t, p, body, &Caller{Roles: []string{"regional"}, Attributes: map[string]string{"region": "EU"}})
	rfs := nodesOf[*rowFilter](root)
	if len(rfs) != 1 || rfs[0].dataset != "customers" || rfs[0].madeBy() != rwGovernance {
		t.Fatalf("want customers row-filtered, got %+v", rfs)
	}
	for _, s := range nodesOf[*scan](root) {
		if s.dataset == "customers" {
			t.Fatal("a customers scan escaped the row filter")
		}
	}
	dims := nodesOf[*aggregate](root)[0].dims
	if dims[0].masked != nil || dims[1].masked == nil || dims[1].masked.Mask != compiler.MaskPartial {
		t.Fatalf("masks: region %v, name %v", dims[0].masked, dims[1].masked)
	}

	// ops: orders restricted; the fan-out plan reads orders twice (the
	// distinct and the key join), both narrowed.
	root = planOf(t, p, `{"metrics":["order_count"],"dimensions":["order_lines.product"]}`, &Caller{Roles: []string{"ops"}})
	if rfs := nodesOf[*rowFilter](root); len(rfs) != 2 || rfs[0].dataset != "orders" || rfs[1].dataset != "orders" {
		t.Fatalf("want orders narrowed in the distinct and the key join, got %+v", rfs)
	}
}
