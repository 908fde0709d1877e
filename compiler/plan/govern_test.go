package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// hiddenFrom lists the metrics and fields of the model that c may not read.
func hiddenFrom(p *plan.Planner, c *plan.Caller) (metrics, fields []string) {
	v := p.Visible(c)
	for _, m := range p.Artifact().Metrics {
		if !v.Metric(m.Name) {
			metrics = append(metrics, m.Name)
		}
	}
	for _, ds := range p.Artifact().Datasets {
		for _, f := range ds.Fields {
			if k := ds.Name + "." + f.Name; !v.Field(k) {
				fields = append(fields, k)
			}
		}
	}
	return metrics, fields
}

// A hidden member is reported exactly like a member that does not exist:
// same code, same message shape, and no hidden name in any suggestion.
func TestHiddenMembersAreUnknown(t *testing.T) {
	p := loadGovernedShop(t)
	ops := &plan.Caller{Roles: []string{"ops"}}
	hm, hf := hiddenFrom(p, ops)
	if !slices.Contains(hm, "revenue") || !slices.Contains(hf, "orders.amount") || !slices.Contains(hf, "customers.region") {
		t.Fatalf("ops should not read revenue, orders.amount, customers.region: %v %v", hm, hf)
	}
	for _, name := range hm {
		_, hidden := p.PlanFor(&plan.Query{Metrics: []string{name}}, dialect.DuckDB, ops)
		_, absent := p.PlanFor(&plan.Query{Metrics: []string{name + "_nope"}}, dialect.DuckDB, ops)
		if len(hidden) != 1 || hidden[0].Code != compiler.CodeUnknownMetric || hidden[0].Path != absent[0].Path ||
			strings.ReplaceAll(absent[0].Message, name+"_nope", name) != hidden[0].Message {
			t.Errorf("hidden metric %s: %v; nonexistent: %v", name, hidden, absent)
		}
		// Order by and metric filters name metrics too.
		_, probs := p.PlanFor(&plan.Query{Metrics: []string{"order_count"}, OrderBy: []plan.Order{{Key: name}}}, dialect.DuckDB, ops)
		if len(probs) != 1 || probs[0].Code != compiler.CodeBadOrderBy {
			t.Errorf("order_by hidden %s: %v", name, probs)
		}
		_, probs = p.PlanFor(&plan.Query{Metrics: []string{"order_count"}, Filters: []plan.Filter{{Metric: name, Op: "gt", Values: []any{1}}}}, dialect.DuckDB, ops)
		if len(probs) != 1 || probs[0].Code != compiler.CodeUnknownMetric {
			t.Errorf("filter on hidden %s: %v", name, probs)
		}
	}
	for _, key := range hf {
		for _, q := range []*plan.Query{
			{Metrics: []string{"order_count"}, Dimensions: []plan.Dimension{{Field: key}}},
			{Metrics: []string{"order_count"}, Filters: []plan.Filter{{Field: key, Op: "is_null"}}},
		} {
			_, probs := p.PlanFor(q, dialect.DuckDB, ops)
			if len(probs) != 1 || probs[0].Code != compiler.CodeUnknownMember {
				t.Errorf("hidden field %s: %v", key, probs)
			}
		}
	}
	// Near misses of hidden names: suggestions come from readable members.
	for _, q := range []*plan.Query{
		{Metrics: []string{"revenu", "refund_tota", "net_revenu"}},
		{Metrics: []string{"order_count"}, Dimensions: []plan.Dimension{{Field: "orders.amoun"}, {Field: "customers.regio"}}},
		{Metrics: []string{"order_count"}, OrderBy: []plan.Order{{Key: "revenu"}}},
	} {
		_, probs := p.PlanFor(q, dialect.DuckDB, ops)
		if len(probs) == 0 {
			t.Fatalf("%+v planned", q)
		}
		for _, pr := range probs {
			for _, h := range append(hm, hf...) {
				if strings.Contains(pr.Message, `"`+h+`"`) {
					t.Errorf("problem leaks hidden %s: %s", h, pr.Message)
				}
			}
		}
	}
}

// Who sees what: a nil caller and any caller of an ungoverned model read
// everything; a caller without a defined role reads nothing.
func TestCallersAndVisibility(t *testing.T) {
	gov := loadGovernedShop(t)
	plain := loadShop(t)
	all := plain.Visible(nil)
	if all.Governed || len(all.Metrics) != 19 || len(all.Fields) != 16 || len(all.Datasets) != 4 {
		t.Fatalf("ungoverned visibility: %+v", all)
	}
	for _, v := range []plan.Visibility{gov.Visible(nil), plain.Visible(&plan.Caller{Roles: []string{"x"}})} {
		if v.Governed || !slices.Equal(v.Metrics, all.Metrics) || !slices.Equal(v.Fields, all.Fields) {
			t.Errorf("expected everything: %+v", v)
		}
	}
	q := &plan.Query{Metrics: []string{"revenue"}}
	want, _ := plain.Plan(q, dialect.DuckDB)
	for _, c := range []*plan.Caller{nil, {Roles: []string{"auditor"}}} {
		got, probs := gov.PlanFor(q, dialect.DuckDB, c)
		if len(probs) > 0 || got.SQL != want.SQL {
			t.Errorf("caller %+v: %v %v", c, probs, got)
		}
	}
	for _, c := range []*plan.Caller{{}, {Roles: []string{"admin", "Ops"}}} {
		v := gov.Visible(c)
		if !v.Governed || len(v.Metrics)+len(v.Fields)+len(v.Datasets) > 0 {
			t.Errorf("caller %+v without a defined role sees %+v", c, v)
		}
		if _, probs := gov.PlanFor(q, dialect.DuckDB, c); len(probs) != 1 || probs[0].Code != compiler.CodeUnknownMetric {
			t.Errorf("caller %+v without a defined role: %v", c, probs)
		}
	}
	clerk := gov.Visible(&plan.Caller{Roles: []string{"refunds_clerk"}})
	if !slices.Equal(clerk.Datasets, []string{"refunds"}) || !slices.Equal(clerk.Metrics, []string{"refund_total"}) ||
		clerk.Masked["refunds.amount"] != compiler.MaskNull || len(clerk.Fields) != 4 {
		t.Errorf("refunds_clerk sees %+v", clerk)
	}
	// A metric over a masked field is hidden unless the mask allows
	// aggregates: auditor hashes orders.status, which completed_orders reads.
	aud := gov.Visible(&plan.Caller{Roles: []string{"auditor"}})
	if aud.Metric("completed_orders") || aud.Metric("completion_rate") || !aud.Metric("revenue") || !aud.Field("orders.status") {
		t.Errorf("auditor sees %+v", aud)
	}
	// Union of roles: ops alone cannot read revenue; with auditor it can,
	// and orders.status, hashed for auditor, is plain through ops.
	both := gov.Visible(&plan.Caller{Roles: []string{"ops", "auditor"}})
	if !both.Metric("revenue") || !both.Metric("completed_orders") || both.Masked["orders.status"] != "" {
		t.Errorf("ops+auditor sees %+v", both)
	}
}

// A masked field is text: no time grain, and filters compare masked values.
func TestMaskedFieldIsText(t *testing.T) {
	p := loadGovernedShop(t)
	clerk := &plan.Caller{Roles: []string{"refunds_clerk"}}
	q := &plan.Query{Metrics: []string{"refund_total"}, Dimensions: []plan.Dimension{{Field: "refunds.amount"}}}
	pl, probs := p.PlanFor(q, dialect.DuckDB, clerk)
	if len(probs) > 0 || pl.Columns[0].Datatype != "String" {
		t.Fatalf("%v %+v", probs, pl)
	}
	aud := &plan.Caller{Roles: []string{"auditor"}}
	_, probs = p.PlanFor(&plan.Query{Metrics: []string{"revenue"}, Dimensions: []plan.Dimension{{Field: "orders.status", Grain: "month"}}}, dialect.DuckDB, aud)
	if len(probs) != 1 || probs[0].Code != compiler.CodeBadGrain {
		t.Errorf("grain on a masked field: %v", probs)
	}
}

// BenchmarkPlanShopGoverned is BenchmarkPlanShop for a caller of two
// roles (policy cached per role set; row filters and masks rendered per
// query).
func BenchmarkPlanShopGoverned(b *testing.B) {
	p := loadGovernedShop(b)
	q, _ := plan.ParseQuery([]byte(`{"metrics":["revenue","order_count","units"],"dimensions":["customers.region",{"field":"orders.ordered_at","grain":"month"}]}`))
	c := &plan.Caller{Roles: []string{"regional", "na_team"}, Attributes: map[string]string{"region": "NA"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := p.PlanFor(q, dialect.DuckDB, c); probs.HasErrors() {
			b.Fatal(probs)
		}
	}
}

// A model the engine cannot compute is refused for every caller, but a
// governed caller's refusal never names a member it may not read.
func TestUnsupportedRefusalHidesMembers(t *testing.T) {
	doc := []byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: t
        source: s.t
        fields:
          - {name: k, expression: {dialects: [{dialect: ANSI_SQL, expression: k}]}}
          - {name: secret_day, expression: {dialects: [{dialect: ANSI_SQL, expression: "TO_CHAR(d, f)"}]}}
    metrics:
      - {name: n, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(t.k)}]}}
`)
	arts, probs := compiler.LoadGoverned(doc, []byte(`roles: [{name: r, fields: {deny: [t.secret_day]}}]`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	q := &plan.Query{Metrics: []string{"n"}}
	_, open := p.PlanFor(q, dialect.Postgres, nil)
	if len(open) == 0 || !strings.Contains(open.Error(), "secret_day") {
		t.Fatalf("ungoverned refusal should name the field: %v", open)
	}
	_, governed := p.PlanFor(q, dialect.Postgres, &plan.Caller{Roles: []string{"r"}})
	if len(governed) != 1 || governed[0].Code != compiler.CodeExprUnsupported || strings.Contains(governed.Error(), "secret") {
		t.Errorf("governed refusal: %v", governed)
	}
}
