package conformance_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// casesDir holds the shared semantic cases (../shared/cases), with their
// hand-checked answers.
const casesDir = "../cases"

// TestSharedCases runs every query of every shared case on the three
// engines, each loaded with the case's tables.sql, and compares each
// answer with the hand-checked rows and with DuckDB's answer.
func TestSharedCases(t *testing.T) {
	cs, err := casefile.LoadAll(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatalf("no cases under %s", casesDir)
	}
	for _, c := range cs {
		t.Run(c.ID, func(t *testing.T) { runCase(t, c, "shared cases", false) })
	}
}

// tzCases are this suite's own cases in the casefile format: time zones
// and daylight-saving changes, which no shared case covers.
var tzCases = []string{filepath.Join("testdata", "TZ-01")}

// metricCases are this suite's cases of metric types (docs/metrics.md):
// running totals, grain-to-date, rolling windows, period over period,
// semi-additive balances and conversion.
var metricCases = []string{filepath.Join("testdata", "MT-01"), filepath.Join("testdata", "MT-02"), filepath.Join("testdata", "MT-03"), filepath.Join("testdata", "MT-04"), filepath.Join("testdata", "MT-05")}

// TestMetricTypeCases runs metricCases like the time-zone cases, each
// expected answer first proven by its check_sql on DuckDB.
func TestMetricTypeCases(t *testing.T) { runCaseDirs(t, metricCases, "metric types") }

// joinAliasCases are this suite's cases of one dataset used along several
// join paths in one query (query-semantics.md, Choosing a path).
var joinAliasCases = []string{filepath.Join("testdata", "JA-01")}

// TestJoinAliasCases runs joinAliasCases like the metric-type cases, each
// expected answer first proven by its check_sql on DuckDB.
func TestJoinAliasCases(t *testing.T) { runCaseDirs(t, joinAliasCases, "join aliases") }

// semiAdditiveCases are the cases of semi-additive metrics per entity
// (docs/metrics.md, "Per entity").
var semiAdditiveCases = []string{filepath.Join("testdata", "SA-01")}

// TestSemiAdditiveCases runs semiAdditiveCases like metricCases.
func TestSemiAdditiveCases(t *testing.T) {
	runCaseDirs(t, semiAdditiveCases, "semi-additive per entity")
}

// conversionCases are this suite's cases of complete conversion metrics
// (issue 26, item 4): the count of converted entities, a filter on the
// conversion event, a calendar window and a derived metric over a count.
var conversionCases = []string{filepath.Join("testdata", "CV-01")}

// TestConversionCases runs conversionCases like metricCases.
func TestConversionCases(t *testing.T) { runCaseDirs(t, conversionCases, "conversion") }

// dimensionOnlyCases are this suite's cases of queries without metrics
// across datasets (issue 26, item 2): the linking fact, through, a filter
// two hops away, refusals.
var dimensionOnlyCases = []string{filepath.Join("testdata", "DO-01")}

// TestDimensionOnlyCases runs dimensionOnlyCases like metricCases.
func TestDimensionOnlyCases(t *testing.T) { runCaseDirs(t, dimensionOnlyCases, "dimension-only") }

// runCaseDirs runs the cases of dirs, each expected answer first proven
// by its check_sql on DuckDB; group names them in the suite's counts.
func runCaseDirs(t *testing.T, dirs []string, group string) {
	for _, dir := range dirs {
		c, err := casefile.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.ID, func(t *testing.T) { runCase(t, c, group, true) })
	}
}

// bareNameCases are the cases of bare column names inside aggregates in
// models of several datasets (docs/authoring.md, "Bare names").
var bareNameCases = []string{filepath.Join("testdata", "BN-01")}

// TestBareNameCases runs bareNameCases like metricCases.
func TestBareNameCases(t *testing.T) { runCaseDirs(t, bareNameCases, "bare names") }

// TestTimeZoneCases runs tzCases like the shared cases, after proving
// each expected answer with its check_sql on DuckDB.
func TestTimeZoneCases(t *testing.T) { runCaseDirs(t, tzCases, "time zones") }

// runCase loads the case's tables on the three engines and runs every
// query; with checkSQL, each query's check_sql must first give the
// expected rows on DuckDB.
func runCase(t *testing.T, c *casefile.Case, group string, checkSQL bool) {
	tgs := loadCase(t, c)
	planners := map[string]*plan.Planner{}
	for _, tg := range tgs {
		p, err := governedPlanner(c.Model, c.Governance, tg.eng.Dialect())
		if err != nil {
			t.Fatalf("%s for %s: %v", c.ID, tg.name, err)
		}
		planners[tg.name] = p
	}
	for _, q := range c.Queries {
		t.Run(q.Name, func(t *testing.T) {
			if q.Refused != nil {
				checkCaseRefused(t, tgs, planners, c, q)
				return
			}
			if checkSQL {
				res, err := tgs[0].eng.Query(context.Background(), q.CheckSQL, 0)
				if err != nil {
					t.Fatalf("%s %s: check_sql: %v", c.ID, q.Name, err)
				}
				if ok, why := casefile.Match(q.Expected.Rows, res.Rows, q.Ordered, q.Tolerance); !ok {
					t.Fatalf("%s %s: check_sql disagrees with the expected rows: %s\ngot:\n%s", c.ID, q.Name, why, casefile.FormatRows(res.Rows))
				}
				checkWrong(t, tgs[0], c, q)
			}
			runCaseQuery(t, tgs, planners, c, q, group)
		})
	}
}

// checkWrong runs each typical wrong answer of q on tg: it must fail to
// give the expected rows, else the case could not tell it from the right
// one.
func checkWrong(t *testing.T, tg target, c *casefile.Case, q casefile.Query) {
	t.Helper()
	for _, w := range q.Wrong {
		res, err := tg.eng.Query(context.Background(), w.SQL, 0)
		if err != nil {
			t.Errorf("%s %s: wrong-answer SQL %q: %v", c.ID, q.Name, w.Label, err)
			continue
		}
		if ok, _ := casefile.Match(q.Expected.Rows, res.Rows, q.Ordered, q.Tolerance); ok {
			t.Errorf("%s %s: typical wrong answer %q equals the expected rows, so the case cannot detect it", c.ID, q.Name, w.Label)
		}
	}
}

// checkCaseRefused plans q for every engine: each must refuse it with the
// expected code, naming every expected word.
func checkCaseRefused(t *testing.T, tgs []target, planners map[string]*plan.Planner, c *casefile.Case, q casefile.Query) {
	t.Helper()
	pq, probs := plan.ParseQuery(q.JSON)
	if probs.HasErrors() {
		t.Fatalf("%s %s: query does not parse:\n%s", c.ID, q.Name, problemsText(probs))
	}
	for _, tg := range tgs {
		_, probs := planners[tg.name].PlanFor(pq, tg.eng.Dialect(), nil)
		if len(probs) == 0 || probs[0].Code != q.Refused.Code {
			t.Errorf("%s %s on %s: got %v, want a refusal %s", c.ID, q.Name, tg.name, probs, q.Refused.Code)
			continue
		}
		for _, w := range q.Refused.Mentions {
			if !strings.Contains(probs[0].Message, w) {
				t.Errorf("%s %s on %s: the refusal does not name %q: %s", c.ID, q.Name, tg.name, w, probs[0].Message)
			}
		}
	}
}

// loadCase opens the three engines with the case's tables.
func loadCase(t *testing.T, c *casefile.Case) []target {
	tgs, _ := openTargets(t, "case_"+strings.ToLower(strings.ReplaceAll(c.ID, "-", "_")))
	for _, tg := range tgs {
		if tg.name == trinoName {
			copyTablesToTrino(t, tgs[0].eng.(*duckdb.Engine), "main", tg)
			continue
		}
		if err := execScript(tg, c.TablesSQL); err != nil {
			t.Fatalf("%s: loading tables.sql on %s: %v", c.ID, tg.name, err)
		}
	}
	return tgs
}

func runCaseQuery(t *testing.T, tgs []target, planners map[string]*plan.Planner, c *casefile.Case, q casefile.Query, group string) {
	pq, probs := plan.ParseQuery(q.JSON)
	if probs.HasErrors() {
		t.Fatalf("%s %s: query does not parse:\n%s", c.ID, q.Name, problemsText(probs))
	}
	got := map[string][][]any{}
	for _, tg := range tgs {
		var caller *plan.Caller
		if q.Caller != nil {
			caller = &plan.Caller{Roles: q.Caller.Roles, Attributes: q.Caller.Attributes}
		}
		cols, rows, sql, err := answerFor(tg, planners[tg.name], pq, caller)
		if err != nil {
			t.Errorf("case %s %s on %s: %v\nSQL:\n%s", c.ID, q.Name, tg.name, err, sql)
			continue
		}
		counts.add(group, tg.name)
		rows, err = casefile.Reorder(rows, cols, q.Expected.Columns)
		if err != nil {
			t.Errorf("case %s %s on %s: %v", c.ID, q.Name, tg.name, err)
			continue
		}
		got[tg.name] = rows
		if ok, why := casefile.Match(q.Expected.Rows, rows, q.Ordered, q.Tolerance); !ok {
			t.Errorf("case %s %s: %s disagrees with the expected answer: %s\n%s got:\n%sexpected:\n%sSQL:\n%s",
				c.ID, q.Name, tg.name, why, tg.name, casefile.FormatRows(rows), casefile.FormatRows(q.Expected.Rows), sql)
		}
	}
	crossCheck(t, fmt.Sprintf("case %s %s", c.ID, q.Name), got, q.Ordered, q.Tolerance)
}

// crossCheck compares every engine's rows with DuckDB's.
func crossCheck(t *testing.T, what string, got map[string][][]any, ordered bool, tol float64) {
	t.Helper()
	ref, ok := got[duckName]
	if !ok {
		return
	}
	for _, name := range engineNames[1:] {
		rows, ok := got[name]
		if !ok {
			continue
		}
		if same, why := casefile.Match(ref, rows, ordered, tol); !same {
			t.Errorf("%s: %s and %s disagree: %s\n%s:\n%s%s:\n%s", what, name, duckName, why, duckName, casefile.FormatRows(ref), name, casefile.FormatRows(rows))
		}
	}
}

// execScript runs a script of ;-separated statements one at a time, as a
// Trino coordinator takes them.
func execScript(tg target, script string) error {
	for _, stmt := range splitStatements(script) {
		if err := tg.eng.Exec(context.Background(), stmt); err != nil {
			return fmt.Errorf("%w\nstatement: %s", err, stmt)
		}
	}
	return nil
}

// splitStatements splits at semicolons outside string literals, quoted
// identifiers and -- comments, dropping empty statements.
func splitStatements(script string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	comment := false
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" && !onlyComments(s) {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(script); i++ {
		ch := script[i]
		switch {
		case comment:
			if ch == '\n' {
				comment = false
			}
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '-' && i+1 < len(script) && script[i+1] == '-':
			comment = true
		case ch == ';':
			flush()
			continue
		}
		cur.WriteByte(ch)
	}
	flush()
	return out
}

func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}
