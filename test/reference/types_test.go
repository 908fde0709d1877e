package reference

import (
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

func day(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }

// sales: one sale in February 2023, then January to April 2024 (the
// spine runs from 2023-02 to 2024-04; March 2023 has no sale).
func sales() (*Model, []dcase.Table) {
	rev := Ref{"rev"}
	n := Ref{"n"}
	ty := func(t MetricType) *MetricType { return &t }
	m := &Model{Name: "s", Datasets: []Dataset{{Name: "sales", Table: "sales", PrimaryKey: []string{"id"}, Fields: []Field{
		{Name: "id", Column: "id"}, {Name: "sold_on", Column: "sold_on", IsTime: true},
		{Name: "region", Column: "region"}, {Name: "amount", Column: "amount"},
	}}}, Metrics: []Metric{
		{Name: "rev", Expr: &Agg{Func: "SUM", Dataset: "sales", Field: "amount"}},
		{Name: "n", Expr: &Agg{Func: "COUNT_STAR", Dataset: "sales"}},
		{Name: "running", Expr: rev, Type: ty(MetricType{Type: "cumulative", Window: "all"})},
		{Name: "ytd", Expr: rev, Type: ty(MetricType{Type: "cumulative", Window: "to_date", Grain: "year"})},
		{Name: "r3m", Expr: rev, Type: ty(MetricType{Type: "rolling", Count: 3, Unit: "month"})},
		{Name: "r30d", Expr: rev, Type: ty(MetricType{Type: "rolling", Count: 30, Unit: "day"})},
		{Name: "n_diff", Expr: n, Type: ty(MetricType{Type: "period_over_period", Offset: "prior_period", Output: "difference"})},
		{Name: "rev_py", Expr: rev, Type: ty(MetricType{Type: "period_over_period", Offset: "prior_year", Output: "value"})},
		{Name: "n_py_ratio", Expr: n, Type: ty(MetricType{Type: "period_over_period", Offset: "prior_year", Output: "ratio"})},
		{Name: "ytd_share", Expr: &Bin{Op: "/", L: Ref{"ytd"}, R: Ref{"running"}}},
		{Name: "last", Expr: rev, Type: ty(MetricType{Type: "semi_additive", Along: "sales.sold_on", Pick: "last"})},
		{Name: "peak", Expr: rev, Type: ty(MetricType{Type: "semi_additive", Along: "sales.sold_on", Pick: "max"})},
	}}
	t := dcase.Table{Name: "sales", Columns: []dcase.Column{{Name: "id", Type: dcase.Integer}, {Name: "sold_on", Type: dcase.Date}, {Name: "region", Type: dcase.Varchar}, {Name: "amount", Type: dcase.Integer}},
		Rows: [][]any{
			{int64(1), day("2024-01-10"), "eu", int64(10)},
			{int64(2), day("2024-01-20"), "us", int64(5)},
			{int64(3), day("2024-03-05"), "eu", int64(7)},
			{int64(4), day("2024-04-01"), "eu", int64(1)},
			{int64(5), day("2023-02-15"), "eu", int64(100)},
		}}
	return m, []dcase.Table{t}
}

const months2024 = `"dimensions":[{"field":"sales.sold_on","grain":"month"}],"filters":[{"field":"sales.sold_on","op":"in_date_range","values":["2024-01-01","2024-04-30"]}]`

// TestCumulative: the date range picks January–April 2024 after the
// window, so February 2023 is still summed.
func TestCumulative(t *testing.T) {
	m, tables := sales()
	r := eval(t, m, tables, `{"metrics":["rev","running","ytd","ytd_share"],`+months2024+`}`)
	check(t, r, false, []string{"sales.sold_on.month", "rev", "running", "ytd", "ytd_share"},
		[]any{day("2024-01-01"), int64(15), int64(115), int64(15), 15.0 / 115}, // running 100 + 10 + 5
		[]any{day("2024-02-01"), nil, int64(115), int64(15), 15.0 / 115},       // no sale: SUM NULL, carried over
		[]any{day("2024-03-01"), int64(7), int64(122), int64(22), 22.0 / 122},
		[]any{day("2024-04-01"), int64(1), int64(123), int64(23), 23.0 / 123},
	)
}

// TestRolling: 3 months is 3 month periods; 30 days at month grain is the
// 30 days ending with each month's last day, from day values.
func TestRolling(t *testing.T) {
	m, tables := sales()
	r := eval(t, m, tables, `{"metrics":["r3m","r30d"],`+months2024+`}`)
	check(t, r, false, []string{"sales.sold_on.month", "r3m", "r30d"},
		[]any{day("2024-01-01"), int64(15), int64(15)}, // Nov–Jan: 10 + 5; [Jan 2, Feb 1): 10 + 5
		[]any{day("2024-02-01"), int64(15), nil},       // Dec–Feb: 15; [Jan 31, Mar 1): no sale
		[]any{day("2024-03-01"), int64(22), int64(7)},  // Jan–Mar: 15 + 7; [Mar 2, Apr 1): 7
		[]any{day("2024-04-01"), int64(8), int64(1)},   // Feb–Apr: 7 + 1; [Apr 1, May 1): 1
	)
}

// TestPeriodOverPeriod: the period before, and a year before (NULL before
// the spine's first period, a count of 0 inside it).
func TestPeriodOverPeriod(t *testing.T) {
	m, tables := sales()
	r := eval(t, m, tables, `{"metrics":["n_diff","rev_py","n_py_ratio"],`+months2024+`}`)
	check(t, r, false, []string{"sales.sold_on.month", "n_diff", "rev_py", "n_py_ratio"},
		[]any{day("2024-01-01"), int64(2), nil, nil},         // 2 − 0 (December); January 2023 is before the spine
		[]any{day("2024-02-01"), int64(-2), int64(100), 0.0}, // 0 − 2; February 2023: 100, n 0 / 1
		[]any{day("2024-03-01"), int64(1), nil, nil},         // 1 − 0; March 2023 has no sale: 1 / 0 is NULL
		[]any{day("2024-04-01"), int64(0), nil, nil},         // 1 − 1
	)
	_, err := Evaluate(Input{Model: m, Tables: tables, Query: []byte(`{"metrics":["ytd"],"dimensions":["sales.region"]}`)})
	if ref, ok := err.(*Refused); !ok || ref.Code != "OSS4060" {
		t.Fatalf("got %v, want OSS4060", err)
	}
	_, err = Evaluate(Input{Model: m, Tables: tables, Query: []byte(`{"metrics":["ytd"],"dimensions":[{"field":"sales.sold_on","grain":"year"}]}`)})
	if ref, ok := err.(*Refused); !ok || ref.Code != "OSS4061" {
		t.Fatalf("got %v, want OSS4061", err)
	}
}

// TestSemiAdditive: last picks the sum at the group's latest date, max
// the largest per-date sum.
func TestSemiAdditive(t *testing.T) {
	m, tables := sales()
	r := eval(t, m, tables, `{"metrics":["last","peak","rev"],"dimensions":["sales.region"]}`)
	check(t, r, false, []string{"sales.region", "last", "peak", "rev"},
		[]any{"eu", int64(1), int64(100), int64(118)}, // latest eu date 2024-04-01: 1; largest 100; 10 + 7 + 1 + 100
		[]any{"us", int64(5), int64(5), int64(5)},
	)
	r = eval(t, m, tables, `{"metrics":["last"]}`)
	check(t, r, false, []string{"last"}, []any{int64(1)})
}

// TestConversion: u1 buys within 7 days, u2 before signing up and too
// late, u3 at the sign-up instant itself: 2 of 3.
func TestConversion(t *testing.T) {
	ts := func(s string) time.Time { t, _ := time.Parse("2006-01-02 15:04", s); return t }
	m := &Model{Name: "c", Datasets: []Dataset{
		{Name: "a", Table: "a", PrimaryKey: []string{"id"}, Fields: []Field{{Name: "id", Column: "id"}, {Name: "user", Column: "user"}, {Name: "at", Column: "at", IsTime: true}, {Name: "plan", Column: "plan"}}},
		{Name: "b", Table: "b", Fields: []Field{{Name: "user", Column: "user"}, {Name: "at", Column: "at", IsTime: true}}},
	}, Metrics: []Metric{{Name: "conv", Expr: &Agg{Func: "COUNT_DISTINCT", Dataset: "a", Field: "user"},
		Type: &MetricType{Type: "conversion", Entity: "a.user", At: "a.at", ToEntity: "b.user", ToAt: "b.at", Count: 7, Unit: "day"}}}}
	tables := []dcase.Table{
		{Name: "a", Columns: []dcase.Column{{Name: "id", Type: dcase.Integer}, {Name: "user", Type: dcase.Varchar}, {Name: "at", Type: dcase.Timestamp}, {Name: "plan", Type: dcase.Varchar}}, Rows: [][]any{
			{int64(1), "u1", ts("2024-01-01 00:00"), "pro"}, {int64(2), "u2", ts("2024-01-01 00:00"), "pro"}, {int64(3), "u3", ts("2024-01-02 00:00"), "free"},
		}},
		{Name: "b", Columns: []dcase.Column{{Name: "user", Type: dcase.Varchar}, {Name: "at", Type: dcase.Timestamp}}, Rows: [][]any{
			{"u1", ts("2024-01-03 00:00")}, {"u2", ts("2023-12-31 00:00")}, {"u2", ts("2024-01-20 00:00")}, {"u3", ts("2024-01-02 00:00")},
		}},
	}
	r := eval(t, m, tables, `{"metrics":["conv"]}`)
	check(t, r, false, []string{"conv"}, []any{2.0 / 3})
	r = eval(t, m, tables, `{"metrics":["conv"],"dimensions":["a.plan"]}`)
	check(t, r, false, []string{"a.plan", "conv"}, []any{"pro", 0.5}, []any{"free", 1.0})
}

// TestGovernance: a row filter on orders reading the customer's region
// through the many-to-one join, with the caller's attribute, and masks.
func TestGovernance(t *testing.T) {
	m, tables := shop()
	gov := &Governance{Attributes: []string{"region"}, Roles: []Role{
		{Name: "eu", RowFilters: []RowFilter{{Dataset: "orders", Field: "customers.region", Op: "=", Attr: "region"}},
			Masks: []Mask{{Field: "customers.region", Kind: "partial", KeepFirst: 1}}},
		{Name: "hashed", Masks: []Mask{{Field: "customers.region", Kind: "hash"}}},
	}}
	ask := func(roles []string, attrs map[string]string, query string) *dcase.Result {
		r, err := Evaluate(Input{Model: m, Tables: tables, Governance: gov, Caller: &dcase.Caller{Roles: roles, Attributes: attrs}, Query: []byte(query)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Orders 1–3 are eu's (10.5 + 20.25 + 5); "eu" shows as e****.
	r := ask([]string{"eu"}, map[string]string{"REGION": "eu"}, `{"metrics":["revenue"],"dimensions":["customers.region"]}`)
	check(t, r, false, []string{"customers.region", "revenue"}, []any{"e****", 35.75})
	// A missing attribute admits no rows.
	r = ask([]string{"eu"}, nil, `{"metrics":["orders"]}`)
	check(t, r, false, []string{"orders"}, []any{int64(0)})
	// hash: MD5 of "eu" (md5sum), every order visible.
	r = ask([]string{"hashed"}, nil, `{"metrics":["orders"],"dimensions":["customers.region"]}`)
	check(t, r, false, []string{"customers.region", "orders"}, []any{"4829322d03d1606fb09ae9af59a271d3", int64(3)}, []any{nil, int64(2)})
}

// TestMemberAccess: a denied field hides the metrics over it (OSS4002)
// and is itself unknown (OSS4003); another role's grant is a union.
func TestMemberAccess(t *testing.T) {
	m, tables := shop()
	gov := &Governance{Roles: []Role{{Name: "clerk", FieldDeny: []string{"orders.amount"}}, {Name: "all"}}}
	code := func(roles []string, query string) string {
		_, err := Evaluate(Input{Model: m, Tables: tables, Governance: gov, Caller: &dcase.Caller{Roles: roles}, Query: []byte(query)})
		if ref, ok := err.(*Refused); ok {
			return ref.Code
		}
		return ""
	}
	if c := code([]string{"clerk"}, `{"metrics":["revenue"]}`); c != "OSS4002" {
		t.Fatalf("revenue for clerk: %q, want OSS4002", c)
	}
	if c := code([]string{"clerk"}, `{"metrics":["orders"],"dimensions":["orders.amount"]}`); c != "OSS4003" {
		t.Fatalf("orders.amount for clerk: %q, want OSS4003", c)
	}
	if c := code([]string{"clerk", "all"}, `{"metrics":["revenue"]}`); c != "" {
		t.Fatalf("revenue for clerk+all: %q, want an answer", c)
	}
}
