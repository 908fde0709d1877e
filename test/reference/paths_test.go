package reference

import (
	"errors"
	"testing"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// parallel is orders reaching one calendar by order day and by ship day
// (the data of conformance case JA-01, by day number): order 6 has not
// shipped, order 7 ships on a day the calendar does not hold.
func parallel() (*Model, []dcase.Table) {
	m := &Model{
		Name: "ja",
		Datasets: []Dataset{
			{Name: "orders", Table: "orders", PrimaryKey: []string{"id"}, Fields: []Field{
				{Name: "id", Column: "id"}, {Name: "order_day", Column: "order_day"},
				{Name: "ship_day", Column: "ship_day"}, {Name: "amount", Column: "amount"},
			}},
			{Name: "calendar", Table: "calendar", PrimaryKey: []string{"day"}, Fields: []Field{
				{Name: "day", Column: "day"}, {Name: "month", Column: "month"}, {Name: "kind", Column: "kind"},
			}},
		},
		Relationships: []Relationship{
			{Name: "by_order", From: "orders", To: "calendar", FromColumns: []string{"order_day"}, ToColumns: []string{"day"}},
			{Name: "by_ship", From: "orders", To: "calendar", FromColumns: []string{"ship_day"}, ToColumns: []string{"day"}},
		},
		Metrics: []Metric{{Name: "revenue", Expr: &Agg{Func: "SUM", Dataset: "orders", Field: "amount"}}},
	}
	i := func(n int64) any { return n }
	orders := dcase.Table{Name: "orders", Columns: []dcase.Column{
		{Name: "id", Type: dcase.Integer}, {Name: "order_day", Type: dcase.Integer}, {Name: "ship_day", Type: dcase.Integer}, {Name: "amount", Type: dcase.Integer},
	}, Rows: [][]any{
		{i(1), i(130), i(131), i(10)}, {i(2), i(131), i(203), i(20)}, {i(3), i(131), i(205), i(40)}, {i(4), i(203), i(205), i(80)},
		{i(5), i(205), i(302), i(160)}, {i(6), i(205), nil, i(320)}, {i(7), i(302), i(309), i(640)},
	}}
	calendar := dcase.Table{Name: "calendar", Columns: []dcase.Column{
		{Name: "day", Type: dcase.Integer}, {Name: "month", Type: dcase.Varchar}, {Name: "kind", Type: dcase.Varchar},
	}, Rows: [][]any{
		{i(130), "01", "weekday"}, {i(131), "01", "weekday"}, {i(203), "02", "weekend"}, {i(205), "02", "weekday"}, {i(302), "03", "weekend"},
	}}
	return m, []dcase.Table{orders, calendar}
}

// TestTwoPaths: the calendar joined once per path, a filter along one
// path beside a dimension along the other, and the refusals of a member
// that names no path or a path it is not on.
func TestTwoPaths(t *testing.T) {
	m, tables := parallel()
	r := eval(t, m, tables, `{"metrics":["revenue"],"dimensions":[{"field":"calendar.month","via":"by_order"},{"field":"calendar.month","via":"by_ship"}]}`)
	check(t, r, false, []string{"calendar.month@by_order", "calendar.month@by_ship", "revenue"},
		[]any{"01", "01", int64(10)}, []any{"01", "02", int64(60)}, []any{"02", "02", int64(80)},
		[]any{"02", "03", int64(160)}, []any{"02", nil, int64(320)}, []any{"03", nil, int64(640)})
	r = eval(t, m, tables, `{"metrics":["revenue"],"dimensions":[{"field":"calendar.month","via":"by_order"}],"filters":[{"field":"calendar.kind","via":"by_ship","op":"=","values":["weekday"]}]}`)
	check(t, r, false, []string{"calendar.month@by_order", "revenue"}, []any{"01", int64(50)}, []any{"02", int64(80)})
	for q, code := range map[string]string{
		`{"metrics":["revenue"],"dimensions":["calendar.month"]}`:                                         "OSS4011",
		`{"metrics":["revenue"],"dimensions":[{"field":"orders.id","via":"by_ship"}]}`:                    "OSS4013",
		`{"metrics":["revenue"],"dimensions":[{"field":"calendar.month","via":"no_such"}]}`:               "OSS4013",
		`{"metrics":["revenue"],"filters":[{"metric":"revenue","via":"by_ship","op":"gt","values":[1]}]}`: "OSS4013",
	} {
		_, err := Evaluate(Input{Model: m, Tables: tables, Query: []byte(q)})
		var ref *Refused
		if !errors.As(err, &ref) || ref.Code != code {
			t.Errorf("%s: want %s, got %v", q, code, err)
		}
	}
}
