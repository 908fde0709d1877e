package flights_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// BenchmarkPlanFlights plans a 3-metric, 2-dimension query (one of them a
// time grain, one a derived ratio) on the flights model: planning only, no
// engine. Target (issue 2): at most 50 µs per op.
func BenchmarkPlanFlights(b *testing.B) {
	data, err := os.ReadFile(modelFile)
	if err != nil {
		b.Fatal(err)
	}
	arts, probs := compiler.Load(data, compiler.CompileOptions{})
	if probs.HasErrors() {
		b.Fatalf("model: %v", probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		b.Fatal(err)
	}
	q := &plan.Query{
		Metrics:    []string{"flight_count", "avg_delay", "on_time_rate"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
		Filters:    []plan.Filter{{Field: "destination.state", Op: "in", Values: []any{"CA", "NY"}}},
		OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}},
		Limit:      intp(100),
	}
	if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
		b.Fatalf("plan: %v", probs)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
			b.Fatal(probs)
		}
	}
}

// BenchmarkServerVsRawSQL answers "flight count by origin state" two ways
// on the same DuckDB database: through server.Answer (plan + run + result
// shaping, the HTTP query path minus HTTP) and as hand-written SQL run
// directly on the engine. The ratio server/raw of the two sub-benchmarks
// is the semantic layer's overhead (target: at most 1.05). It uses the full
// 3 M rows when examples/flights/data/full exists (`make fetch-flights`),
// else the committed 30,000-row sample; the rows= sub-benchmark name says
// which.
func BenchmarkServerVsRawSQL(b *testing.B) {
	dir := sampleDir
	if _, err := os.Stat(filepath.Join(fullDir, "flights-3m.parquet")); err == nil {
		dir = fullDir
	}
	e := newEnv(b, dir)
	ctx := context.Background()
	n := e.raw(ctx, b, "SELECT COUNT(*) FROM flights")[0][0]
	q := &plan.Query{
		Metrics:    []string{"flight_count"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}},
		OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}, {Key: "origin.state"}},
	}
	hand := `SELECT o.state, COUNT(*) AS n
		FROM flights f LEFT JOIN airports o ON f.origin = o.iata
		GROUP BY o.state ORDER BY n DESC, o.state`

	// Both must give the same answer, or the comparison means nothing.
	_, got := e.answer(ctx, b, q)
	if diff := sameRows(e.raw(ctx, b, hand), got); diff != "" {
		b.Fatalf("server and raw SQL disagree: %s", diff)
	}
	b.Logf("flights: %v rows from %s", n, e.flightsFile)

	b.Run(fmt.Sprintf("rows=%v", n), func(b *testing.B) {
		b.Run("server", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.srv.Answer(ctx, "flights", q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("raw", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.eng.Query(ctx, hand, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// flightsTyped are metric types (docs/metrics.md) on the flights model,
// appended to its metrics list for the benchmark below.
const flightsTyped = `
      - name: flight_count_running
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "cumulative", "window": "all"}}'}]
      - name: flight_count_prior_year
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "period_over_period", "offset": "prior_year", "output": "value"}}'}]
`

// BenchmarkPlanFlightsWindow plans a running total and a prior-year
// comparison by origin state and month on the flights model.
func BenchmarkPlanFlightsWindow(b *testing.B) {
	data, err := os.ReadFile(modelFile)
	if err != nil {
		b.Fatal(err)
	}
	arts, probs := compiler.Load(append(data, flightsTyped...), compiler.CompileOptions{})
	if probs.HasErrors() {
		b.Fatalf("model: %v", probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		b.Fatal(err)
	}
	q := &plan.Query{
		Metrics:    []string{"flight_count", "flight_count_running", "flight_count_prior_year"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
		Filters:    []plan.Filter{{Field: "flights.departure_time", Op: "in_date_range", Values: []any{"2024-01-01", "2024-12-31"}}},
	}
	if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
		b.Fatalf("plan: %v", probs)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() {
			b.Fatal(probs)
		}
	}
}
