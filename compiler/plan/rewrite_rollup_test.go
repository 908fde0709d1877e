package plan_test

import (
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// builtAt is when the test's rollups were built; the planners' clock
// reads an hour later.
var builtAt = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// rollupEnv is the flights sample in DuckDB with every rollup of
// flightsRollupDecl built by its build SQL, and two planners of one
// artifact: base (no rollup states) and withRollups (every rollup fresh).
type rollupEnv struct {
	art               *compiler.Artifact
	db                *sql.DB
	base, withRollups *plan.Planner
	states            []plan.RollupState
}

func newRollupEnv(t *testing.T, art *compiler.Artifact) *rollupEnv {
	t.Helper()
	e := &rollupEnv{art: art, db: openFlightsSample(t)}
	if _, err := e.db.Exec(`CREATE SCHEMA ossie`); err != nil {
		t.Fatal(err)
	}
	for _, r := range art.Rollups {
		rb, probs := plan.BuildRollup(art, r.Name, dialect.DuckDB)
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		if _, err := e.db.Exec(`CREATE TABLE ossie."` + rb.Table + `" AS ` + rb.SQL); err != nil {
			t.Fatal(err)
		}
		e.states = append(e.states, plan.RollupState{Name: r.Name, Table: []string{"ossie", r.Table}, ArtifactVersion: art.Version, BuiltAt: builtAt})
	}
	e.base = e.planner(t, nil)
	e.withRollups = e.planner(t, e.states)
	return e
}

func (e *rollupEnv) planner(t *testing.T, states []plan.RollupState) *plan.Planner {
	t.Helper()
	p, err := plan.New(e.art)
	if err != nil {
		t.Fatal(err)
	}
	p.Now = func() time.Time { return builtAt.Add(time.Hour) }
	if states != nil {
		p.Rollups = func() []plan.RollupState { return states }
	}
	return p
}

func query(t *testing.T, body string) *plan.Query {
	t.Helper()
	q, probs := plan.ParseQuery([]byte(body))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	return q
}

// TestRollupAnswersEqualBase: every query is answered from the expected
// rollup (or from the base tables, with the expected reason), and its rows
// are the rows the base tables give, on DuckDB.
func TestRollupAnswersEqualBase(t *testing.T) {
	e := newRollupEnv(t, flightsRollups(t, ""))
	cases := []struct {
		name, query, rollup, reason string
	}{
		{"day to month, derived and average metrics",
			`{"metrics": ["flight_count", "avg_delay", "on_time_rate"], "dimensions": ["origin.state", {"field": "flights.departure_time", "grain": "month"}]}`, "flights_by_day", ""},
		{"weeks from Sunday with a filter on a rollup dimension",
			`{"metrics": ["total_distance"], "dimensions": [{"field": "flights.departure_time", "grain": "week", "week_start": "sunday"}], "filters": [{"field": "origin.state", "op": "in", "values": ["CA", "NY"]}]}`, "flights_by_day", ""},
		{"a time filter at a nesting grain, MAX and FILTER aggregates",
			`{"metrics": ["max_delay", "delayed_flights"], "dimensions": ["flights.origin_code"], "filters": [{"field": "flights.departure_time", "grain": "month", "op": "between", "values": ["2001-02-01", "2001-03-01"]}]}`, "flights_by_day", ""},
		{"the coarsest rollup that fits", `{"metrics": ["flight_count", "avg_distance"], "dimensions": ["destination.state"]}`, "by_destination", ""},
		{"no dimension", `{"metrics": ["on_time_rate", "flight_count"]}`, "flights_by_day", "rollup by_destination: metric on_time_rate is not in the rollup"},
		{"distinct count with its key kept", `{"metrics": ["origins"], "dimensions": ["origin.state", {"field": "flights.departure_time", "grain": "quarter"}]}`, "flights_by_day", ""},
		{"metric filter, order and limit",
			`{"metrics": ["flight_count"], "dimensions": ["origin.state"], "filters": [{"metric": "flight_count", "op": "gt", "values": [100]}], "order_by": [{"key": "flight_count", "dir": "desc"}], "limit": 5}`, "flights_by_day", "rollup by_origin_name: dimension origin.state is not in the rollup"},
		{"a coarser rollup answers too", `{"metrics": ["flight_count"], "dimensions": ["flights.origin_code"]}`, "by_origin_name", "rollup flights_by_day: rollup by_origin_name answers too, from no more columns"},
		{"a running total over the rollup", `{"metrics": ["flights_ytd"], "dimensions": [{"field": "flights.departure_time", "grain": "month"}]}`, "flights_by_day", ""},
		{"a dimension in no rollup", `{"metrics": ["flight_count"], "dimensions": ["destination.state"], "filters": [{"field": "origin.state", "op": "=", "value": "CA"}]}`, "",
			"rollup flights_by_day: dimension destination.state is not in the rollup"},
		{"another time zone", `{"metrics": ["flight_count"], "dimensions": [{"field": "flights.departure_time", "grain": "month"}], "timezone": "America/New_York"}`, "",
			"rollup flights_by_day: the query's time zone America/New_York is not UTC"},
		{"a time filter without grain", `{"metrics": ["flight_count"], "dimensions": ["origin.state"], "filters": [{"field": "flights.departure_time", "op": "gte", "value": "2001-03-01 12:00"}]}`, "",
			"rollup flights_by_day: filter on flights.departure_time has no grain; the rollup keeps flights.departure_time by day only"},
		{"a date range on day boundaries without grain", `{"metrics": ["flight_count", "avg_delay"], "dimensions": ["origin.state"], "filters": [{"field": "flights.departure_time", "op": "in_date_range", "values": ["2001-02-03", "2001-02-17"]}]}`, "flights_by_day", ""},
		{"a date bound that gt cannot keep exact", `{"metrics": ["flight_count"], "dimensions": ["origin.state"], "filters": [{"field": "flights.departure_time", "op": "gt", "value": "2001-03-01"}]}`, "",
			"rollup flights_by_day: filter on flights.departure_time has no grain; the rollup keeps flights.departure_time by day only"},
		{"a metric no rollup can hold", `{"metrics": ["median_delay"], "dimensions": ["origin.state"]}`, "",
			"rollup flights_by_day: metric median_delay is not in the rollup"},
		{"a rollup dimension behind a one-to-many hop", `{"metrics": ["airport_count"], "dimensions": ["origin.state"]}`, "",
			"rollup airports_by_destination: rollup dimension flights.destination_code is reached from origin through one-to-many flight_origin"},
		{"the one-to-many dimension grouped", `{"metrics": ["airport_count"], "dimensions": ["origin.state", "flights.destination_code"]}`, "airports_by_destination", ""},
		{"two homes, both asked", `{"metrics": ["airport_count", "flight_count"], "dimensions": ["origin.state"]}`, "two_homes", ""},
		{"two homes, one asked", `{"metrics": ["flight_count"], "dimensions": ["origin.state"], "filters": [{"field": "origin.state", "op": "!=", "value": "CA"}]}`, "flights_by_day",
			"rollup two_homes: the rollup holds groups of flights, origin rows; the query's measures read fewer datasets"},
		{"members only", `{"dimensions": ["origin.state"]}`, "",
			"rollup flights_by_day: a query without metrics lists its members from the base tables"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := query(t, c.query)
			pl, probs := e.withRollups.Plan(q, dialect.DuckDB)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if pl.Rollup != c.rollup {
				t.Fatalf("answered from %q, want %q\n%s", pl.Rollup, c.rollup, pl.Explain())
			}
			if c.reason != "" && !strings.Contains(pl.Explain(), c.reason) {
				t.Fatalf("EXPLAIN does not say %q:\n%s", c.reason, pl.Explain())
			}
			if c.rollup != "" && !strings.Contains(pl.Explain(), "rollup "+c.rollup+": used") {
				t.Fatalf("EXPLAIN does not name the rollup used:\n%s", pl.Explain())
			}
			basePl, probs := e.base.Plan(q, dialect.DuckDB)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if c.rollup != "" && (basePl.Rollup != "" || basePl.SQL == pl.SQL) {
				t.Fatal("the planner without rollup states used a rollup")
			}
			got, want := queryRows(t, e.db, pl.SQL), queryRows(t, e.db, basePl.SQL)
			if len(want) == 0 {
				t.Fatal("the base answer is empty: the case checks nothing")
			}
			if diff := compareRows(got, want); diff != "" {
				t.Fatalf("%s\nrollup SQL: %s\nbase SQL: %s", diff, pl.SQL, basePl.SQL)
			}
		})
	}
}

// TestRollupGoverned: masks apply on a rollup's columns, and a row filter
// too when it reads only kept columns of the measures' home; otherwise the
// base tables answer. Governed answers equal the governed base answers.
func TestRollupGoverned(t *testing.T) {
	gov, err := os.ReadFile(filepath.Join("..", "..", "examples", "flights", "governance.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.LoadGoverned([]byte(flightsRollupsDoc(t, "")), gov, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	e := newRollupEnv(t, arts[0])
	analyst := &plan.Caller{Roles: []string{"analyst"}, Attributes: map[string]string{"airport": "SFO"}}
	cases := []struct{ name, query, rollup, reason string }{
		{"masked dimension and row filter on kept columns", `{"metrics": ["flight_count"], "dimensions": ["origin.name"]}`, "by_origin_name", ""},
		{"row filter on kept columns, coarser time", `{"metrics": ["on_time_rate"], "dimensions": [{"field": "flights.departure_time", "grain": "month"}]}`, "flights_by_day", ""},
		{"row filter on a column the rollup does not keep", `{"metrics": ["flight_count", "avg_distance"], "dimensions": ["destination.state"]}`, "",
			"rollup by_destination: the caller's row filter on flights cannot be applied on the rollup's columns (it reads flights.origin_code, which the rollup does not keep as it is)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := query(t, c.query)
			pl, probs := e.withRollups.PlanFor(q, dialect.DuckDB, analyst)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if pl.Rollup != c.rollup || !strings.Contains(pl.Explain(), c.reason) {
				t.Fatalf("answered from %q, want %q (reason %q)\n%s", pl.Rollup, c.rollup, c.reason, pl.Explain())
			}
			basePl, probs := e.base.PlanFor(q, dialect.DuckDB, analyst)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			got, want := queryRows(t, e.db, pl.SQL), queryRows(t, e.db, basePl.SQL)
			if len(want) == 0 {
				t.Fatal("the base answer is empty: the case checks nothing")
			}
			if diff := compareRows(got, want); diff != "" {
				t.Fatalf("%s\nrollup SQL: %s\nbase SQL: %s", diff, pl.SQL, basePl.SQL)
			}
			all, _ := e.withRollups.Plan(q, dialect.DuckDB)
			if len(queryRows(t, e.db, all.SQL)) == len(want) && c.name != "row filter on kept columns, coarser time" {
				t.Fatal("the ungoverned answer has as many rows: the row filter checks nothing")
			}
		})
	}
}

// TestRollupNotUsable: each reason a rollup is not used, as EXPLAIN words
// it, with the base tables answering.
func TestRollupNotUsable(t *testing.T) {
	art := flightsRollups(t, `[{"version": 1, "name": "m", "measures": ["flight_count"], "dimensions": ["origin.state"],`+
		` "time_dimension": {"field": "flights.departure_time", "grain": "month"}, "refresh": {"mode": "schedule", "every": "1h"}},`+
		` {"version": 1, "name": "w", "measures": ["flight_count"], "time_dimension": {"field": "flights.departure_time", "grain": "week"}},`+
		` {"version": 1, "name": "x", "measures": ["origins", "airport_count"], "dimensions": ["flights.origin_code", "origin.state"]}]`)
	m, w, x := art.Rollup("m"), art.Rollup("w"), art.Rollup("x")
	fresh := func(r *compiler.ArtifactRollup) plan.RollupState {
		return plan.RollupState{Name: r.Name, Table: []string{"ossie", r.Table}, ArtifactVersion: art.Version, BuiltAt: builtAt}
	}
	byMonth := `{"metrics": ["flight_count"], "dimensions": [{"field": "flights.departure_time", "grain": "month"}]}`
	stale, other, moved := fresh(m), fresh(m), fresh(m)
	stale.BuiltAt = builtAt.Add(-2 * time.Hour)
	other.ArtifactVersion = "sha256:0"
	moved.Table = []string{"ossie", "ossie_rollup_flights_m_00000000"}
	cases := []struct {
		name   string
		states []plan.RollupState
		query  string
		want   string
	}{
		{"not built", nil, byMonth, "rollup m: it is not built"},
		{"stale under its policy", []plan.RollupState{stale}, byMonth, "rollup m: it is stale: built at 2026-12-01T10:00:00Z, older than its refresh every 1h"},
		{"built for another artifact version", []plan.RollupState{other}, byMonth, "rollup m: it was built for artifact version sha256:0, not this one"},
		{"built from another definition", []plan.RollupState{moved}, byMonth, "rollup m: its state names table [ossie ossie_rollup_flights_m_00000000], its definition builds " + m.Table},
		{"a finer grain", []plan.RollupState{fresh(m)}, `{"metrics": ["flight_count"], "dimensions": [{"field": "flights.departure_time", "grain": "day"}]}`,
			"rollup m: dimension flights.departure_time.day is by day, which does not nest in the rollup's month"},
		{"weeks in months", []plan.RollupState{fresh(m)}, `{"metrics": ["flight_count"], "dimensions": [{"field": "flights.departure_time", "grain": "week"}]}`,
			"rollup m: dimension flights.departure_time.week is by week, which does not nest in the rollup's month"},
		{"Sunday weeks from ISO weeks", []plan.RollupState{fresh(w)}, `{"metrics": ["flight_count"], "dimensions": [{"field": "flights.departure_time", "grain": "week", "week_start": "sunday"}]}`,
			"rollup w: dimension flights.departure_time.week is by weeks from Sunday, which do not nest in the rollup's week"},
		{"a filter on a member not kept", []plan.RollupState{fresh(m)}, `{"metrics": ["flight_count"], "dimensions": ["origin.state"], "filters": [{"field": "destination.state", "op": "=", "value": "CA"}]}`,
			"rollup m: filter on destination.state is not in the rollup"},
		{"a metric not kept", []plan.RollupState{fresh(m)}, `{"metrics": ["total_distance"], "dimensions": ["origin.state"]}`,
			"rollup m: metric total_distance is not in the rollup"},
		{"a dimension joined by the query's via", []plan.RollupState{fresh(m)}, `{"metrics": ["flight_count"], "dimensions": [{"field": "origin.state", "via": "flight_origin"}]}`,
			"rollup m: dimension origin.state@flight_origin is joined via flight_origin; the rollup joins it by the model's path"},
		{"a distinct key kept among the rows of two homes", []plan.RollupState{fresh(x)}, `{"metrics": ["origins", "airport_count"], "dimensions": ["origin.state", "flights.origin_code"]}`,
			"rollup x: metric origins: its aggregate COUNT(DISTINCT (\"flights\".\"origin\")) is not re-aggregatable from the rollup"},
		{"a metric only ordered by", []plan.RollupState{fresh(m)}, `{"metrics": ["flight_count"], "dimensions": ["origin.state"], "order_by": [{"key": "avg_delay"}]}`,
			"rollup m: metric avg_delay is not in the rollup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := plan.New(art)
			if err != nil {
				t.Fatal(err)
			}
			p.Now = func() time.Time { return builtAt.Add(time.Minute) }
			p.Rollups = func() []plan.RollupState { return c.states }
			pl, probs := p.Plan(query(t, c.query), dialect.DuckDB)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			if pl.Rollup != "" || !strings.Contains(pl.Explain(), c.want+"\n") {
				t.Fatalf("answered from %q; want the base tables and %q:\n%s", pl.Rollup, c.want, pl.Explain())
			}
			name, reason, _ := strings.Cut(strings.TrimPrefix(c.want, "rollup "), ": ")
			found := false
			for _, d := range pl.RollupDecisions() {
				found = found || (d.Name == name && !d.Used && d.Reason == reason)
			}
			if !found {
				t.Fatalf("decisions %+v do not hold %s: %s", pl.RollupDecisions(), name, reason)
			}
		})
	}
	// The same query with a fresh state is answered from the rollup, so
	// each case above failed for its own reason only.
	p, _ := plan.New(art)
	p.Now = func() time.Time { return builtAt.Add(time.Minute) }
	p.Rollups = func() []plan.RollupState { return []plan.RollupState{fresh(m)} }
	if pl, _ := p.Plan(query(t, byMonth), dialect.DuckDB); pl.Rollup != "m" {
		t.Fatalf("a fresh rollup is not used:\n%s", pl.Explain())
	}
}

// TestRollupGoldens plans every testdata/rollups/<case>/request.json with
// every rollup fresh, and each rollup's build, for DuckDB, PostgreSQL and
// Trino, and compares the SQL with the goldens (-update rewrites them).
// TestRollupAnswersEqualBase runs such plans against the base answers.
func TestRollupGoldens(t *testing.T) {
	art := flightsRollups(t, "")
	var states []plan.RollupState
	for _, r := range art.Rollups {
		states = append(states, plan.RollupState{Name: r.Name, Table: []string{"ossie", r.Table}, ArtifactVersion: art.Version, BuiltAt: builtAt})
	}
	p, err := plan.New(art)
	if err != nil {
		t.Fatal(err)
	}
	p.Now = func() time.Time { return builtAt }
	p.Rollups = func() []plan.RollupState { return states }
	reqs, _ := filepath.Glob("testdata/rollups/*/request.json")
	if len(reqs) == 0 {
		t.Fatal("no rollup golden cases")
	}
	for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Postgres, dialect.Trino} {
		for _, req := range reqs {
			dir := filepath.Dir(req)
			t.Run(d.Name()+"/"+filepath.Base(dir), func(t *testing.T) {
				pl, probs := p.Plan(readRequest(t, req), d)
				if probs.HasErrors() {
					t.Fatal(probs)
				}
				checkGoldenSQL(t, filepath.Join(dir, "expected."+d.Name()+".sql"), pl.SQL)
			})
		}
		for _, r := range art.Rollups {
			t.Run(d.Name()+"/build/"+r.Name, func(t *testing.T) {
				rb, probs := plan.BuildRollup(art, r.Name, d)
				if probs.HasErrors() {
					t.Fatal(probs)
				}
				checkGoldenSQL(t, filepath.Join("testdata", "rollups", "build", r.Name+"."+d.Name()+".sql"), rb.SQL)
			})
		}
	}
}

// BenchmarkPlanRollups plans one dashboard query of the flights model with
// its rollups declared: base (no rollup built: each rollup is checked and
// refused), fresh (answered from flights_by_day), and without any rollup
// declared, for the cost of the substitution.
func BenchmarkPlanRollups(b *testing.B) {
	q := &plan.Query{Metrics: []string{"flight_count", "avg_delay", "on_time_rate"},
		Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "flights.departure_time", Grain: "month"}},
		Filters:    []plan.Filter{{Field: "origin.state", Op: "in", Values: []any{"CA", "NY"}}}}
	art := flightsRollups(b, "")
	var states []plan.RollupState
	for _, r := range art.Rollups {
		states = append(states, plan.RollupState{Name: r.Name, Table: []string{"ossie", r.Table}, ArtifactVersion: art.Version, BuiltAt: builtAt})
	}
	none := flightsRollups(b, "[]")
	for _, c := range []struct {
		name   string
		art    *compiler.Artifact
		states []plan.RollupState
		used   string
	}{{"no-rollups-declared", none, nil, ""}, {"rollups-not-built", art, nil, ""}, {"rollup-used", art, states, "flights_by_day"}} {
		b.Run(c.name, func(b *testing.B) {
			p, err := plan.New(c.art)
			if err != nil {
				b.Fatal(err)
			}
			p.Now = func() time.Time { return builtAt }
			if c.states != nil {
				p.Rollups = func() []plan.RollupState { return c.states }
			}
			if pl, probs := p.Plan(q, dialect.DuckDB); probs.HasErrors() || pl.Rollup != c.used {
				b.Fatalf("%v %q", probs, pl.Rollup)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Plan(q, dialect.DuckDB)
			}
		})
	}
}

// TestRollupRandomQueries plans random queries of the flights model (a
// fixed seed) with every rollup fresh: whenever a rollup answers, its rows
// are the base tables' rows.
func TestRollupRandomQueries(t *testing.T) {
	e := newRollupEnv(t, flightsRollups(t, ""))
	metrics := []string{"flight_count", "avg_delay", "on_time_rate", "total_distance", "delayed_flights", "max_delay", "origins", "avg_distance", "median_delay", "airport_count", "flights_ytd"}
	dims := []plan.Dimension{{Field: "origin.state"}, {Field: "destination.state"}, {Field: "flights.origin_code"}, {Field: "origin.name"}, {Field: "flights.destination_code"},
		{Field: "flights.departure_time", Grain: "day"}, {Field: "flights.departure_time", Grain: "week"}, {Field: "flights.departure_time", Grain: "week", WeekStart: "sunday"},
		{Field: "flights.departure_time", Grain: "month"}, {Field: "flights.departure_time", Grain: "quarter"}, {Field: "flights.departure_time", Grain: "hour"}}
	filters := []plan.Filter{{Field: "origin.state", Op: "in", Values: []any{"CA", "TX"}}, {Field: "flights.origin_code", Op: "=", Value: "SFO"},
		{Field: "destination.state", Op: "=", Value: "NY"}, {Field: "flights.departure_time", Grain: "month", Op: "between", Values: []any{"2001-02-01", "2001-04-01"}},
		{Field: "flights.departure_time", Grain: "day", Op: "lt", Value: "2001-01-15"}, {Metric: "flight_count", Op: "gt", Value: 20}}
	used := randomRollupQueries(t, e.base, e.withRollups, dialect.DuckDB, metrics, dims, filters, func(t *testing.T, q string) [][]any { return queryRows(t, e.db, q) })
	if used["flights_by_day"] < 20 || used["by_destination"]+used["by_origin_name"]+used["two_homes"] < 5 {
		t.Fatalf("too few queries answered from rollups to check anything: %v", used)
	}
}

// randomRollupQueries plans 200 random queries (a fixed seed) of 1-2
// metrics, 0-2 dimensions and 0-2 filters with base and with (every
// rollup fresh); whenever a rollup answers, the rows run returns for it
// must be the base rows. It returns how many queries each rollup answered.
func randomRollupQueries(t *testing.T, base, with *plan.Planner, d dialect.Dialect, metrics []string, dims []plan.Dimension, filters []plan.Filter, run func(t *testing.T, sql string) [][]any) map[string]int {
	rng := rand.New(rand.NewPCG(1, 2))
	used := map[string]int{}
	for i := 0; i < 200; i++ {
		q := &plan.Query{}
		for _, j := range rng.Perm(len(metrics))[:1+rng.IntN(2)] {
			q.Metrics = append(q.Metrics, metrics[j])
		}
		seen := map[string]bool{}
		for _, j := range rng.Perm(len(dims))[:rng.IntN(3)] {
			if !seen[dims[j].Field] {
				seen[dims[j].Field] = true
				q.Dimensions = append(q.Dimensions, dims[j])
			}
		}
		for _, j := range rng.Perm(len(filters))[:rng.IntN(3)] {
			q.Filters = append(q.Filters, filters[j])
		}
		pl, probs := with.Plan(q, d)
		if probs.HasErrors() || pl.Rollup == "" {
			continue // a typed metric without a time dimension, …; or the base tables answer
		}
		used[pl.Rollup]++
		bp, _ := base.Plan(q, d)
		if diff := compareRows(run(t, pl.SQL), run(t, bp.SQL)); diff != "" {
			b, _ := json.Marshal(q)
			t.Fatalf("%s: %s\nrollup SQL: %s\n%s", b, diff, pl.SQL, pl.Explain())
		}
	}
	t.Logf("answered from rollups: %v", used)
	return used
}

// TestRollupCompareDateRange: each compared date range is planned, and its
// rollup decided, on its own; EXPLAIN and RollupDecisions name the range of
// every decision, and the answer equals the base tables'.
func TestRollupCompareDateRange(t *testing.T) {
	e := newRollupEnv(t, flightsRollups(t, ""))
	q := query(t, `{"metrics": ["flight_count", "avg_delay"], "dimensions": ["origin.state",
		{"field": "flights.departure_time", "grain": "month", "compare_date_range": [["2001-01-01", "2001-02-28"], ["2001-03-01", "2001-04-30"]]}]}`)
	pl, probs := e.withRollups.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if pl.Rollup != "flights_by_day" {
		t.Fatalf("answered from %q, want flights_by_day\n%s", pl.Rollup, pl.Explain())
	}
	ranges := map[string]bool{}
	for _, d := range pl.RollupDecisions() {
		if d.Range == "" {
			t.Fatalf("decision %+v names no date range", d)
		}
		if d.Name == "flights_by_day" {
			if !d.Used {
				t.Fatalf("flights_by_day not used for %s: %s", d.Range, d.Reason)
			}
			ranges[d.Range] = true
			if !strings.Contains(pl.Explain(), "rollup flights_by_day (date range "+d.Range+"): used") {
				t.Fatalf("EXPLAIN does not name the range of the decision:\n%s", pl.Explain())
			}
		}
	}
	if len(ranges) != 2 {
		t.Fatalf("decisions for %d ranges, want 2:\n%s", len(ranges), pl.Explain())
	}
	basePl, probs := e.base.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	got, want := queryRows(t, e.db, pl.SQL), queryRows(t, e.db, basePl.SQL)
	if len(want) == 0 {
		t.Fatal("the base answer is empty: the case checks nothing")
	}
	if diff := compareRows(got, want); diff != "" {
		t.Fatalf("%s\nrollup SQL: %s\nbase SQL: %s", diff, pl.SQL, basePl.SQL)
	}

	// A dimension no rollup keeps: both ranges read the base tables, and
	// EXPLAIN says why for each.
	q = query(t, `{"metrics": ["flight_count"], "dimensions": ["destination.state",
		{"field": "flights.departure_time", "grain": "month", "compare_date_range": [["2001-01-01", "2001-01-31"], ["2001-02-01", "2001-02-28"]]}]}`)
	if pl, probs = e.withRollups.Plan(q, dialect.DuckDB); probs.HasErrors() {
		t.Fatal(probs)
	}
	if pl.Rollup != "" {
		t.Fatalf("answered from %q, want the base tables", pl.Rollup)
	}
	if n := strings.Count(pl.Explain(), "rollup flights_by_day (date range "); n != 2 {
		t.Fatalf("EXPLAIN gives %d range decisions for flights_by_day, want 2:\n%s", n, pl.Explain())
	}
}
