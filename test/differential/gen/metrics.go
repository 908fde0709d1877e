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
	if b.shape == "fact" || b.shape == "star2" && b.o.Shape == "star2" {
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
}
