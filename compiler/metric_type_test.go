package compiler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// typed renders a metric with an OSSIE custom extension holding data.
func typed(name, sql, data string) string {
	return fmt.Sprintf("{name: %s, expression: {dialects: [{dialect: ANSI_SQL, expression: %q}]}, custom_extensions: [{vendor_name: OSSIE, data: %q}]}", name, sql, data)
}

func TestMetricTypes(t *testing.T) {
	const m2 = "semantic_model[0].metrics[2]"
	const at = m2 + ".custom_extensions[0].data.metric"
	const pm1 = "semantic_model[0].metrics[1]"
	tests := []struct {
		name string
		doc  string
		want []string
		msg  string
	}{
		{"cumulative to date", shop(typed("ytd", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "to_date", "grain": "year"}}`)), nil, ""},
		{"other vendors are left alone", shop(strings.Replace(typed("x", "revenue", `not json`), "OSSIE", "acme", 1)), nil, ""},
		{"data not JSON", shop(typed("x", "revenue", `cumulative`)),
			[]string{"error OSS2022 " + m2 + ".custom_extensions[0].data"}, "must be a JSON object"},
		{"a type and a via in one extension", shop(typed("x", "revenue", `{"via": ["nope"], "metric": {"version": 1, "type": "cumulative", "window": "all"}}`)),
			[]string{"error OSS2022 " + m2 + ".custom_extensions"}, "nope"},
		{"a type on a dataset", strings.Replace(shop(), "source: shop.orders", `source: shop.orders
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "cumulative", "window": "all"}}'}]`, 1),
			[]string{"error OSS2022 " + "semantic_model[0].datasets[0].custom_extensions[0].data"}, "timezone"},
		{"every schema violation at its path", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "rolling", "count": 0, "unit": "fortnight"}}`)),
			[]string{"error OSS2041 " + at + ".count", "error OSS2041 " + at + ".unit"}, "minimum"},
		{"parameter of another type", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all", "count": 3}}`)),
			[]string{"error OSS2041 " + at + ".count"}, "not a parameter of this metric type"},
		{"to_date needs a grain", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "to_date"}}`)),
			[]string{"error OSS2041 " + at}, "grain"},
		{"unknown version", shop(typed("x", "revenue", `{"metric": {"version": 2, "type": "cumulative", "window": "all"}}`)),
			[]string{"error OSS2041 " + at + ".version"}, "1"},
		{"not additive", shop(typed("x", "COUNT(DISTINCT orders.customer_id)", `{"metric": {"version": 1, "type": "rolling", "count": 7, "unit": "day"}}`)),
			[]string{"error OSS2042 " + m2 + ".expression"}, "one SUM or COUNT"},
		{"semi-additive along a field of its dataset", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "semi_additive", "along": "orders.amount", "pick": "last"}}`)),
			[]string{"error OSS2044 " + m2 + ".custom_extensions"}, "not a time dimension"},
		{"semi-additive along another dataset", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "semi_additive", "along": "customers.region", "pick": "last"}}`)),
			[]string{"error OSS2044 " + m2 + ".custom_extensions"}, "of the dataset it aggregates (orders)"},
		{"semi-additive needs a pick", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "semi_additive", "along": "orders.amount"}}`)),
			[]string{"error OSS2041 " + at}, "pick"},
		{"conversion to a field of the same dataset", shop(typed("x", "COUNT(DISTINCT orders.customer_id)", `{"metric": {"version": 1, "type": "conversion", "entity": "orders.customer_id", "at": "orders.order_date", "to_entity": "orders.customer_id", "to_at": "orders.order_date", "count": 7, "unit": "day"}}`)),
			[]string{"error OSS2045 " + m2 + ".custom_extensions", "error OSS2045 " + m2 + ".custom_extensions", "error OSS2045 " + m2 + ".custom_extensions"}, "at orders.order_date: the field is not a time dimension"},
		{"conversion needs its window", shop(typed("x", "COUNT(DISTINCT orders.customer_id)", `{"metric": {"version": 1, "type": "conversion", "entity": "orders.customer_id", "at": "orders.order_date", "to_entity": "customers.customer_id", "to_at": "customers.region"}}`)),
			[]string{"error OSS2041 " + at}, "count"},
		{"a plain metric over a typed metric", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all"}}`), met("y", "x * 2")),
			nil, ""},
		{"a typed metric over a typed metric", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all"}}`), typed("z", "x", `{"metric": {"version": 1, "type": "period_over_period", "offset": "prior_year", "output": "value"}}`)),
			nil, ""},
		{"a typed metric over a typed metric over a typed metric", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all"}}`), typed("y", "x", `{"metric": {"version": 1, "type": "period_over_period", "offset": "prior_year", "output": "value"}}`), typed("z", "y", `{"metric": {"version": 1, "type": "rolling", "count": 2, "unit": "month"}}`)),
			[]string{"error OSS2043 semantic_model[0].metrics[4].expression"}, "a rolling metric over y"},
		{"a typed metric over a combination of typed metrics", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all"}}`), met("y", "x + revenue"), typed("z", "y", `{"metric": {"version": 1, "type": "rolling", "count": 2, "unit": "month"}}`)),
			[]string{"error OSS2042 semantic_model[0].metrics[4].expression", "error OSS2043 semantic_model[0].metrics[4].expression"}, ""},
		// per (docs/metrics.md, "Per entity"): fields of the metric's
		// dataset, as one string or a list, with last or first only.
		{"one field", balancesDoc(semiPer(`"balances.account_id"`, "last")), nil, ""},
		{"a list of fields", balancesDoc(semiPer(`["balances.account_id", "balances.currency"]`, "first")), nil, ""},
		{"a field the dataset lacks", balancesDoc(semiPer(`"balances.acount_id"`, "last")),
			[]string{"error OSS2044 " + pm1 + ".custom_extensions"}, `per balances.acount_id: dataset balances has no field acount_id; did you mean "account_id"?`},
		{"a field of another dataset", balancesDoc(semiPer(`"accounts.account_id"`, "last")),
			[]string{"error OSS2044 " + pm1 + ".custom_extensions"}, `picks per entity of the dataset it aggregates (balances)`},
		{"a misspelt dataset", balancesDoc(semiPer(`"balance.account_id"`, "last")),
			[]string{"error OSS2044 " + pm1 + ".custom_extensions"}, `did you mean "balances.account_id"?`},
		{"one problem per bad field", balancesDoc(semiPer(`["balances.nope", "balances.account_id", "balances.none"]`, "last")),
			[]string{"error OSS2044 " + pm1 + ".custom_extensions", "error OSS2044 " + pm1 + ".custom_extensions"}, `balances.nope`},
		{"per with max", balancesDoc(semiPer(`"balances.account_id"`, "max")),
			[]string{"error OSS2041 " + pm1 + ".custom_extensions[0].data.metric.per"}, "not a parameter of this metric type"},
		{"per on a rolling metric", balancesDoc(typed("r", "balance_sum", `{"metric": {"version": 1, "type": "rolling", "count": 2, "unit": "day", "per": "balances.account_id"}}`)),
			[]string{"error OSS2041 " + pm1 + ".custom_extensions[0].data.metric.per"}, "not a parameter"},
		{"an empty list", balancesDoc(semiPer(`[]`, "last")),
			[]string{"error OSS2041 " + pm1 + ".custom_extensions[0].data.metric.per"}, ""},
		{"not dataset.field", balancesDoc(semiPer(`"account_id"`, "last")),
			[]string{"error OSS2041 " + pm1 + ".custom_extensions[0].data.metric.per"}, ""},
		{"a typed metric next to an aggregate", shop(typed("x", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "all"}}`), met("y", "x / COUNT(orders.order_id)")),
			[]string{"error OSS2043 semantic_model[0].metrics[3].expression"}, "combines metrics only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := Validate(parseOK(t, tt.doc))
			got := codePaths(probs)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q\n%s", got, tt.want, probs.Error())
			}
			if tt.msg != "" && !strings.Contains(probs[0].Message, tt.msg) {
				t.Fatalf("message %q does not mention %q", probs[0].Message, tt.msg)
			}
		})
	}
}

func TestMetricTypeInArtifact(t *testing.T) {
	arts, probs := Compile(parseOK(t, shop(typed("ytd", "revenue", `{"metric": {"version": 1, "type": "cumulative", "window": "to_date", "grain": "year"}}`))), CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	m := arts[0].Metric("ytd")
	if m.Type == nil || m.Type.Type != MetricCumulative || m.Type.Window != "to_date" || m.Type.Grain != "year" || m.Type.Version != 1 {
		t.Fatalf("artifact type %+v", m.Type)
	}
	if arts[0].Metric("revenue").Type != nil {
		t.Fatal("an untyped metric has no type")
	}
}
