package plan

import "testing"

func TestCombineGroups(t *testing.T) {
	p := shopPlanner(t, false)
	for _, tc := range []struct {
		body   string
		mode   combineMode
		groups int
	}{
		{`{"metrics":["revenue","order_count"],"dimensions":["customers.region"]}`, combineOne, 1},
		{`{"metrics":["revenue","refund_total"]}`, combineCross, 2},
		{`{"metrics":["net_revenue"],"dimensions":["customers.region"]}`, combineStack, 2},
		{`{"metrics":["units","revenue","refund_total"],"dimensions":["customers.region"]}`, combineStack, 3},
	} {
		root := planOf(t, p, tc.body, nil)
		cs := nodesOf[*combine](root)
		if len(cs) != 1 || cs[0].mode != tc.mode || len(cs[0].groups) != tc.groups || cs[0].madeBy() != rwCombine {
			t.Fatalf("%s: want mode %d over %d groups, got %+v", tc.body, tc.mode, tc.groups, cs)
		}
		seen := map[string]bool{}
		for _, g := range cs[0].groups {
			if seen[g.home] {
				t.Fatalf("%s: two groups at %s", tc.body, g.home)
			}
			seen[g.home] = true
		}
	}
}
