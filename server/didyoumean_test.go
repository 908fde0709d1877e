package server

import (
	"strings"
	"testing"
)

// TestDimensionTypoHints: every way of naming a dimension gets a
// did-you-mean, also a typo in front of a grain suffix.
func TestDimensionTypoHints(t *testing.T) {
	f := newFixture(t, nil)
	for body, hint := range map[string]string{
		`{"metrics":["order_count"],"dimensions":["orders.stauts"]}`:                                `did you mean \"orders.status\"?`,
		`{"metrics":["order_count"],"dimensions":["orders.order_dat.month"]}`:                       `did you mean \"orders.order_date.month\"?`,
		`{"metrics":["order_count"],"dimensions":[{"field":"orders.order_dat","grain":"month"}]}`:   `did you mean \"orders.order_date\"?`,
		`{"metrics":["order_count"],"filters":[{"field":"orders.stauts","op":"=","values":["x"]}]}`: `did you mean \"orders.status\"?`,
	} {
		resp, b := f.do(t, "POST", "/v1/models/shop/query", body)
		wantProblem(t, resp, b, 400, "OSS4003")
		if !strings.Contains(string(b), hint) {
			t.Errorf("%s: no hint %s in %s", body, hint, b)
		}
	}
}
