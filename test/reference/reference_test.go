package reference

import (
	"errors"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// shop is a hand-made star: orders (the fact) → customers, where order 4
// has an unknown customer (9) and order 5 none (NULL). Customers 1 and 2
// share the region "eu"; customer 3 has no orders.
func shop() (*Model, []dcase.Table) {
	m := &Model{
		Name: "shop",
		Datasets: []Dataset{
			{Name: "orders", Table: "orders", PrimaryKey: []string{"id"}, Fields: []Field{
				{Name: "id", Column: "id"}, {Name: "customer_id", Column: "customer_id"},
				{Name: "amount", Column: "amount"}, {Name: "status", Column: "status"},
				{Name: "at", Column: "at", IsTime: true, Datatype: "DateTimeTz"},
			}},
			{Name: "customers", Table: "customers", PrimaryKey: []string{"id"}, Fields: []Field{
				{Name: "id", Column: "id"}, {Name: "region", Column: "region"}, {Name: "score", Column: "score"},
			}},
		},
		Relationships: []Relationship{{Name: "oc", From: "orders", To: "customers", FromColumns: []string{"customer_id"}, ToColumns: []string{"id"}}},
		Metrics: []Metric{
			{Name: "revenue", Expr: &Agg{Func: "SUM", Dataset: "orders", Field: "amount"}},
			{Name: "orders", Expr: &Agg{Func: "COUNT_STAR", Dataset: "orders"}},
			{Name: "paid", Expr: &Agg{Func: "COUNT_STAR", Dataset: "orders", When: &Cond{Field: "status", Op: "=", Value: "paid"}}},
			{Name: "avg_amount", Expr: &Agg{Func: "AVG", Dataset: "orders", Field: "amount"}},
			{Name: "statuses", Expr: &Agg{Func: "COUNT_DISTINCT", Dataset: "orders", Field: "status"}},
			{Name: "paid_share", Expr: &Bin{Op: "/", L: Ref{"paid"}, R: Ref{"orders"}}},
			{Name: "customers", Expr: &Agg{Func: "COUNT", Dataset: "customers", Field: "id"}},
			{Name: "score", Expr: &Agg{Func: "SUM", Dataset: "customers", Field: "score"}},
		},
	}
	utc := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	orders := dcase.Table{Name: "orders", Columns: []dcase.Column{
		{Name: "id", Type: dcase.Integer}, {Name: "customer_id", Type: dcase.Integer}, {Name: "amount", Type: dcase.Decimal},
		{Name: "status", Type: dcase.Varchar}, {Name: "at", Type: dcase.TimestampTz},
	}, Rows: [][]any{
		{int64(1), int64(1), 10.5, "paid", utc("2024-10-27T00:30:00Z")},  // 02:30 CEST, Amsterdam
		{int64(2), int64(1), 20.25, "open", utc("2024-10-27T01:30:00Z")}, // 02:30 CET, the repeated hour
		{int64(3), int64(2), 5.0, "paid", utc("2024-10-27T02:30:00Z")},   // 03:30 CET
		{int64(4), int64(9), 1.0, "paid", utc("2024-10-28T12:00:00Z")},
		{int64(5), nil, nil, "open", utc("2024-11-02T12:00:00Z")},
	}}
	customers := dcase.Table{Name: "customers", Columns: []dcase.Column{
		{Name: "id", Type: dcase.Integer}, {Name: "region", Type: dcase.Varchar}, {Name: "score", Type: dcase.Integer},
	}, Rows: [][]any{
		{int64(1), "eu", int64(7)},
		{int64(2), "eu", int64(3)},
		{int64(3), "us", int64(100)},
	}}
	return m, []dcase.Table{orders, customers}
}

func eval(t *testing.T, m *Model, tables []dcase.Table, query string) *dcase.Result {
	t.Helper()
	r, err := Evaluate(Input{Model: m, Tables: tables, Query: []byte(query)})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return r
}

func check(t *testing.T, got *dcase.Result, ordered bool, cols []string, rows ...[]any) {
	t.Helper()
	want := dcase.Result{Rows: rows}
	for _, c := range cols {
		want.Columns = append(want.Columns, dcase.ResultColumn{Name: c})
	}
	g := *got
	g.Columns = nil
	for _, c := range got.Columns {
		g.Columns = append(g.Columns, dcase.ResultColumn{Name: c.Name})
	}
	if err := dcase.Compare(want, g, ordered); err != nil {
		t.Fatal(err)
	}
}

// TestNullMember: orders 4 (unknown customer) and 5 (no customer) stay,
// under a NULL region; customer 3, without orders, is no group of an
// orders metric.
func TestNullMember(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":["revenue","orders","paid_share"],"dimensions":["customers.region"]}`)
	check(t, r, false, []string{"customers.region", "revenue", "orders", "paid_share"},
		// eu: orders 1, 2, 3: 10.5 + 20.25 + 5 = 35.75; paid 1 and 3 of 3.
		[]any{"eu", 35.75, int64(3), 2.0 / 3},
		// NULL: orders 4 and 5: 1 + NULL = 1; paid 4 of 2.
		[]any{nil, 1.0, int64(2), 0.5},
	)
	if r.Columns[1].Datatype != "Decimal" || r.Columns[2].Datatype != "Integer" || r.Columns[3].Datatype != "Float" {
		t.Fatalf("datatypes %v", r.Columns)
	}
}

// TestNoDimensions: one row; counts 0 and sums NULL when nothing matches.
func TestNoDimensions(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":["revenue","orders","avg_amount","statuses"]}`)
	// 10.5 + 20.25 + 5 + 1 = 36.75 over 4 non-NULL amounts: 9.1875.
	check(t, r, false, []string{"revenue", "orders", "avg_amount", "statuses"}, []any{36.75, int64(5), 9.1875, int64(2)})
	r = eval(t, m, tables, `{"metrics":["revenue","orders"],"filters":[{"field":"orders.status","op":"=","values":["none"]}]}`)
	check(t, r, false, []string{"revenue", "orders"}, []any{nil, int64(0)})
	r = eval(t, m, tables, `{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"=","values":["none"]}]}`)
	check(t, r, false, []string{"orders.status", "revenue"})
}

// TestFanOut: customers' score grouped by the orders' status crosses the
// one-to-many hop customers → orders: each customer counts once per
// status it reaches (dedup on customers.id), and customer 3, reaching no
// order, is in no group.
func TestFanOut(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":["score","customers"],"dimensions":["orders.status"]}`)
	check(t, r, false, []string{"orders.status", "score", "customers"},
		// paid: orders 1 (customer 1) and 3 (customer 2): 7 + 3 = 10.
		[]any{"paid", int64(10), int64(2)},
		// open: order 2 (customer 1) only: 7 (order 5 has no customer).
		[]any{"open", int64(7), int64(1)},
	)
	// Both homes stacked: customers by region count customer 3 too; an
	// orders metric is 0 there (COUNT) and NULL for NULL (SUM).
	r = eval(t, m, tables, `{"metrics":["customers","orders","revenue"],"dimensions":["customers.region"]}`)
	check(t, r, false, []string{"customers.region", "customers", "orders", "revenue"},
		[]any{"eu", int64(2), int64(3), 35.75},
		[]any{"us", int64(1), int64(0), nil},
		[]any{nil, int64(0), int64(2), 1.0},
	)
}

// TestDSTBucket: in Europe/Amsterdam on 2024-10-27 both 02:30s (00:30Z
// CEST and 01:30Z CET) fall in the 02:00 hour; 02:30Z is 03:30 CET.
func TestDSTBucket(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":["orders"],"dimensions":[{"field":"orders.at","grain":"hour"}],"filters":[{"field":"orders.at","op":"in_date_range","values":["2024-10-27","2024-10-27"]}],"timezone":"Europe/Amsterdam","order_by":[{"key":"orders.at.hour"}]}`)
	wall := func(s string) time.Time { t, _ := time.Parse("2006-01-02 15:04", s); return t }
	check(t, r, true, []string{"orders.at.hour", "orders"},
		[]any{wall("2024-10-27 02:00"), int64(2)},
		[]any{wall("2024-10-27 03:00"), int64(1)},
	)
	// The same instants in UTC: three hours.
	r = eval(t, m, tables, `{"metrics":["orders"],"dimensions":[{"field":"orders.at","grain":"day"}],"timezone":"America/New_York"}`)
	check(t, r, false, []string{"orders.at.day", "orders"},
		// 00:30Z, 01:30Z, 02:30Z on the 27th are the evening of the 26th in New York (EDT, -4).
		[]any{wall("2024-10-26 00:00"), int64(3)},
		[]any{wall("2024-10-28 00:00"), int64(1)},
		[]any{wall("2024-11-02 00:00"), int64(1)},
	)
}

// TestOrderLimitTotal: order by an unselected metric descending, NULLs
// last, then the dimension; total counts the rows before limit/offset.
func TestOrderLimitTotal(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":["orders"],"dimensions":["orders.customer_id"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":2,"offset":1,"total":true}`)
	// revenue per customer_id: 1 → 30.75, 2 → 5, 9 → 1, NULL → NULL;
	// desc NULLs last: 1, 2, 9, NULL; offset 1 limit 2: 2, 9.
	check(t, r, true, []string{"orders.customer_id", "orders"}, []any{int64(2), int64(1)}, []any{int64(9), int64(1)})
	if r.Total == nil || *r.Total != 4 {
		t.Fatalf("total %v, want 4", r.Total)
	}
}

// TestFilters: each op on hand-picked rows.
func TestFilters(t *testing.T) {
	m, tables := shop()
	cases := []struct {
		filter string
		want   int64 // orders admitted
	}{
		{`{"field":"orders.status","op":"=","values":["paid"]}`, 3},
		{`{"field":"orders.status","op":"!=","values":["paid"]}`, 2},
		{`{"field":"orders.customer_id","op":"in","values":[1,9]}`, 3},
		{`{"field":"orders.customer_id","op":"not_in","values":[1]}`, 2}, // NULL is not "not in"
		{`{"field":"orders.amount","op":"gt","values":[5]}`, 2},
		{`{"field":"orders.amount","op":"gte","values":[5]}`, 3},
		{`{"field":"orders.amount","op":"lt","values":[5]}`, 1},
		{`{"field":"orders.amount","op":"lte","values":[5]}`, 2},
		{`{"field":"orders.amount","op":"between","values":[5, 10.5]}`, 2},
		{`{"field":"orders.status","op":"contains","values":["AI"]}`, 3},
		{`{"field":"orders.status","op":"starts_with","values":["Pa"]}`, 0},
		{`{"field":"orders.amount","op":"is_null"}`, 1},
		{`{"field":"orders.amount","op":"is_not_null"}`, 4},
		{`{"field":"customers.region","op":"is_null"}`, 2},
		// UTC day 2024-10-27 (date ends: the whole day).
		{`{"field":"orders.at","op":"in_date_range","values":["2024-10-27","2024-10-27"]}`, 3},
		// A timestamp end is exact: 01:30:00 included, 02:30 not.
		{`{"field":"orders.at","op":"in_date_range","values":["2024-10-27","2024-10-27 01:30:00"]}`, 2},
		{`{"field":"orders.at","op":"between","values":["2024-10-28","2024-11-02"]}`, 2},
	}
	for _, c := range cases {
		r := eval(t, m, tables, `{"metrics":["orders"],"filters":[`+c.filter+`]}`)
		check(t, r, false, []string{"orders"}, []any{c.want})
	}
}

// TestMembers: a query without metrics lists distinct members.
func TestMembers(t *testing.T) {
	m, tables := shop()
	r := eval(t, m, tables, `{"metrics":[],"dimensions":["customers.region"]}`)
	check(t, r, false, []string{"customers.region"}, []any{"eu"}, []any{"us"})
	// With a filter on orders the home is orders: NULL for orders 4, 5.
	r = eval(t, m, tables, `{"metrics":[],"dimensions":["customers.region"],"filters":[{"field":"orders.status","op":"=","values":["open"]}]}`)
	check(t, r, false, []string{"customers.region"}, []any{"eu"}, []any{nil})
}

// TestRefusals: documented codes.
func TestRefusals(t *testing.T) {
	m, tables := shop()
	m.Datasets[1].PrimaryKey = nil
	_, err := Evaluate(Input{Model: m, Tables: tables, Query: []byte(`{"metrics":["score"],"dimensions":["orders.status"]}`)})
	var ref *Refused
	if !errors.As(err, &ref) || ref.Code != "OSS4008" {
		t.Fatalf("got %v, want OSS4008", err)
	}
}
