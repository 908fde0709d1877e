package reference

import (
	"testing"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// TestSemiAdditivePer: with per, each account's own latest (earliest)
// snapshot of the group counts, also when it came before the others';
// a NULL account is one entity and a NULL date is never picked.
func TestSemiAdditivePer(t *testing.T) {
	bal := &Agg{Func: "SUM", Dataset: "b", Field: "balance"}
	semi := func(name, pick string, per ...string) Metric {
		return Metric{Name: name, Expr: bal, Type: &MetricType{Type: "semi_additive", Along: "b.on", Pick: pick, Per: per}}
	}
	m := &Model{Name: "bank", Datasets: []Dataset{{Name: "b", Table: "b", PrimaryKey: []string{"id"}, Fields: []Field{
		{Name: "id", Column: "id"}, {Name: "account", Column: "account"}, {Name: "on", Column: "on", IsTime: true}, {Name: "balance", Column: "balance"},
	}}}, Metrics: []Metric{semi("closing", "last", "b.account"), semi("opening", "first", "b.account"), semi("closing_whole", "last")}}
	tables := []dcase.Table{{Name: "b", Columns: []dcase.Column{{Name: "id", Type: dcase.Integer}, {Name: "account", Type: dcase.Integer}, {Name: "on", Type: dcase.Date}, {Name: "balance", Type: dcase.Integer}},
		Rows: [][]any{
			{int64(1), int64(1), day("2024-01-15"), int64(10)},
			{int64(2), int64(1), day("2024-01-31"), int64(20)},
			{int64(3), int64(2), day("2024-01-29"), int64(300)},
			{int64(4), nil, day("2024-01-02"), int64(4000)},
			{int64(5), nil, day("2024-01-03"), int64(5000)},
			{int64(6), int64(3), nil, int64(60000)},
			{int64(7), int64(1), day("2024-02-28"), int64(7)},
		}}}
	r := eval(t, m, tables, `{"metrics":["closing","opening","closing_whole"],"dimensions":[{"field":"b.on","grain":"month"}]}`)
	check(t, r, false, []string{"b.on.month", "closing", "opening", "closing_whole"},
		[]any{day("2024-01-01"), int64(5320), int64(4310), int64(20)}, // 20 + 300 + 5000; 10 + 300 + 4000; the 31st only
		[]any{day("2024-02-01"), int64(7), int64(7), int64(7)},
		[]any{nil, nil, nil, nil}, // account 3's NULL date: never picked
	)
}
