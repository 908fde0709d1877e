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
	"github.com/ossie-dev/ossie/server"
)

// BenchmarkPlanFlights plans a 3-metric, 2-dimension query (one of them a
// time grain, one a derived ratio) on the flights model: planning only, no
// engine. Target (issue 2): at most 50 µs per op.
func BenchmarkPlanFlights(b *testing.B) {
	q := &plan.Query{
		Metrics:    []string{"flight_count", "avg_delay", "on_time_rate"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
		Filters:    []plan.Filter{{Field: "destination.state", Op: "in", Values: []any{"CA", "NY"}}},
		OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}},
		Limit:      intp(100),
	}
	benchPlan(b, loadFlights(b, false), q)
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
      - name: flight_count_prior_period
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "period_over_period", "offset": "prior_period", "output": "value"}}'}]
      - name: flight_count_ytd
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "cumulative", "window": "to_date", "grain": "year"}}'}]
      - name: flight_count_prior_year_ytd
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count_ytd}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "period_over_period", "offset": "prior_year", "output": "value"}}'}]
      - name: flight_count_ytd_vs_prior_year
        expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count_ytd / flight_count_prior_year_ytd}]}
`

// BenchmarkPlanFlightsWindow plans a running total and a prior-year
// comparison by origin state and month on the flights model.
func BenchmarkPlanFlightsWindow(b *testing.B) {
	q := &plan.Query{
		Metrics:    []string{"flight_count", "flight_count_running", "flight_count_prior_year"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
		Filters:    []plan.Filter{{Field: "flights.departure_time", Op: "in_date_range", Values: []any{"2024-01-01", "2024-12-31"}}},
	}
	benchPlan(b, loadFlights(b, true), q)
}

// BenchmarkPlanFlightsCompare plans two compared date ranges (Cube's
// compareDateRange) of a running total, a prior year and a year-to-date
// against the prior year's year-to-date, by origin state and month.
func BenchmarkPlanFlightsCompare(b *testing.B) {
	q := &plan.Query{
		Metrics: []string{"flight_count", "flight_count_running", "flight_count_prior_year", "flight_count_ytd_vs_prior_year"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month",
			CompareDateRange: []any{[]any{"2001-04-01", "2001-06-30"}, []any{"2000-04-01", "2000-06-30"}}}},
	}
	benchPlan(b, loadFlights(b, true), q)
}

// BenchmarkWindowVsRawSQL answers a running total and a prior-period
// comparison of flights by origin state and month, through server.Answer
// and as hand-written SQL (a month spine crossed with the states, window
// functions) on the same DuckDB database; the ratio server/raw is the
// overhead of the metric types. Full 3 M rows when fetched, else the
// sample.
func BenchmarkWindowVsRawSQL(b *testing.B) {
	dir := sampleDir
	if _, err := os.Stat(filepath.Join(fullDir, "flights-3m.parquet")); err == nil {
		dir = fullDir
	}
	e := newEnv(b, dir)
	ctx := context.Background()
	srv, err := server.New(server.Config{Engine: e.eng, Models: []*compiler.Artifact{loadFlights(b, true)}})
	if err != nil {
		b.Fatal(err)
	}
	n := e.raw(ctx, b, "SELECT COUNT(*) FROM flights")[0][0]
	q := &plan.Query{
		Metrics:    []string{"flight_count", "flight_count_running", "flight_count_prior_period"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
	}
	hand := `WITH per AS (SELECT o.state, CAST(date_trunc('month', f.date) AS DATE) AS m, COUNT(*) AS n
		  FROM flights f LEFT JOIN airports o ON f.origin = o.iata GROUP BY 1, 2),
		months AS (SELECT CAST(g AS DATE) AS m FROM generate_series((SELECT MIN(m) FROM per), (SELECT MAX(m) FROM per), INTERVAL 1 MONTH) AS t(g)),
		states AS (SELECT DISTINCT state FROM per)
		SELECT s.state, months.m, COALESCE(per.n, 0),
		  SUM(COALESCE(per.n, 0)) OVER (PARTITION BY s.state ORDER BY months.m),
		  LAG(COALESCE(per.n, 0)) OVER (PARTITION BY s.state ORDER BY months.m)
		FROM months CROSS JOIN states s LEFT JOIN per ON per.m = months.m AND per.state IS NOT DISTINCT FROM s.state
		ORDER BY 1 NULLS LAST, 2`
	res, err := srv.Answer(ctx, "flights", q)
	if err != nil {
		b.Fatal(err)
	}
	if diff := sameRows(e.raw(ctx, b, hand), res.Rows); diff != "" {
		b.Fatalf("server and raw SQL disagree: %s", diff)
	}
	b.Logf("flights: %v rows from %s; %d answer rows", n, e.flightsFile, len(res.Rows))
	b.Run(fmt.Sprintf("rows=%v", n), func(b *testing.B) {
		b.Run("server", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := srv.Answer(ctx, "flights", q); err != nil {
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

// loadFlights compiles the flights model, with the typed metrics of
// flightsTyped when typed.
func loadFlights(b *testing.B, typed bool) *compiler.Artifact {
	b.Helper()
	data, err := os.ReadFile(modelFile)
	if err != nil {
		b.Fatal(err)
	}
	if typed {
		data = append(data, flightsTyped...)
	}
	arts, probs := compiler.Load(data, compiler.CompileOptions{})
	if probs.HasErrors() {
		b.Fatalf("model: %v", probs)
	}
	return arts[0]
}

// benchPlan times planning q for DuckDB on art (planned once first, so a
// query that does not plan fails instead of timing errors).
func benchPlan(b *testing.B, art *compiler.Artifact, q *plan.Query) {
	b.Helper()
	p, err := plan.New(art)
	if err != nil {
		b.Fatal(err)
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
