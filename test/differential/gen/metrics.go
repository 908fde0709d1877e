package gen

import (
	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/reference"
)

func (b *builder) add(kind *[]string, m reference.Metric) {
	b.m.Metrics = append(b.m.Metrics, m)
	*kind = append(*kind, m.Name)
}

func agg(fn, ds, field string) *reference.Agg {
	return &reference.Agg{Func: fn, Dataset: ds, Field: field}
}

// metrics draws plain aggregates of every function, filtered aggregates,
// derived and ratio metrics and, outside the "star2" shape, typed ones.
func (b *builder) metrics() {
	r := b.r
	amountType := b.field("fact.amount").ct
	// COUNT(*) lives at the model's single root; a constellation has none.
	if b.hasG {
		b.add(&b.plain, reference.Metric{Name: "n_rows", Expr: agg("COUNT", "fact", "id")})
	} else {
		b.add(&b.plain, reference.Metric{Name: "n_rows", Expr: agg("COUNT_STAR", "fact", "")})
	}
	b.add(&b.plain, reference.Metric{Name: "amount_sum", Expr: agg("SUM", "fact", "amount")})
	b.add(&b.plain, reference.Metric{Name: "qty_sum", Expr: agg("SUM", "fact", "qty")})
	b.add(&b.plain, reference.Metric{Name: "cat_count", Expr: agg("COUNT", "fact", "cat")})
	b.add(&b.plain, reference.Metric{Name: "cat_distinct", Expr: agg("COUNT_DISTINCT", "fact", "cat")})
	b.add(&b.plain, reference.Metric{Name: "amount_avg", Expr: agg("AVG", "fact", "amount")})
	b.add(&b.plain, reference.Metric{Name: "amount_min", Expr: agg("MIN", "fact", "amount")})
	b.add(&b.plain, reference.Metric{Name: "qty_max", Expr: agg("MAX", "fact", "qty")})
	w := pick(r, words[:4])
	b.add(&b.plain, reference.Metric{Name: "amount_w", Expr: &reference.Agg{Func: "SUM", Dataset: "fact", Field: "amount", When: &reference.Cond{Field: "cat", Op: "=", Value: w}}})
	b.add(&b.plain, reference.Metric{Name: "big_rows", Expr: &reference.Agg{Func: "COUNT_STAR", Dataset: "fact", When: &reference.Cond{Field: "qty", Op: ">", Value: int64(r.Intn(30))}}})
	ratio := reference.Metric{Name: "amount_per_row", Expr: &reference.Bin{Op: "/", L: reference.Ref{Metric: "amount_sum"}, R: reference.Ref{Metric: "n_rows"}}}
	if chance(r, 0.5) {
		ratio.Datatype = "Float"
	}
	b.add(&b.plain, ratio)
	b.add(&b.plain, reference.Metric{Name: "w_share", Expr: &reference.Bin{Op: "/", L: reference.Ref{Metric: "amount_w"}, R: reference.Ref{Metric: "amount_sum"}}})
	b.add(&b.plain, reference.Metric{Name: "qty_less_cats", Expr: &reference.Bin{Op: "-", L: reference.Ref{Metric: "qty_sum"}, R: reference.Ref{Metric: "cat_count"}}})
	b.add(&b.plain, reference.Metric{Name: "pct_big", Expr: &reference.Bin{Op: "/", L: &reference.Bin{Op: "*", L: reference.Const{Value: int64(100)}, R: reference.Ref{Metric: "big_rows"}}, R: reference.Ref{Metric: "n_rows"}}})
	if amountType == dcase.Integer && chance(r, 0.5) {
		// A declared type that agrees with the engine's.
		b.m.Metrics[1].Datatype = "Integer"
	}
	if b.o.Shape == "star2" {
		return
	}
	if b.shape == "fact" {
		b.typedMetrics()
		return
	}
	// Homed on the dimension: grouped by a fact member it fans out.
	b.add(&b.plain, reference.Metric{Name: "d1_count", Expr: agg("COUNT", "d1", "id")})
	b.add(&b.plain, reference.Metric{Name: "tier_sum", Expr: agg("SUM", "d1", "tier")})
	b.add(&b.plain, reference.Metric{Name: "rows_per_d1", Expr: &reference.Bin{Op: "/", L: reference.Ref{Metric: "n_rows"}, R: reference.Ref{Metric: "d1_count"}}})
	if b.hasG {
		b.add(&b.plain, reference.Metric{Name: "g_val", Expr: agg("SUM", "g", "val")})
		b.add(&b.plain, reference.Metric{Name: "g_rows", Expr: agg("COUNT", "g", "id")})
	}
	b.typedMetrics()
}

func typed(t reference.MetricType) *reference.MetricType { return &t }

// typedMetrics adds metrics of every type of docs/metrics.md over the
// fact's time field, their windows sized to the case's time scale.
func (b *builder) typedMetrics() {
	r := b.r
	n := reference.Ref{Metric: "n_rows"}
	amount := reference.Ref{Metric: "amount_sum"}
	b.add(&b.typed, reference.Metric{Name: "amount_running", Expr: amount, Type: typed(reference.MetricType{Type: "cumulative", Window: "all"})})
	b.add(&b.typed, reference.Metric{Name: "n_running", Expr: agg("COUNT", "fact", "id"), Type: typed(reference.MetricType{Type: "cumulative", Window: "all"})})
	toDate := map[string][]string{"hour": {"day"}, "day": {"week", "month"}, "month": {"quarter", "year"}}[b.scale]
	b.add(&b.typed, reference.Metric{Name: "n_to_date", Expr: n, Type: typed(reference.MetricType{Type: "cumulative", Window: "to_date", Grain: pick(r, toDate)})})
	type win struct {
		count int
		unit  string
	}
	rolls := map[string][]win{"hour": {{3, "hour"}, {1, "day"}}, "day": {{7, "day"}, {2, "week"}, {10, "day"}}, "month": {{3, "month"}, {30, "day"}, {1, "year"}}}[b.scale]
	rw := pick(r, rolls)
	b.add(&b.typed, reference.Metric{Name: "amount_rolling", Expr: amount, Type: typed(reference.MetricType{Type: "rolling", Count: rw.count, Unit: rw.unit})})
	rw = pick(r, rolls)
	b.add(&b.typed, reference.Metric{Name: "n_rolling", Expr: n, Type: typed(reference.MetricType{Type: "rolling", Count: rw.count, Unit: rw.unit})})
	for _, off := range []string{"prior_period", "prior_year"} {
		out := pick(r, []string{"value", "difference", "ratio"})
		b.add(&b.typed, reference.Metric{Name: "n_" + off + "_" + out, Expr: n, Type: typed(reference.MetricType{Type: "period_over_period", Offset: off, Output: out})})
		out = pick(r, []string{"value", "difference", "ratio"})
		b.add(&b.typed, reference.Metric{Name: "amount_" + off + "_" + out, Expr: amount, Type: typed(reference.MetricType{Type: "period_over_period", Offset: off, Output: out})})
	}
	// A plain metric over typed ones, and a typed one over a windowed one.
	b.add(&b.typed, reference.Metric{Name: "running_avg", Expr: &reference.Bin{Op: "/", L: reference.Ref{Metric: "amount_running"}, R: reference.Ref{Metric: "n_running"}}})
	b.add(&b.typed, reference.Metric{Name: "n_to_date_prior", Expr: reference.Ref{Metric: "n_to_date"}, Type: typed(reference.MetricType{Type: "period_over_period", Offset: pick(r, []string{"prior_period", "prior_year"}), Output: "value"})})
	along := "fact.at"
	b.add(&b.semi, reference.Metric{Name: "qty_semi", Expr: agg("SUM", "fact", "qty"), Type: typed(reference.MetricType{Type: "semi_additive", Along: along, Pick: pick(r, []string{"last", "first", "min", "max"})})})
	if b.hasG {
		units := []string{"day", "week", "hour"}
		if b.field("fact.at").ct == dcase.Date {
			units = units[:2]
		}
		conv := typed(reference.MetricType{
			Type: "conversion", Entity: "fact.d1_id", At: "fact.at", ToEntity: "g.d1_id", ToAt: "g.at", Count: 1 + r.Intn(5), Unit: pick(r, units)})
		conv.Calculation = pick(b.x, []string{"", "conversion_rate", "conversions", "conversions"})
		if chance(b.x, 0.4) {
			conv.ToFilter = &reference.Cond{Field: "val", Op: pick(b.x, []string{">", ">=", "<", "<>"}), Value: int64(b.x.Intn(40) - 10)}
		}
		b.add(&b.conv, reference.Metric{Name: "converted", Expr: agg("COUNT_DISTINCT", "fact", "d1_id"), Type: conv})
		b.add(&b.conv, reference.Metric{Name: "rows_less_converted", Expr: &reference.Bin{Op: "-", L: n, R: reference.Ref{Metric: "converted"}}})
	}
}
