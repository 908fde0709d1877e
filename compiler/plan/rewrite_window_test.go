package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

func TestWindow(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["revenue","revenue_running","revenue_prior_period"],"dimensions":["customers.region",{"field":"orders.ordered_at","grain":"week"}],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["2024-04-01","2024-04-30"]},{"field":"orders.status","op":"=","values":["complete"]},{"metric":"revenue_running","op":"gt","values":[1]}]}`, nil)
	wins := nodesOf[*window](root)
	if len(wins) != 1 || wins[0].madeBy() != rwWindow {
		t.Fatalf("want one window node, got %d", len(wins))
	}
	w := wins[0]
	if w.input.dims[w.time].name != "orders.ordered_at.week" {
		t.Fatalf("window along %s, want the query's time dimension with a grain", w.input.dims[w.time].name)
	}
	if len(w.metrics) != 2 || w.frames["revenue_running"].preceding != -1 || w.frames["revenue_prior_period"].lag != 1 {
		t.Fatalf("typed metrics %+v frames %+v", w.metrics, w.frames)
	}
	// The date range on the window's field moves above the window; the
	// status filter stays below it, and the metric filter reads its output.
	if len(w.after) != 1 || w.after[0].dm.field != "ordered_at" {
		t.Fatalf("after %+v, want the date range", w.after)
	}
	dimFilters := nodesOf[*filter](root)
	var below, above int
	for _, f := range dimFilters {
		below += len(f.dims)
		above += len(f.metrics)
		for _, d := range f.dims {
			if d.dm.field == "ordered_at" {
				t.Fatal("the date range must not cut the window's history short")
			}
		}
	}
	if below != 1 || above != 1 {
		t.Fatalf("%d dimension filters below, %d metric filters above; want 1 and 1", below, above)
	}
	if f, ok := root.(*sortNode).input.(*filter); !ok || f.input != w {
		t.Fatal("metric filters apply after the window")
	}

	// Untyped metrics: no window, the date range filters rows.
	root = planOf(t, p, `{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"week"}],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["2024-04-01","2024-04-30"]}]}`, nil)
	if len(nodesOf[*window](root)) != 0 {
		t.Fatal("a query without typed metrics has no window")
	}
}

func TestWindowRefusals(t *testing.T) {
	p := shopPlanner(t, false)
	for _, c := range []struct{ body, code, path, msg string }{
		{`{"metrics":["revenue_running"],"dimensions":["customers.region"]}`, compiler.CodeWindowNoTime, "dimensions", "select a time dimension with a grain"},
		{`{"metrics":["revenue_running"],"dimensions":[{"field":"refunds.refunded_on","grain":"hour"}]}`, compiler.CodeWindowGrain, "dimensions[0].grain", "timestamp field only"},
		{`{"metrics":["order_count_mtd"],"dimensions":[{"field":"orders.ordered_at","grain":"week"}]}`, compiler.CodeWindowGrain, "dimensions[0].grain", "month-to-date"},
		{`{"metrics":["order_count_24h"],"dimensions":[{"field":"refunds.refunded_on","grain":"day"}]}`, compiler.CodeWindowGrain, "dimensions[0].grain", "is a date"},
	} {
		q, _ := ParseQuery([]byte(c.body))
		_, probs := p.Plan(q, dialect.DuckDB)
		if len(probs) != 1 || probs[0].Code != c.code || probs[0].Path != c.path || !strings.Contains(probs[0].Message, c.msg) {
			t.Errorf("%s: got %v, want %s at %s mentioning %q", c.body, probs, c.code, c.path, c.msg)
		}
	}
}

// EXPLAIN names the window, each typed metric's frame and the date range
// it applies after the window.
func TestExplainWindow(t *testing.T) {
	p := shopPlanner(t, false)
	q, _ := ParseQuery([]byte(`{"metrics":["order_count_mtd","revenue_2w"],"dimensions":[{"field":"orders.ordered_at","grain":"day"}],"filters":[{"field":"orders.ordered_at","op":"in_date_range","values":["2024-04-01","2024-04-30"]}]}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	out := pl.Explain()
	for _, want := range []string{
		"window along orders.ordered_at.day: order_count_mtd = running sum, restarting each month (month-to-date), revenue_2w = sum of the last 14 day periods  [metric window: ",
		"time spine of every day",
		"(applied after the window, so its history is whole)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, out)
		}
	}
}

// A semi-additive metric gets a group of its own, made by the
// semi-additive rewrite; a one-to-many hop from its home is refused.
func TestSemiAdditive(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["refund_total","refunds_last_day"],"dimensions":["customers.region"]}`, nil)
	aggs := nodesOf[*aggregate](root)
	if len(aggs) != 2 || aggs[0].semi != nil || aggs[1].semi == nil || aggs[1].madeBy() != rwSemi || aggs[1].semi.pick != "last" {
		t.Fatalf("want a plain and a semi-additive group, got %d", len(aggs))
	}
	if len(nodesOf[*window](root)) != 0 {
		t.Fatal("a semi-additive metric is not windowed")
	}
	q, _ := ParseQuery([]byte(`{"metrics":["refunds_last_day"],"dimensions":["order_lines.product"]}`))
	if _, probs := p.Plan(q, dialect.DuckDB); len(probs) != 1 || probs[0].Code != compiler.CodeSemiFanOut {
		t.Fatalf("semi-additive across a one-to-many hop: %v", probs)
	}
	pl, _ := p.Plan(&Query{Metrics: []string{"refunds_last_day"}}, dialect.DuckDB)
	if !strings.Contains(pl.Explain(), "refunds_last_day: sums refunds rows per refunds.refunded_on value within each group, then takes the sum at the latest refunds.refunded_on") {
		t.Fatalf("EXPLAIN:\n%s", pl.Explain())
	}
}

// A conversion metric gets a group of its own whose join chain ends in a
// convJoin of the event-B dataset; grouping by that dataset is refused.
func TestConversion(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["order_count","refund_within_7d_rate"],"dimensions":["customers.region"]}`, nil)
	cj := nodesOf[*convJoin](root)
	if len(cj) != 1 || cj[0].madeBy() != rwConversion || cj[0].conv.to != "refunds" || cj[0].conv.count != 7 {
		t.Fatalf("want one conversion join to refunds, got %d", len(cj))
	}
	if aggs := nodesOf[*aggregate](root); len(aggs) != 2 || aggs[1].conv == nil || aggs[0].conv != nil {
		t.Fatal("the conversion has a group of its own")
	}
	q, _ := ParseQuery([]byte(`{"metrics":["refund_within_7d_rate"],"dimensions":[{"field":"refunds.refunded_on","grain":"month"}]}`))
	if _, probs := p.Plan(q, dialect.DuckDB); len(probs) != 1 || probs[0].Code != compiler.CodeSemiFanOut {
		t.Fatalf("grouping a conversion across a one-to-many hop: %v", probs)
	}
	// Event B reached many-to-one from A (a visit converting to its own
	// session's purchase row): grouping by B is refused, not aliased twice.
	arts, cprobs := compiler.Load([]byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - {name: a, source: a, primary_key: [id], fields: [{name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}, {name: bid, expression: {dialects: [{dialect: ANSI_SQL, expression: bid}]}}, {name: at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}]}
      - {name: b, source: b, primary_key: [bid], fields: [{name: bid, expression: {dialects: [{dialect: ANSI_SQL, expression: bid}]}}, {name: kind, expression: {dialects: [{dialect: ANSI_SQL, expression: kind}]}}, {name: at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}]}
    relationships:
      - {name: a_b, from: a, to: b, from_columns: [bid], to_columns: [bid]}
    metrics:
      - name: conv
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(DISTINCT a.id)}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "conversion", "entity": "a.bid", "at": "a.at", "to_entity": "b.bid", "to_at": "b.at", "count": 1, "unit": "week"}}'}]
`), compiler.CompileOptions{})
	if cprobs.HasErrors() {
		t.Fatal(cprobs)
	}
	mp, _ := New(arts[0])
	q, _ = ParseQuery([]byte(`{"metrics":["conv"],"dimensions":["b.kind"]}`))
	if _, probs := mp.Plan(q, dialect.DuckDB); len(probs) != 1 || probs[0].Code != compiler.CodeConvJoin {
		t.Fatalf("grouping a conversion by its event-B dataset: %v", probs)
	}
	// Governed: the event-B dataset is read through the role's row filter.
	gp := shopPlanner(t, true)
	groot := planOf(t, gp, `{"metrics":["refund_within_7d_rate"],"dimensions":["customers.region"]}`, &Caller{Roles: []string{"regional"}, Attributes: map[string]string{"region": "NA"}})
	if rf, ok := nodesOf[*convJoin](groot)[0].right.(*rowFilter); !ok || rf.dataset != "refunds" {
		t.Fatalf("the refunds of a conversion are not row-filtered for a governed caller: %T", nodesOf[*convJoin](groot)[0].right)
	}
}

// Rolling windows that are not whole query periods: summed from day (or
// hour) values where the unit is days, weeks or hours; months at week or
// day grain stay refused.
func TestFineFrames(t *testing.T) {
	for _, c := range []struct {
		unit    string
		g, fine dialect.Grain
		refused bool
	}{
		{"day", dialect.Month, dialect.Day, false}, {"week", dialect.Month, dialect.Day, false}, {"day", dialect.Week, dialect.Day, false},
		{"hour", dialect.Day, dialect.Hour, false}, {"month", dialect.Week, "", true}, {"month", dialect.Day, "", true},
		{"week", dialect.Day, "", false}, {"hour", dialect.Hour, "", false},
	} {
		fr, msg := frameOf(&compiler.MetricType{Version: 1, Type: compiler.MetricRolling, Count: 30, Unit: c.unit}, c.g)
		if (msg != "") != c.refused || fr.fine != c.fine {
			t.Errorf("%s at %s grain: frame %+v, refusal %q", c.unit, c.g, fr, msg)
		}
	}
}

// The same period a year earlier: counted back where a year is a whole
// number of periods, looked up at day, hour and (ISO) week grain.
func TestPriorYearFrames(t *testing.T) {
	py := &compiler.MetricType{Version: 1, Type: compiler.MetricPeriodOver, Offset: "prior_year", Output: "difference"}
	for _, c := range []struct {
		g       dialect.Grain
		lag     int
		yearAgo bool
		refused bool
	}{{dialect.Month, 12, false, false}, {dialect.Quarter, 4, false, false}, {dialect.Year, 1, false, false}, {dialect.Day, 0, true, false}, {dialect.Week, 0, true, false}, {dialect.Hour, 0, true, false}} {
		fr, msg := frameOf(py, c.g)
		if (msg != "") != c.refused || fr.lag != c.lag || fr.yearAgo != c.yearAgo || (!c.refused && fr.output != "difference") {
			t.Errorf("%s: frame %+v, refusal %q", c.g, fr, msg)
		}
	}
}
