package compiler

import (
	"strings"
	"testing"
)

// TestConversionToFilter: a conversion's to_filter is a row condition
// over the event-B dataset; anything else is OSS2045 naming what is
// wrong, and calculation takes MetricFlow's two values only.
func TestConversionToFilter(t *testing.T) {
	conv := func(extra string) string {
		return shop(typed("x", "COUNT(DISTINCT orders.customer_id)", `{"metric": {"version": 1, "type": "conversion", "entity": "orders.customer_id", "at": "orders.order_date", "to_entity": "customers.customer_id", "to_at": "customers.region", "count": 7, "unit": "day"`+extra+`}}`))
	}
	// shop has no time fields (at and to_at are refused): those problems are always
	// there; the test looks for the to_filter's own.
	tests := []struct {
		name, extra, want string
	}{
		{"a field of event A", `, "to_filter": "orders.amount > 1"`, "orders.amount is not a field of customers"},
		{"an unknown field", `, "to_filter": "customers.nope = 1"`, "dataset customers has no field nope"},
		{"a bare unknown field", `, "to_filter": "nope = 1"`, "dataset customers has no field nope"},
		{"an aggregate", `, "to_filter": "COUNT(customers.customer_id) > 1"`, "not an aggregate"},
		{"not SQL", `, "to_filter": "customers.region = ("`, "to_filter"},
		{"an unknown calculation", `, "calculation": "conversion_count"`, "calculation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := Validate(parseOK(t, conv(tt.extra)))
			if !strings.Contains(probs.Error(), tt.want) {
				t.Fatalf("problems do not mention %q:\n%s", tt.want, probs.Error())
			}
		})
	}
	for _, ok := range []string{`, "to_filter": "customers.region = 'EU'"`, `, "to_filter": "region IN ('EU', 'US')", "calculation": "conversions"`} {
		probs := Validate(parseOK(t, conv(ok)))
		for _, p := range probs {
			if !strings.Contains(p.Message, "the field is not a time dimension") {
				t.Errorf("%s: unexpected problem %s", ok, p.Message)
			}
		}
	}
	probs := Validate(parseOK(t, shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all", "to_filter": "orders.amount > 1"}}`))))
	if !strings.Contains(probs.Error(), "OSS2041") {
		t.Errorf("to_filter on a cumulative metric: %s", probs.Error())
	}
}
