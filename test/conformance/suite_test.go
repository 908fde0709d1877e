// Package conformance_test proves that one query gives the same numbers on
// every engine (DESIGN.md section 5, "the same query returns the same
// numbers on DuckDB, PostgreSQL and Trino"). One list of cases runs through
// the product path (compiler.Load → plan.Planner.Plan for the engine's
// dialect → engine.Query) on:
//
//   - DuckDB, embedded (engine/duckdb);
//   - PostgreSQL, a real server started by test/pgtest (skipped loudly when
//     no installation exists, a failure with OSSIE_REQUIRE_POSTGRES=1);
//   - Trino, a real single-node coordinator started by test/trinoserver
//     (the release scripts/trino.sh fetches; skipped loudly when it is not
//     installed, a failure with OSSIE_REQUIRE_TRINO=1), through
//     engine/trino and trino-go-client, each case group in its own schema
//     of the memory connector.
//
// The cases: every shared case of test/cases and the suite's own time-zone
// case testdata/TZ-01 (cases_test.go), the flights example questions on
// the committed sample (flights_test.go, testdata/flights.yaml) and the
// function cases of functions.yaml plus testdata/smoke.yaml
// (functions_test.go). TestMain prints the wall time and how many queries
// each engine answered. Every value is compared with the expected answer
// AND with the other engines; a disagreement names the case, the engine
// and both values.
package conformance_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// Tolerance is the suite's one numeric tolerance: relative, and absolute
// for values below 1 in magnitude (casefile.Match's rule). Engines sum
// doubles in different orders, so exact equality would test the
// summation order, not the semantics. A case may state its own.
const Tolerance = 1e-9

// Engine names, in the order results are reported; duckdb is the
// reference the others are compared with.
const (
	duckName    = "duckdb"
	postgresStr = "postgres"
	trinoName   = "trino"
)

var engineNames = []string{duckName, postgresStr, trinoName}

func TestMain(m *testing.M) {
	begin := time.Now()
	code := m.Run()
	trinoserver.StopShared()
	pgtest.StopShared()
	fmt.Fprintf(os.Stderr, "conformance: %s wall time; %s; %s\n", time.Since(begin).Round(time.Millisecond), counts.summary(), rollupSummary())
	os.Exit(code)
}

// counts records how many case queries each engine answered, per group.
var counts = &counter{n: map[string]map[string]int{}}

type counter struct {
	mu sync.Mutex
	n  map[string]map[string]int // group → engine → queries
}

func (c *counter) add(group, engine string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[group] == nil {
		c.n[group] = map[string]int{}
	}
	c.n[group][engine]++
}

func (c *counter) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var groups []string
	for g := range c.n {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	var parts []string
	for _, g := range groups {
		var per []string
		for _, e := range engineNames {
			per = append(per, fmt.Sprintf("%s %d", e, c.n[g][e]))
		}
		parts = append(parts, g+": "+strings.Join(per, ", "))
	}
	return "queries answered per engine: " + strings.Join(parts, "; ")
}

// target is one engine a case group runs on.
type target struct {
	name string
	eng  engine.Engine
}

// openTargets opens the three engines on a fresh, empty namespace called
// ns: an in-memory DuckDB, a new PostgreSQL database and a new schema
// ns_N of the memory catalog of the Trino server (the session schema of
// its engine). All close when t ends. pgDSN is the PostgreSQL database's
// DSN, for bulk loads.
func openTargets(t *testing.T, ns string) (tgs []target, pgDSN string) {
	t.Helper()
	ctx := context.Background()
	duck, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { duck.Close() })

	pgDSN = pgtest.Shared(t).NewDatabase(t)
	pg, err := postgres.Open(ctx, postgres.Config{DSN: pgDSN})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })

	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, ns)
	tr, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.AdminUser, "memory", schema), RetryTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return []target{{duckName, duck}, {postgresStr, pg}, {trinoName, tr}}, pgDSN
}

// planner compiles a one-model document for the engine's dialect, as the
// operator does for its engine.
func planner(model []byte, d dialect.Dialect) (*plan.Planner, error) {
	return governedPlanner(model, nil, d)
}

// governedPlanner is planner with the document's governance (nil: none).
func governedPlanner(model, gov []byte, d dialect.Dialect) (*plan.Planner, error) {
	arts, probs := compiler.LoadGoverned(model, gov, compiler.CompileOptions{Dialect: d})
	if probs.HasErrors() {
		return nil, fmt.Errorf("the model does not compile:\n%s", problemsText(probs))
	}
	if len(arts) != 1 {
		return nil, fmt.Errorf("the model compiled to %d artifacts, want 1", len(arts))
	}
	return plan.New(arts[0])
}

// answer plans q for tg's dialect and runs it through engine.Query. It
// returns the result columns as the plan names them and the converted
// rows.
func answer(tg target, p *plan.Planner, q *plan.Query) (cols []string, rows [][]any, sql string, err error) {
	return answerFor(tg, p, q, nil)
}

// answerFor is answer planned for caller c (nil: ungoverned).
func answerFor(tg target, p *plan.Planner, q *plan.Query, c *plan.Caller) (cols []string, rows [][]any, sql string, err error) {
	pl, probs := p.PlanFor(q, tg.eng.Dialect(), c)
	if probs.HasErrors() {
		return nil, nil, "", fmt.Errorf("planning for %s failed:\n%s", tg.name, problemsText(probs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := tg.eng.Query(ctx, pl.SQL, 0)
	if err != nil {
		return nil, nil, pl.SQL, fmt.Errorf("%s refused the planned SQL: %w", tg.name, err)
	}
	for _, c := range pl.Columns {
		cols = append(cols, c.Name)
	}
	if len(cols) != len(res.Columns) {
		return nil, nil, pl.SQL, fmt.Errorf("plan declares columns %v, %s returned %d", cols, tg.name, len(res.Columns))
	}
	return cols, res.Rows, pl.SQL, nil
}

func problemsText(ps compiler.Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}
