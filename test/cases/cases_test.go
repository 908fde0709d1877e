// Semantic cases BC-01..BC-20 (../shared/cases) run end to end on embedded
// DuckDB: load the case tables, compile the case model, plan each query with
// the real planner, run the SQL and compare with the hand-checked answer.
// Each query's check_sql runs on the same data too, proving the expected
// rows are right on this engine, and each typical wrong answer is run to
// prove the case can tell it apart from the right one.
package cases_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// caseIDs are the shared cases this suite must run; a case directory missing
// from disk, or one on disk but not listed here, fails TestCaseFilesComplete.
var caseIDs = []string{
	"BC-01", "BC-03", "BC-04", "BC-05", "BC-06", "BC-09", "BC-10",
	"BC-11", "BC-12", "BC-15", "BC-16", "BC-19", "BC-20",
	"RW-01", // real-world shapes of issue 12 (our own case, not a shared one)
	"RW-02", // dimension-only queries (issue 12 item 7)
	"RW-03", // parallel relationships chosen by via (issue 12 item 3)
	"RW-04", // naive UTC instants in Europe/Amsterdam across DST (issue 12 item 8)
	"RW-05", // fan-out groups (issue 12 item 9)
}

// afterCase holds extra assertions run on a case's database after all its
// queries, keyed by case id.
var afterCase = map[string]func(t *testing.T, db *sql.DB){
	// BC-15: the injection-looking filter values of queries A-E must not
	// have changed the statement or the data: the table still exists with
	// all six rows.
	"BC-15": func(t *testing.T, db *sql.DB) {
		got, err := query(db, `SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'orders'`)
		if err != nil || len(got) != 1 || !casefile.ValueEqual(1, got[0][0], 0) {
			t.Fatalf("BC-15: table orders no longer exists after the filter queries (%v, %v)", got, err)
		}
		got, err = query(db, `SELECT COUNT(*) FROM orders`)
		if err != nil || len(got) != 1 || !casefile.ValueEqual(6, got[0][0], 0) {
			t.Fatalf("BC-15: orders should still hold 6 rows after the filter queries, got %v (%v)", got, err)
		}
	},
}

func TestCaseFilesComplete(t *testing.T) {
	cs, err := casefile.LoadAll(".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.ID)
	}
	if !slices.Equal(got, caseIDs) {
		t.Fatalf("case directories %v, want %v", got, caseIDs)
	}
}

// TestCases runs every case as subtests <case>/<query>/{check_sql,wrong,planned}.
func TestCases(t *testing.T) {
	for _, id := range caseIDs {
		t.Run(id, func(t *testing.T) {
			c, err := casefile.Load(filepath.Join(".", id))
			if err != nil {
				t.Fatal(err)
			}
			runCase(t, c)
		})
	}
}

func runCase(t *testing.T, c *casefile.Case) {
	eng := openEngine(t)
	if err := eng.Exec(context.Background(), c.TablesSQL); err != nil {
		t.Fatalf("%s: loading tables.sql: %v", c.ID, err)
	}
	// Raw driver values (not the engine's JSON-friendly conversion, which
	// maps NaN and Infinity to NULL) so that BC-11's Infinity/NaN stay
	// visible as wrong answers.
	db := eng.DB()
	planner, loadErr := newPlanner(c)
	for _, q := range c.Queries {
		t.Run(q.Name, func(t *testing.T) {
			wrongRows := map[string][][]any{}
			t.Run("check_sql", func(t *testing.T) {
				got, err := query(db, q.CheckSQL)
				if err != nil {
					t.Fatalf("%s %s: check_sql failed: %v\n%s", c.ID, q.Name, err, q.CheckSQL)
				}
				if ok, why := casefile.Match(q.Expected.Rows, got, q.Ordered, q.Tolerance); !ok {
					t.Fatalf("%s %s: check_sql disagrees with the expected rows: %s\ngot:\n%swant:\n%s", c.ID, q.Name, why, casefile.FormatRows(got), casefile.FormatRows(q.Expected.Rows))
				}
			})
			if len(q.Wrong) > 0 {
				t.Run("wrong_answers_differ", func(t *testing.T) {
					for _, w := range q.Wrong {
						got, err := query(db, w.SQL)
						if err != nil {
							t.Errorf("%s %s: wrong-answer SQL %q failed: %v", c.ID, q.Name, w.Label, err)
							continue
						}
						wrongRows[w.Label] = got
						if ok, _ := casefile.Match(q.Expected.Rows, got, q.Ordered, q.Tolerance); ok {
							t.Errorf("%s %s: typical wrong answer %q equals the expected rows, so the case cannot detect it", c.ID, q.Name, w.Label)
						}
					}
				})
			}
			t.Run("planned", func(t *testing.T) {
				if loadErr != nil {
					t.Fatalf("%s: %v", c.ID, loadErr)
				}
				runPlanned(t, eng, c, q, planner, wrongRows)
			})
		})
	}
	if f := afterCase[c.ID]; f != nil {
		t.Run("after", func(t *testing.T) { f(t, db) })
	}
}

func newPlanner(c *casefile.Case) (*plan.Planner, error) {
	var (
		arts  []*compiler.Artifact
		probs compiler.Problems
	)
	if c.Governance != nil {
		arts, probs = compiler.LoadGoverned(c.Model, c.Governance, compiler.CompileOptions{})
	} else {
		arts, probs = compiler.Load(c.Model, compiler.CompileOptions{})
	}
	if probs.HasErrors() {
		return nil, fmt.Errorf("model.yaml does not compile:\n%s", problemsText(probs))
	}
	if len(arts) != 1 {
		return nil, fmt.Errorf("model.yaml compiled to %d artifacts, want 1", len(arts))
	}
	p, err := plan.New(arts[0])
	if err != nil {
		return nil, fmt.Errorf("plan.New: %w", err)
	}
	return p, nil
}

func runPlanned(t *testing.T, eng *duckdb.Engine, c *casefile.Case, q casefile.Query, planner *plan.Planner, wrongRows map[string][][]any) {
	pq, probs := plan.ParseQuery(q.JSON)
	if probs.HasErrors() {
		t.Fatalf("%s %s: query %s does not parse:\n%s", c.ID, q.Name, q.JSON, problemsText(probs))
	}
	p, probs := planner.PlanFor(pq, dialect.DuckDB, caseCaller(q))
	if probs.HasErrors() {
		t.Fatalf("%s %s: planning %s failed:\n%s", c.ID, q.Name, q.JSON, problemsText(probs))
	}
	t.Logf("%s %s planned SQL:\n%s", c.ID, q.Name, p.SQL)
	raw, names, err := queryNamed(eng.DB(), p.SQL)
	if err != nil {
		t.Fatalf("%s %s: planned SQL failed on DuckDB: %v\nquery: %s\nSQL:\n%s", c.ID, q.Name, err, q.JSON, p.SQL)
	}
	// The same SQL through the engine's own Query, as the server runs it:
	// its converted values must give the same answer.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	viaEngine, err := eng.Query(ctx, p.SQL, 0)
	if err != nil {
		t.Fatalf("%s %s: planned SQL failed through engine.Query: %v\nSQL:\n%s", c.ID, q.Name, err, p.SQL)
	}
	cols := make([]string, len(p.Columns))
	for i, col := range p.Columns {
		cols[i] = col.Name
	}
	if len(cols) == 0 {
		cols = names
	}
	if len(cols) != len(names) {
		t.Fatalf("%s %s: plan declares %d columns %v but the SQL returns %d %v\nSQL:\n%s", c.ID, q.Name, len(cols), cols, len(names), names, p.SQL)
	}
	got, err := casefile.Reorder(raw, cols, q.Expected.Columns)
	if err != nil {
		t.Fatalf("%s %s: %v\nSQL:\n%s", c.ID, q.Name, err, p.SQL)
	}
	ok, why := casefile.Match(q.Expected.Rows, got, q.Ordered, q.Tolerance)
	if ok {
		conv, err := casefile.Reorder(viaEngine.Rows, cols, q.Expected.Columns)
		if err != nil {
			t.Fatalf("%s %s: engine.Query result: %v", c.ID, q.Name, err)
		}
		if ok, why := casefile.Match(q.Expected.Rows, conv, q.Ordered, q.Tolerance); !ok {
			t.Fatalf("%s %s: raw driver rows are right but engine.Query's converted rows are not: %s\nSQL:\n%s\ngot:\n%swant:\n%s",
				c.ID, q.Name, why, p.SQL, casefile.FormatRows(conv), casefile.FormatRows(q.Expected.Rows))
		}
		return
	}
	t.Fatal(wrongAnswer(c, q, "DuckDB", p.SQL, why, got, wrongRows))
}

// wrongAnswer explains a wrong planned answer on engineName and names the
// case's typical wrong answer it reproduces, if any.
func wrongAnswer(c *casefile.Case, q casefile.Query, engineName, sql, why string, got [][]any, wrongRows map[string][][]any) string {
	var hit []string
	for label, rows := range wrongRows {
		if m, _ := casefile.Match(rows, got, q.Ordered, q.Tolerance); m {
			hit = append(hit, label)
		}
	}
	slices.Sort(hit)
	msg := fmt.Sprintf("%s %s (%s): wrong answer on %s: %s\nquery: %s\nSQL:\n%s\ncolumns: %v\ngot:\n%swant:\n%s",
		c.ID, q.Name, c.Title, engineName, why, q.JSON, sql, q.Expected.Columns, casefile.FormatRows(got), casefile.FormatRows(q.Expected.Rows))
	if len(hit) > 0 {
		msg += "this is the typical wrong answer: " + strings.Join(hit, "; ") + "\n"
	}
	if c.TypicalWrong != "" {
		msg += "typical wrong answers of this case: " + c.TypicalWrong + "\n"
	}
	return msg
}

func problemsText(ps compiler.Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  ")
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// openEngine opens a fresh private in-memory DuckDB, closed when the test ends.
func openEngine(t *testing.T) *duckdb.Engine {
	t.Helper()
	e, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func query(db *sql.DB, q string) ([][]any, error) {
	rows, _, err := queryNamed(db, q)
	return rows, err
}

// queryNamed runs q and returns all rows as driver values plus column names.
func queryNamed(db *sql.DB, q string) ([][]any, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	names, err := rs.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rs.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return out, names, rs.Err()
}

// caseCaller is the caller a case query is planned for; nil: ungoverned.
func caseCaller(q casefile.Query) *plan.Caller {
	if q.Caller == nil {
		return nil
	}
	return &plan.Caller{Roles: q.Caller.Roles, Attributes: q.Caller.Attributes}
}
