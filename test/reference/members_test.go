package reference

import (
	"errors"
	"testing"
)

// A query without metrics lists the members of the rows of its through:
// customers' own regions (eu, us), or those the orders carry (eu, and
// NULL for orders 4 and 5); a through that does not reach the members,
// or one with a metric, is refused.
func TestMembersThrough(t *testing.T) {
	m, tables := shop()
	check(t, eval(t, m, tables, `{"dimensions":["customers.region"]}`), false, []string{"customers.region"}, []any{"eu"}, []any{"us"})
	check(t, eval(t, m, tables, `{"dimensions":["customers.region"],"through":"orders"}`), false, []string{"customers.region"}, []any{"eu"}, []any{nil})
	for q, code := range map[string]string{
		`{"dimensions":["orders.status"],"through":"customers"}`: "OSS4012",
		`{"metrics":["revenue"],"through":"orders"}`:             "OSS4001",
		`{"dimensions":["orders.status"],"through":"order"}`:     "OSS4003",
	} {
		_, err := Evaluate(Input{Model: m, Tables: tables, Query: []byte(q)})
		var ref *Refused
		if !errors.As(err, &ref) || ref.Code != code {
			t.Errorf("%s: %v, want %s", q, err, code)
		}
	}
}
