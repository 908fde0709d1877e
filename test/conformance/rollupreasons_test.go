package conformance_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// TestRollupReasons asks the flights example, with a day rollup by origin
// (incremental, every hour) and a month rollup by destination state built
// on DuckDB, PostgreSQL and Trino, one question per decision EXPLAIN
// reports: answered from a rollup, or each reason a rollup is not usable.
// On every engine the answer must equal the base tables' (the same query
// planned without rollups) and EXPLAIN must give the decision.
func TestRollupReasons(t *testing.T) {
	model, err := os.ReadFile(flightsModel)
	if err != nil {
		t.Fatal(err)
	}
	tgs, pgDSN := openTargets(t, "rollup_reasons")
	loadFlights(t, tgs, pgDSN)
	decls := []map[string]any{
		{"version": 1, "name": "by_day", "measures": []string{"flight_count", "avg_delay", "on_time_rate"},
			"dimensions": []string{"origin.state"}, "time_dimension": map[string]any{"field": "flights.departure_time", "grain": "day"},
			"partition_grain": "month", "refresh": map[string]any{"mode": "incremental", "every": "1h", "lookback": 2}},
		{"version": 1, "name": "by_destination", "measures": []string{"flight_count"},
			"dimensions": []string{"destination.state"}, "time_dimension": map[string]any{"field": "flights.departure_time", "grain": "month"}},
	}
	withRollups := rollupPlanners(t, model, nil, decls, tgs, "reasons")
	base := map[string]*plan.Planner{}
	for _, tg := range tgs {
		if base[tg.name], err = planner(model, tg.eng.Dialect()); err != nil {
			t.Fatal(err)
		}
	}
	states := map[string][]plan.RollupState{}
	for _, tg := range tgs {
		states[tg.name] = withRollups[tg.name].Rollups()
	}
	// restate replaces the state of rollup by_day on every engine.
	restate := func(edit func(*plan.RollupState) bool) {
		for _, tg := range tgs {
			var next []plan.RollupState
			for _, st := range states[tg.name] {
				if st.Name != "by_day" || edit(&st) {
					next = append(next, st)
				}
			}
			withRollups[tg.name].Rollups = func() []plan.RollupState { return next }
		}
	}
	month := plan.Dimension{Field: "flights.departure_time", Grain: "month"}
	cases := []struct {
		name    string
		q       plan.Query
		state   func(*plan.RollupState) bool // nil: as built
		explain []string
	}{
		{name: "used", q: plan.Query{Metrics: []string{"flight_count", "on_time_rate"}, Dimensions: []plan.Dimension{{Field: "origin.state"}, month}},
			explain: []string{"rollup by_day: used", "rollup by_destination: dimension origin.state is not in the rollup"}},
		{name: "coarsest used", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "destination.state"}}},
			explain: []string{"rollup by_destination: used", "rollup by_day: dimension destination.state is not in the rollup"}},
		{name: "grain does not nest", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "destination.state"}, {Field: "flights.departure_time", Grain: "week"}}},
			explain: []string{"rollup by_destination: dimension flights.departure_time.week is by week, which does not nest in the rollup's month"}},
		{name: "filter not covered", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "origin.state"}},
			Filters: []plan.Filter{{Field: "destination.state", Op: "=", Value: "CA"}}},
			explain: []string{"rollup by_day: filter on destination.state is not in the rollup"}},
		{name: "time filter without grain", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "origin.state"}},
			Filters: []plan.Filter{{Field: "flights.departure_time", Op: "gte", Value: "2001-03-15 12:00:00"}}},
			explain: []string{"rollup by_day: filter on flights.departure_time has no grain"}},
		{name: "metric not in the rollup", q: plan.Query{Metrics: []string{"avg_distance"}, Dimensions: []plan.Dimension{{Field: "origin.state"}}},
			explain: []string{"rollup by_day: metric avg_distance is not in the rollup"}},
		{name: "no metric", q: plan.Query{Dimensions: []plan.Dimension{{Field: "origin.state"}}},
			explain: []string{"rollup by_day: a query without metrics"}},
		{name: "time zone", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{month}, Timezone: "America/New_York"},
			explain: []string{"rollup by_day: the query's time zone America/New_York is not UTC"}},
		{name: "stale", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "origin.state"}}},
			state:   func(st *plan.RollupState) bool { st.BuiltAt = time.Now().Add(-2 * time.Hour); return true },
			explain: []string{"rollup by_day: it is stale"}},
		{name: "other version", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "origin.state"}}},
			state:   func(st *plan.RollupState) bool { st.ArtifactVersion = "sha256:0ld"; return true },
			explain: []string{"rollup by_day: it was built for artifact version sha256:0ld"}},
		{name: "not built", q: plan.Query{Metrics: []string{"flight_count"}, Dimensions: []plan.Dimension{{Field: "origin.state"}}},
			state:   func(*plan.RollupState) bool { return false },
			explain: []string{"rollup by_day: it is not built"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			restate(func(st *plan.RollupState) bool { return c.state == nil || c.state(st) })
			c.q.OrderBy = nil
			for _, d := range c.q.Dimensions {
				c.q.OrderBy = append(c.q.OrderBy, plan.Order{Key: d.Field + grainSuffix(d.Grain)})
			}
			got := map[string][][]any{}
			for _, tg := range tgs {
				p, probs := withRollups[tg.name].Plan(&c.q, tg.eng.Dialect())
				if probs.HasErrors() {
					t.Fatalf("%s: %s", tg.name, problemsText(probs))
				}
				explain := p.Explain()
				for _, w := range c.explain {
					if !strings.Contains(explain, w) {
						t.Errorf("%s: EXPLAIN lacks %q:\n%s", tg.name, w, explain)
					}
				}
				if used := strings.Contains(explain, ": used"); used != (p.Rollup != "") {
					t.Errorf("%s: Plan.Rollup %q and EXPLAIN disagree:\n%s", tg.name, p.Rollup, explain)
				}
				_, rows, sql, err := answer(tg, withRollups[tg.name], &c.q)
				if err != nil {
					t.Fatalf("%s: %v\nSQL:\n%s", tg.name, err, sql)
				}
				_, want, _, err := answer(tg, base[tg.name], &c.q)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 {
					t.Fatalf("%s: the base tables answer nothing", tg.name)
				}
				if ok, why := casefile.Match(want, rows, true, Tolerance); !ok {
					t.Errorf("%s: differs from the base tables: %s\nSQL:\n%s", tg.name, why, sql)
				}
				counts.add("rollup reasons", tg.name)
				got[tg.name] = rows
			}
			crossCheck(t, "rollup reasons "+c.name, got, true, Tolerance)
		})
	}
}

func grainSuffix(g string) string {
	if g == "" {
		return ""
	}
	return "." + g
}
