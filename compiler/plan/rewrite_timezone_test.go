package plan

import "testing"

func TestTimezone(t *testing.T) {
	p := shopPlanner(t, false)
	for _, tc := range []struct {
		body, dim, zone string
	}{
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"month"}],"timezone":"America/New_York"}`, "orders.ordered_at.month", "America/New_York"},
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"day"}]}`, "orders.ordered_at.day", "UTC"},
		{`{"metrics":["refund_total"],"dimensions":[{"field":"refunds.refunded_on","grain":"month"}],"timezone":"Asia/Tokyo"}`, "refunds.refunded_on.month", ""},
	} {
		root := planOf(t, p, tc.body, nil)
		dm := nodesOf[*aggregate](root)[0].dims[0]
		if dm.name != tc.dim || dm.zone != tc.zone {
			t.Fatalf("%s: %s zone %q, want %q", tc.body, dm.name, dm.zone, tc.zone)
		}
	}
	// Filters on zoned fields are compared in the query zone too.
	root := planOf(t, p, `{"metrics":["revenue"],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["2024-01-01","2024-01-31"]}],"timezone":"Europe/Amsterdam"}`, nil)
	f := nodesOf[*filter](root)[0]
	if f.dims[0].dm.zone != "Europe/Amsterdam" {
		t.Fatalf("filter zone %q", f.dims[0].dm.zone)
	}
}
