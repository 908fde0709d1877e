package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// The suite with rollups (docs/rollups.md): every case query and every
// flights question runs again on the three engines with, for each query,
// a rollup declared that covers it (its metrics, its dimensions and
// filtered fields, its first time grain), built on each engine from
// plan.BuildRollup as the operator builds it, and handed to the planner
// as fresh. The answers must be the expected ones and agree across the
// engines, whether the planner answered from a rollup or, when it could
// not prove the answer the same, from the base tables. TestMain's summary
// counts the queries answered from a rollup per engine (group "... from
// a rollup").

// rollupUse counts, per group, how many rollups the compiler refused to
// declare (a measure that cannot be re-aggregated, OSS2054), and how many
// builds were refused for a join choice.
var rollupUse = struct {
	sync.Mutex
	refused map[string]int
	unbuilt int // builds refused for a join choice (OSS4011), per engine
}{refused: map[string]int{}}

// TestSharedCasesWithRollups is TestSharedCases, TestMetricTypeCases and
// TestTimeZoneCases with rollups.
func TestSharedCasesWithRollups(t *testing.T) {
	cs, err := casefile.LoadAll(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(slices.Clone(metricCases), tzCases...) {
		c, err := casefile.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	for _, c := range cs {
		t.Run(c.ID, func(t *testing.T) {
			tgs := loadCase(t, c)
			decls := make([]map[string]any, len(c.Queries))
			for i, q := range c.Queries {
				pq, probs := plan.ParseQuery(q.JSON)
				if probs.HasErrors() {
					t.Fatalf("%s %s: %s", c.ID, q.Name, problemsText(probs))
				}
				decls[i] = rollupFor("q"+strconv.Itoa(i), pq)
			}
			planners := rollupPlanners(t, c.Model, c.Governance, decls, tgs, "cases")
			for _, q := range c.Queries {
				t.Run(q.Name, func(t *testing.T) {
					runCaseQuery(t, tgs, planners, c, q, "cases with rollups")
					countRollupUse(t, tgs, planners, q.JSON, q.Caller, "cases")
				})
			}
		})
	}
}

// TestFlightsWithRollups is TestFlights with rollups.
func TestFlightsWithRollups(t *testing.T) {
	runFlights(t, true)
}

// countRollupUse plans the query again and counts it under group "...
// from a rollup" for each engine whose plan reads a rollup.
func countRollupUse(t *testing.T, tgs []target, planners map[string]*plan.Planner, body []byte, caller *casefile.Caller, group string) {
	q, _ := plan.ParseQuery(body)
	var c *plan.Caller
	if caller != nil {
		c = &plan.Caller{Roles: caller.Roles, Attributes: caller.Attributes}
	}
	for _, tg := range tgs {
		if p, probs := planners[tg.name].PlanFor(q, tg.eng.Dialect(), c); !probs.HasErrors() && p.Rollup != "" {
			counts.add(group+" from a rollup", tg.name)
		}
	}
}

// rollupFor declares a rollup named name that covers q: its metrics (and
// those it filters on) as measures, its dimensions and filtered fields as
// dimensions, except the first one with a grain, which is the time
// dimension at that grain. nil for a query without metrics.
func rollupFor(name string, q *plan.Query) map[string]any {
	if len(q.Metrics) == 0 {
		return nil
	}
	measures := slices.Clone(q.Metrics)
	var dims []string
	var timeDim map[string]any
	member := func(field, grain string) {
		switch {
		case field == "":
		case grain != "" && timeDim == nil:
			timeDim = map[string]any{"field": field, "grain": grain}
		case timeDim != nil && timeDim["field"] == field:
		case !slices.Contains(dims, field):
			dims = append(dims, field)
		}
	}
	for _, d := range q.Dimensions {
		member(d.Field, d.Grain)
	}
	for _, f := range q.Filters {
		member(f.Field, f.Grain)
		if f.Metric != "" && !slices.Contains(measures, f.Metric) {
			measures = append(measures, f.Metric)
		}
	}
	decl := map[string]any{"version": 1, "name": name, "measures": measures}
	if len(dims) > 0 {
		decl["dimensions"] = dims
	}
	if timeDim != nil {
		decl["time_dimension"] = timeDim
	}
	return decl
}

// refusedRollup finds the index of the rollup a problem is about.
var refusedRollup = regexp.MustCompile(`rollups\[(\d+)\]`)

// rollupPlanners compiles model with decls (nil entries skipped) declared
// in its Ossie extension, for each target's dialect, dropping each rollup
// the compiler refuses (counted under group); builds every declared
// rollup on every target; and returns planners that see them as fresh.
func rollupPlanners(t *testing.T, model, gov []byte, decls []map[string]any, tgs []target, group string) map[string]*plan.Planner {
	t.Helper()
	var kept []map[string]any
	for _, d := range decls {
		if d != nil {
			kept = append(kept, d)
		}
	}
	planners := map[string]*plan.Planner{}
	for _, tg := range tgs {
		d := tg.eng.Dialect()
		var art *compiler.Artifact
		for {
			doc := withRollups(t, model, kept)
			arts, probs := compiler.LoadGoverned(doc, gov, compiler.CompileOptions{Dialect: d})
			if !probs.HasErrors() {
				art = arts[0]
				break
			}
			drop := -1
			for _, p := range probs {
				if m := refusedRollup.FindStringSubmatch(p.Path); p.Severity == compiler.SeverityError && m != nil {
					drop, _ = strconv.Atoi(m[1])
					break
				}
			}
			if drop < 0 || drop >= len(kept) {
				t.Fatalf("the model with rollups does not compile for %s:\n%s", tg.name, problemsText(probs))
			}
			kept = slices.Delete(kept, drop, drop+1)
			rollupUse.Lock()
			rollupUse.refused[group]++
			rollupUse.Unlock()
		}
		states := buildRollups(t, tg, art)
		p, err := plan.New(art)
		if err != nil {
			t.Fatal(err)
		}
		p.Rollups = func() []plan.RollupState { return states }
		planners[tg.name] = p
	}
	return planners
}

// buildRollups builds every rollup of art on tg in its session schema,
// through engine.Materializer as the operator does, and returns their
// states, built now.
func buildRollups(t *testing.T, tg target, art *compiler.Artifact) []plan.RollupState {
	t.Helper()
	mat, ok := tg.eng.(engine.Materializer)
	if !ok {
		t.Fatalf("%s cannot hold rollup tables", tg.name)
	}
	schema := sessionSchema(t, tg)
	var states []plan.RollupState
	for _, r := range art.Rollups {
		rb, probs := plan.BuildRollup(art, r.Name, tg.eng.Dialect())
		if probs.HasErrors() {
			if len(probs) == 1 && probs[0].Code == compiler.CodeAmbiguousJoin {
				// A documented limit (docs/rollups.md, "Limits"): the rollup
				// stays unbuilt and the base tables answer.
				rollupUse.Lock()
				rollupUse.unbuilt++
				rollupUse.Unlock()
				continue
			}
			t.Errorf("rollup %s for %s: %s", r.Name, tg.name, problemsText(probs))
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, err := mat.BuildTable(ctx, engine.TableDef{Schema: schema, Name: r.Table, Query: rb.SQL, Comment: "conformance"})
		cancel()
		if err != nil {
			t.Errorf("building rollup %s on %s: %v\nSQL:\n%s", r.Name, tg.name, err, rb.SQL)
			continue
		}
		states = append(states, plan.RollupState{Name: r.Name, Table: append(slices.Clone(schema), r.Table), ArtifactVersion: art.Version, BuiltAt: time.Now()})
	}
	return states
}

// sessionSchema is where tg's tables are: DuckDB main, PostgreSQL public,
// the Trino target's own schema of the memory catalog.
func sessionSchema(t *testing.T, tg target) []string {
	t.Helper()
	switch tg.name {
	case duckName:
		return []string{"main"}
	case postgresStr:
		return []string{"public"}
	}
	res, err := tg.eng.Query(context.Background(), "SELECT current_schema", 1)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("current schema on %s: %v", tg.name, err)
	}
	return []string{"memory", fmt.Sprint(res.Rows[0][0])}
}

// withRollups returns model (a one-model Ossie document) with decls as the
// rollups of its Ossie extension, added to the extension's data when the
// model has one. The result is JSON, which the compiler reads as YAML.
func withRollups(t *testing.T, model []byte, decls []map[string]any) []byte {
	t.Helper()
	raw, err := yaml.YAMLToJSON(model)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	models, _ := doc["semantic_model"].([]any)
	if len(models) == 0 {
		t.Fatal("the document has no semantic_model")
	}
	sm := models[0].(map[string]any)
	exts, _ := sm["custom_extensions"].([]any)
	var ossie map[string]any
	for _, e := range exts {
		if m, ok := e.(map[string]any); ok && m["vendor_name"] == "OSSIE" {
			ossie = m
		}
	}
	if ossie == nil {
		ossie = map[string]any{"vendor_name": "OSSIE", "data": "{}"}
		exts = append(exts, ossie)
	}
	data := map[string]any{}
	if s, _ := ossie["data"].(string); s != "" {
		if err := json.Unmarshal([]byte(s), &data); err != nil {
			t.Fatal(err)
		}
	}
	data["rollups"] = decls
	if decls == nil {
		data["rollups"] = []any{}
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	ossie["data"] = string(b)
	sm["custom_extensions"] = exts
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rollupSummary is the line TestMain prints about rollups.
func rollupSummary() string {
	rollupUse.Lock()
	defer rollupUse.Unlock()
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(rollupUse.refused)) {
		parts = append(parts, fmt.Sprintf("%s %d", g, rollupUse.refused[g]))
	}
	return fmt.Sprintf("rollups the compiler refused to declare: %s; builds refused for a join choice: %d", strings.Join(parts, ", "), rollupUse.unbuilt)
}
