package views

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

const doc = `version: "0.2.0.dev0"
semantic_model:
  - name: shop
    datasets:
      - name: orders
        source: orders
        fields:
          - name: day
            expression: {dialects: [{dialect: ANSI_SQL, expression: day}]}
            dimension: {is_time: true}
            datatype: Date
          - name: amount
            expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}
    metrics:
      - name: revenue
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.amount)}]}
`

func TestPlanSpec(t *testing.T) {
	gov := &ossie.Governance{Roles: []ossie.Role{{Name: "analyst"}}}
	arts, probs := compiler.LoadGoverned([]byte(doc), []byte(`roles: [{name: analyst}]`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	good := v1alpha1.View{Name: "by_day", Role: "analyst", Metrics: []string{"revenue"}, Dimensions: []v1alpha1.ViewDimension{{Field: "orders.day", Grain: "month"}}}
	plans, probs := PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{good}, Governance: gov}, arts, dialect.Postgres)
	if probs.HasErrors() || len(plans) != 1 || !strings.Contains(plans[0].SQL, `"orders"`) || !strings.HasPrefix(plans[0].Digest, "sha256:") ||
		strings.Join(plans[0].Columns, ",") != "orders.day.month,revenue" {
		t.Fatalf("%+v %v", plans, probs)
	}
	if sum := sha256.Sum256([]byte(plans[0].SQL)); plans[0].Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("digest %s is not the sha256 of the SQL", plans[0].Digest)
	}
	// An absolute range plans to the same SQL under both clocks.
	jan, _ := json.Marshal("2024-01-01")
	feb, _ := json.Marshal("2024-02-01")
	absolute := good
	absolute.Filters = []v1alpha1.ViewFilter{{Field: "orders.day", Op: "in_date_range", Values: []apiextensionsv1.JSON{{Raw: jan}, {Raw: feb}}}}
	if plans, probs := PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{absolute}, Governance: gov}, arts, dialect.Postgres); probs.HasErrors() || len(plans) != 1 {
		t.Errorf("absolute date range refused: %v", probs)
	}

	last7, _ := json.Marshal("last 7 days")
	// A role reading caller attributes: the view has no caller.
	callerGov := &ossie.Governance{Roles: []ossie.Role{{Name: "analyst"},
		{Name: "regional", RowFilters: []ossie.RowFilter{{Dataset: "orders", Expression: "amount > {{ caller.floor }}"}}}}}
	bad := []v1alpha1.View{
		{Name: "typo", Role: "analyst", Metrics: []string{"revenu"}},
		{Name: "ghost", Role: "boss", Metrics: []string{"revenue"}},
		{Name: "rel", Role: "analyst", Metrics: []string{"revenue"}, Filters: []v1alpha1.ViewFilter{{Field: "orders.day", Op: "in_date_range", Values: []apiextensionsv1.JSON{{Raw: last7}}}}},
		{Name: "regional", Role: "regional", Metrics: []string{"revenue"}},
		{Name: "elsewhere", Role: "analyst", Model: "warehouse", Metrics: []string{"revenue"}},
		{Name: "garbled", Role: "analyst", Metrics: []string{"revenue"}, Filters: []v1alpha1.ViewFilter{{Field: "orders.amount", Op: "equals", Values: []apiextensionsv1.JSON{{Raw: []byte("{")}}}}},
	}
	plans, probs = PlanSpec(&v1alpha1.SemanticModelSpec{Views: bad, Governance: callerGov}, arts, dialect.Postgres)
	var got []string
	for _, p := range probs.Errors() {
		got = append(got, p.Path+" "+p.Code)
	}
	if plans != nil {
		t.Errorf("plans %+v returned with errors", plans)
	}
	for _, want := range []string{"views[0].metrics[0] OSS4002", "views[1].role OSS2009", "views[2].filters OSS4005",
		"views[3].role OSS2017", "views[4].model OSS2009", "views[5].filters[0].values[0] OSS4005"} {
		if !slices.Contains(got, want) {
			t.Errorf("problems %v lack %s", got, want)
		}
	}
}

// A governed view of a typed metric (docs/metrics.md) holds the window
// over rows the role's row filter admits.
func TestPlanSpecTypedMetric(t *testing.T) {
	typed := doc + `      - name: revenue_ytd
        expression: {dialects: [{dialect: ANSI_SQL, expression: revenue}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "cumulative", "window": "to_date", "grain": "year"}}'}]
`
	gov := &ossie.Governance{Roles: []ossie.Role{{Name: "positive", RowFilters: []ossie.RowFilter{{Dataset: "orders", Expression: "amount > 0"}}}}}
	arts, probs := compiler.LoadGoverned([]byte(typed), []byte(`roles: [{name: positive, row_filters: [{dataset: orders, expression: "amount > 0"}]}]`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	v := v1alpha1.View{Name: "ytd", Role: "positive", Metrics: []string{"revenue_ytd"}, Dimensions: []v1alpha1.ViewDimension{{Field: "orders.day", Grain: "month"}}}
	plans, probs := PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{v}, Governance: gov}, arts, dialect.Postgres)
	if probs.HasErrors() || len(plans) != 1 {
		t.Fatalf("%+v %v", plans, probs)
	}
	sql := plans[0].SQL
	if !strings.Contains(sql, `SUM("b"."revenue_ytd") OVER (PARTITION BY CAST(date_trunc('year', "s"."t") AS DATE)`) || !strings.Contains(sql, `WHERE ((("orders"."amount") > 0))`) {
		t.Fatalf("view SQL lacks the year-to-date window or the row filter:\n%s", sql)
	}
	v.Dimensions = nil
	if _, probs := PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{v}, Governance: gov}, arts, dialect.Postgres); len(probs) != 1 || probs[0].Code != compiler.CodeWindowNoTime {
		t.Fatalf("a view of a typed metric without a time grain: %v", probs)
	}
}
