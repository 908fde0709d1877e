package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

var (
	flightsModel = filepath.Join("..", "..", "examples", "flights", "model.yaml")
	flightsData  = filepath.Join("..", "..", "examples", "flights", "data")
)

// flightQuestion is one entry of testdata/flights.yaml.
type flightQuestion struct {
	Name    string         `yaml:"name"`
	Query   map[string]any `yaml:"query"`
	Columns []string       `yaml:"columns"`
	Hand    string         `yaml:"hand"`
	MinRows int            `yaml:"min_rows"`
}

// TestFlights answers the flights example questions on the committed
// 30,000-row sample, loaded into each engine, and compares each answer
// with hand-written SQL run on DuckDB and with DuckDB's answer.
func TestFlights(t *testing.T) {
	runFlights(t, false)
}

// runFlights answers the flights questions; withRollups declares and
// builds a rollup covering each question first (rollups_test.go).
func runFlights(t *testing.T, withRollups bool) {
	questions := flightQuestions(t)
	model, err := os.ReadFile(flightsModel)
	if err != nil {
		t.Fatal(err)
	}
	tgs, pgDSN := openTargets(t, "flights")
	loadFlights(t, tgs, pgDSN)
	queries := make([]*plan.Query, len(questions))
	for i, fq := range questions {
		body, err := json.Marshal(fq.Query)
		if err != nil {
			t.Fatal(err)
		}
		var probs compiler.Problems
		if queries[i], probs = plan.ParseQuery(body); probs.HasErrors() {
			t.Fatalf("question %s does not parse:\n%s", fq.Name, problemsText(probs))
		}
	}
	planners := map[string]*plan.Planner{}
	group := "flights"
	if withRollups {
		group = "flights with rollups"
		decls := make([]map[string]any, len(queries))
		for i, q := range queries {
			decls[i] = rollupFor("q"+strconv.Itoa(i), q)
		}
		planners = rollupPlanners(t, model, nil, decls, tgs, "flights")
	} else {
		for _, tg := range tgs {
			if planners[tg.name], err = planner(model, tg.eng.Dialect()); err != nil {
				t.Fatalf("flights model for %s: %v", tg.name, err)
			}
		}
	}
	duck := tgs[0].eng.(*duckdb.Engine)
	for i, fq := range questions {
		q := queries[i]
		t.Run(fq.Name, func(t *testing.T) {
			want, err := duck.Query(context.Background(), fq.Hand, 0)
			if err != nil {
				t.Fatalf("hand-written SQL: %v", err)
			}
			if len(want.Rows) < fq.MinRows {
				t.Fatalf("hand-written SQL returned %d rows, the question expects at least %d", len(want.Rows), fq.MinRows)
			}
			got := map[string][][]any{}
			for _, tg := range tgs {
				cols, rows, sql, err := answer(tg, planners[tg.name], q)
				if err != nil {
					t.Errorf("flights %s on %s: %v\nSQL:\n%s", fq.Name, tg.name, err, sql)
					continue
				}
				counts.add(group, tg.name)
				if p, _ := planners[tg.name].Plan(q, tg.eng.Dialect()); withRollups && p != nil && p.Rollup != "" {
					counts.add("flights from a rollup", tg.name)
				}
				if strings.Join(cols, ",") != strings.Join(fq.Columns, ",") {
					t.Errorf("flights %s on %s: columns %v, want %v", fq.Name, tg.name, cols, fq.Columns)
					continue
				}
				got[tg.name] = rows
				if ok, why := casefile.Match(want.Rows, rows, true, Tolerance); !ok {
					t.Errorf("flights %s: %s disagrees with the hand-written SQL: %s\nSQL:\n%s", fq.Name, tg.name, why, sql)
				}
			}
			crossCheck(t, "flights "+fq.Name, got, true, Tolerance)
			// The hand-written SQL is Trino's too (make bench-trino times
			// it there against the server): the same rows.
			for _, tg := range tgs {
				if tg.name != trinoName {
					continue
				}
				hand, err := tg.eng.Query(context.Background(), fq.Hand, 0)
				if err != nil {
					t.Errorf("flights %s: the hand-written SQL on Trino: %v", fq.Name, err)
				} else if ok, why := casefile.Match(want.Rows, hand.Rows, true, Tolerance); !ok {
					t.Errorf("flights %s: the hand-written SQL on Trino disagrees with DuckDB: %s", fq.Name, why)
				}
			}
		})
	}
}

// flightQuestions reads testdata/flights.yaml.
func flightQuestions(tb testing.TB) []flightQuestion {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "flights.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var file struct {
		Questions []flightQuestion `yaml:"questions"`
	}
	if err := yaml.UnmarshalWithOptions(raw, &file, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		tb.Fatal(err)
	}
	return file.Questions
}

// loadFlights creates the tables flights and airports on every target.
// DuckDB reads the files; PostgreSQL gets the same rows by COPY and Trino
// by INSERT.
func loadFlights(t *testing.T, tgs []target, pgDSN string) {
	t.Helper()
	ctx := context.Background()
	parquet, err := filepath.Abs(filepath.Join(flightsData, "flights-sample.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	csv, _ := filepath.Abs(filepath.Join(flightsData, "airports.csv"))
	duck := tgs[0].eng.(*duckdb.Engine)
	files := map[string]string{"flights": parquet, "airports": csv}
	for _, table := range []string{"flights", "airports"} {
		if err := duck.LoadFile(ctx, table, files[table]); err != nil {
			t.Fatal(err)
		}
		copyToPostgres(t, duck, pgDSN, table)
		copyToTrino(t, duck, tgs[2], "main", table)
	}
}

// pgTypes maps the DuckDB column types of the flights files to
// PostgreSQL's.
var pgTypes = map[string]string{
	"BIGINT": "BIGINT", "INTEGER": "INTEGER", "DOUBLE": "DOUBLE PRECISION", "VARCHAR": "VARCHAR",
	"TIMESTAMP": "TIMESTAMP", "DATE": "DATE", "BOOLEAN": "BOOLEAN",
}

// copyToPostgres creates table in the PostgreSQL database pgDSN with the
// DuckDB table's columns and copies its rows.
func copyToPostgres(t *testing.T, duck *duckdb.Engine, pgDSN, table string) {
	t.Helper()
	ctx := context.Background()
	cols, err := duck.Describe(ctx, []string{table})
	if err != nil {
		t.Fatal(err)
	}
	var defs, names []string
	for _, c := range cols {
		typ, ok := pgTypes[c.Type]
		if !ok {
			t.Fatalf("%s.%s: no PostgreSQL type for %s", table, c.Name, c.Type)
		}
		defs = append(defs, fmt.Sprintf("%q %s", c.Name, typ))
		names = append(names, c.Name)
	}
	res, err := duck.Query(ctx, "SELECT * FROM "+table, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %q (%s)", table, strings.Join(defs, ", "))); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, names, pgx.CopyFromRows(res.Rows)); err != nil {
		t.Fatalf("COPY %s: %v", table, err)
	}
}
