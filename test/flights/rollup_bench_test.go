package flights_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server"
)

// dashboardRollup is one rollup covering the dashboard's three questions:
// the flights by origin state, by destination state and by month.
const dashboardRollup = `
    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "dashboard", "measures": ["flight_count", "avg_distance", "avg_delay", "on_time_rate", "on_time_flights"],
          "dimensions": ["origin.state", "destination.state"], "time_dimension": {"field": "flights.departure_time", "grain": "month"}}]}'
`

// dashboard is the first three questions of `make demo`
// (examples/flights/demo): top origin states, flights and punctuality per
// month, destination states by on-time rate with at least 100 arrivals.
func dashboard() []*plan.Query {
	return []*plan.Query{
		{Metrics: []string{"flight_count", "avg_distance", "avg_delay"}, Dimensions: []plan.Dimension{{Field: "origin.state"}},
			OrderBy: []plan.Order{{Key: "flight_count", Dir: "desc"}, {Key: "origin.state"}}, Limit: intp(10)},
		{Metrics: []string{"flight_count", "avg_delay", "on_time_rate"}, Dimensions: []plan.Dimension{{Field: "flights.departure_time", Grain: "month"}},
			OrderBy: []plan.Order{{Key: "flights.departure_time.month"}}},
		{Metrics: []string{"on_time_rate", "on_time_flights", "flight_count"}, Dimensions: []plan.Dimension{{Field: "destination.state"}},
			Filters: []plan.Filter{{Metric: "flight_count", Op: "gte", Values: []any{100}}},
			OrderBy: []plan.Order{{Key: "on_time_rate", Dir: "desc"}, {Key: "destination.state"}}, Limit: intp(10)},
	}
}

// BenchmarkRollupDashboard answers the dashboard through server.Answer on
// the same DuckDB database from the base tables (base) and from the
// rollup (rollup), whose build is timed once and reported as
// build-ms; the ratio base/rollup of the two sub-benchmarks is the gain.
// BenchmarkRollupBuild times the build itself. The full 3 M rows are used
// when examples/flights/data/full exists (`make fetch-flights`), else the
// committed sample; rows= says which. Both servers must give the same
// answers, or the comparison means nothing.
func BenchmarkRollupDashboard(b *testing.B) {
	e, art, build := rollupEnv(b)
	ctx := context.Background()
	start := time.Now()
	states := build()
	buildTime := time.Since(start)
	withRollup := rollupServer(b, e, art, states)
	for _, q := range dashboard() {
		_, base := e.answer(ctx, b, q)
		res, err := withRollup.Answer(ctx, "flights", q)
		if err != nil {
			b.Fatal(err)
		}
		if diff := sameRows(base, res.Rows); diff != "" {
			b.Fatalf("rollup and base tables disagree: %s", diff)
		}
		if p, _ := withRollup.PlanSQL(ctx, "flights", q); p == nil || !containsRollup(p.SQL, art) {
			b.Fatalf("the rollup does not answer %+v", q)
		}
	}
	n := e.raw(ctx, b, "SELECT COUNT(*) FROM flights")[0][0]
	b.Run(fmt.Sprintf("rows=%v", n), func(b *testing.B) {
		b.Run("base", answerDashboard(ctx, e.srv))
		b.Run("rollup", func(b *testing.B) {
			answerDashboard(ctx, withRollup)(b)
			b.ReportMetric(float64(buildTime.Microseconds())/1000, "build-ms")
		})
	})
}

// answerDashboard is a benchmark answering the dashboard through srv.
func answerDashboard(ctx context.Context, srv *server.Server) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, q := range dashboard() {
				if _, err := srv.Answer(ctx, "flights", q); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkRollupBuild builds the dashboard rollup (CREATE TABLE AS and
// the swap) on the flights data.
func BenchmarkRollupBuild(b *testing.B) {
	e, _, build := rollupEnv(b)
	n := e.raw(context.Background(), b, "SELECT COUNT(*) FROM flights")[0][0]
	b.Run(fmt.Sprintf("rows=%v", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			build()
		}
	})
}

// rollupEnv loads the flights data (full when present) and compiles the
// model with the dashboard rollup; build builds it in schema
// ossie_rollups and returns its state.
func rollupEnv(b *testing.B) (*env, *compiler.Artifact, func() []v1alpha1.RollupState) {
	b.Helper()
	e, model := dashboardEnv(b)
	arts, probs := compiler.Load(model, compiler.CompileOptions{})
	if probs.HasErrors() {
		b.Fatalf("model: %v", probs)
	}
	art := arts[0]
	r := art.Rollup("dashboard")
	rb, probs := plan.BuildRollup(art, r.Name, e.eng.Dialect())
	if probs.HasErrors() {
		b.Fatal(probs)
	}
	build := func() []v1alpha1.RollupState {
		rows, err := e.eng.BuildTable(context.Background(), engine.TableDef{Schema: []string{"ossie_rollups"}, Name: r.Table, Query: rb.SQL})
		if err != nil {
			b.Fatal(err)
		}
		return []v1alpha1.RollupState{{Model: art.Name, Name: r.Name, Table: []string{"ossie_rollups", r.Table},
			ArtifactVersion: art.Version, BuiltAt: time.Now(), Rows: rows}}
	}
	return e, art, build
}

// dashboardEnv loads the flights data (full when present) and returns
// the model document with the dashboard rollup.
func dashboardEnv(b *testing.B) (*env, []byte) {
	b.Helper()
	dir := sampleDir
	if _, err := os.Stat(filepath.Join(fullDir, "flights-3m.parquet")); err == nil {
		dir = fullDir
	}
	e := newEnv(b, dir)
	src, err := os.ReadFile(modelFile)
	if err != nil {
		b.Fatal(err)
	}
	return e, append(src, dashboardRollup...)
}

// rollupServer is a server over art on e's engine that knows states.
func rollupServer(b *testing.B, e *env, art *compiler.Artifact, states []v1alpha1.RollupState) *server.Server {
	b.Helper()
	store := server.NewStore(nil)
	store.SetRollups("files", states)
	if err := store.Set(server.Source{Key: "files"}, []*compiler.Artifact{art}); err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e.eng, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

func containsRollup(sql string, art *compiler.Artifact) bool {
	return len(art.Rollups) == 1 && strings.Contains(sql, art.Rollups[0].Table)
}
