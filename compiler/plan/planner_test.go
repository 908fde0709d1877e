package plan_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

func TestPlanProblems(t *testing.T) {
	p := loadShop(t)
	cases := []struct {
		name  string
		body  string
		codes []string
		text  string
	}{
		{"unknown metric with suggestion", `{"metrics":["revenu"]}`, []string{compiler.CodeUnknownMetric}, `did you mean "revenue"`},
		{"unknown dimension", `{"metrics":["revenue"],"dimensions":["customer.region"]}`, []string{compiler.CodeUnknownMember}, `"customers.region"`},
		{"grain on non-time field", `{"metrics":["revenue"],"dimensions":[{"field":"customers.region","grain":"month"}]}`, []string{compiler.CodeBadGrain}, "not a time dimension"},
		{"unknown grain", `{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"fortnight"}]}`, []string{compiler.CodeBadGrain}, "fortnight"},
		{"bad op", `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"~~","values":["x"]}]}`, []string{compiler.CodeBadFilter}, "unknown op"},
		{"bad value count", `{"metrics":["revenue"],"filters":[{"field":"orders.amount","op":"between","values":[1]}]}`, []string{compiler.CodeBadFilter}, "exactly 2"},
		{"object value", `{"metrics":["revenue"],"filters":[{"field":"orders.amount","op":"gt","values":[{"sql":"1"}]}]}`, []string{compiler.CodeBadFilter}, "strings, numbers or booleans"},
		{"bad date", `{"metrics":["revenue"],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["2024-13-01","2024-01-02"]}]}`, []string{compiler.CodeBadFilter}, "2024-13-01"},
		{"bad relative range", `{"metrics":["revenue"],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["last blue moon"]}]}`, []string{compiler.CodeBadFilter}, "relative"},
		{"bad timezone", `{"metrics":["revenue"],"timezone":"Mars/Olympus"}`, []string{compiler.CodeBadTimezone}, "IANA"},
		{"negative limit", `{"metrics":["revenue"],"limit":-1}`, []string{compiler.CodeBadLimit}, "limit"},
		{"unknown order key", `{"metrics":["revenue"],"order_by":[{"key":"revnue"}]}`, []string{compiler.CodeBadOrderBy}, `did you mean "revenue"`},
		{"no metrics nor dimensions", `{}`, []string{compiler.CodeBadQuery}, "at least one metric or dimension"},
		{"dimension-only without a home", `{"dimensions":["orders.status","refunds.amount"]}`, []string{compiler.CodeNoMembersHome}, "orders, refunds"},
		{"all at once", `{"metrics":["nope"],"dimensions":["x.y"],"filters":[{"field":"orders.status","op":"??"}],"timezone":"X/Y"}`,
			[]string{compiler.CodeBadTimezone, compiler.CodeUnknownMember, compiler.CodeUnknownMetric, compiler.CodeBadFilter}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, probs := plan.ParseQuery([]byte(tc.body))
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			pl, probs := p.Plan(q, dialect.DuckDB)
			if pl != nil {
				t.Fatalf("expected problems, got plan %s", pl.SQL)
			}
			var got []string
			for _, pr := range probs {
				got = append(got, pr.Code)
			}
			if strings.Join(got, ",") != strings.Join(tc.codes, ",") {
				t.Fatalf("codes %v, want %v: %v", got, tc.codes, probs)
			}
			if !strings.Contains(probs.Error(), tc.text) {
				t.Fatalf("message %q lacks %q", probs.Error(), tc.text)
			}
		})
	}
}

func TestParseQueryStrict(t *testing.T) {
	for _, body := range []string{`{"metric":["x"]}`, `{"metrics":"x"}`, `{"metrics":["x"]} {}`, `{"metrics":["x"],"dimensions":[{"field":"a.b","grian":"day"}]}`, `[`} {
		if _, probs := plan.ParseQuery([]byte(body)); !probs.HasErrors() || probs[0].Code != compiler.CodeBadQuery {
			t.Errorf("%s: want %s, got %v", body, compiler.CodeBadQuery, probs)
		}
	}
}

// A one-to-many hop needs the metric dataset's primary key for exact dedup.
func TestFanOutWithoutPrimaryKey(t *testing.T) {
	doc := `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: orders
        source: orders
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}}
      - name: lines
        source: lines
        fields:
          - {name: order_id, expression: {dialects: [{dialect: ANSI_SQL, expression: order_id}]}}
          - {name: product, expression: {dialects: [{dialect: ANSI_SQL, expression: product}]}}
    relationships:
      - {name: lines_orders, from: lines, to: orders, from_columns: [order_id], to_columns: [id]}
    metrics:
      - {name: revenue, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.amount)}]}}
`
	arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, _ := plan.New(arts[0])
	q, _ := plan.ParseQuery([]byte(`{"metrics":["revenue"],"dimensions":["lines.product"]}`))
	_, probs = p.Plan(q, dialect.DuckDB)
	if len(probs) != 1 || probs[0].Code != compiler.CodeFanOutNoKey || !strings.Contains(probs[0].Message, "lines_orders") {
		t.Fatalf("want %s naming lines_orders, got %v", compiler.CodeFanOutNoKey, probs)
	}
}

func FuzzPlan(f *testing.F) {
	for _, s := range []string{
		`{"metrics":["revenue"],"dimensions":["customers.region"]}`,
		`{"metrics":["units","refund_total"],"dimensions":[{"field":"orders.ordered_at","grain":"week","week_start":"sunday"}],"timezone":"Europe/Amsterdam"}`,
		`{"metrics":["net_revenue"],"filters":[{"field":"orders.status","op":"in","values":["a","b'c"]},{"metric":"revenue","op":"gt","values":[1]}],"order_by":[{"key":"units","dir":"desc"}],"limit":3,"offset":1}`,
		`{"metrics":["order_count"],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["last 3 months"]}]}`,
	} {
		f.Add(s)
	}
	p := loadShop(f)
	f.Fuzz(func(t *testing.T, body string) {
		q, probs := plan.ParseQuery([]byte(body))
		if probs.HasErrors() {
			return
		}
		pl, probs := p.Plan(q, dialect.DuckDB)
		if pl == nil && !probs.HasErrors() {
			t.Fatal("no plan and no problem")
		}
	})
}

func BenchmarkPlanShop(b *testing.B) {
	p := loadShop(b)
	q, _ := plan.ParseQuery([]byte(`{"metrics":["revenue","order_count","units"],"dimensions":["customers.region",{"field":"orders.ordered_at","grain":"month"}]}`))
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
			b.Fatal(probs)
		}
	}
}

func TestFilterValuesMatchDatatype(t *testing.T) {
	p := loadShop(t)
	for _, body := range []string{
		`{"metrics":["revenue"],"filters":[{"field":"orders.ordered_at","op":"gt","values":["soon"]}]}`,
		`{"metrics":["revenue"],"filters":[{"field":"refunds.refunded_on","op":"in","values":["2024-01-01","x'; DROP TABLE t"]}]}`,
		`{"metrics":["revenue"],"filters":[{"metric":"revenue","op":"gt","values":["lots"]}]}`,
	} {
		q, _ := plan.ParseQuery([]byte(body))
		_, probs := p.Plan(q, dialect.DuckDB)
		if len(probs) != 1 || probs[0].Code != compiler.CodeBadFilter || !strings.HasPrefix(probs[0].Path, "filters[0]") {
			t.Errorf("%s: want one %s at filters[0], got %v", body, compiler.CodeBadFilter, probs)
		}
	}
}

// One Planner serves concurrent queries: each goroutine's plan equals the
// plan made alone (run with -race to check the shared caches).
func TestPlanConcurrent(t *testing.T) {
	p := loadGovernedShop(t)
	bodies := []string{
		`{"metrics":["net_revenue","units"],"dimensions":["order_lines.product",{"field":"orders.ordered_at","grain":"month"}],"timezone":"Asia/Tokyo"}`,
		`{"metrics":["order_count"],"dimensions":["customers.region"],"filters":[{"metric":"revenue","op":"gt","values":[1]}],"limit":2}`,
	}
	callers := []*plan.Caller{nil, {Roles: []string{"regional"}, Attributes: map[string]string{"region": "EU"}}, {Roles: []string{"ops"}}}
	want := map[string]string{}
	type job struct {
		key string
		q   *plan.Query
		d   dialect.Dialect
		c   *plan.Caller
	}
	var jobs []job
	for bi, body := range bodies {
		q, _ := plan.ParseQuery([]byte(body))
		for ci, c := range callers {
			for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Postgres, dialect.Trino} {
				jobs = append(jobs, job{fmt.Sprint(bi, ci, d.Name()), q, d, c})
			}
		}
	}
	fresh := loadGovernedShop(t)
	for _, j := range jobs {
		pl, probs := fresh.PlanFor(j.q, j.d, j.c)
		if pl != nil {
			want[j.key] = pl.SQL
		} else {
			want[j.key] = probs.Error()
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(jobs)*4)
	for range 4 {
		for _, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pl, probs := p.PlanFor(j.q, j.d, j.c)
				got := probs.Error()
				if pl != nil {
					got = pl.SQL
				}
				if got != want[j.key] {
					errs <- j.key + ": " + got
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
