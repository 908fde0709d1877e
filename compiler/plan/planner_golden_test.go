package plan_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

var update = flag.Bool("update", false, "rewrite expected.<dialect>.sql goldens")

// loadShop compiles testdata/shop.yaml into a planner.
func loadShop(t testing.TB) *plan.Planner {
	t.Helper()
	data, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(data, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatalf("shop model: %v", probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openShop starts an in-memory DuckDB holding the shop tables.
func openShop(t *testing.T) *sql.DB {
	t.Helper()
	ddl, err := os.ReadFile("testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	return openDuckDB(t, string(ddl))
}

// openDuckDB starts an in-memory DuckDB (one connection), closed when t
// ends, and runs the statements ddl.
func openDuckDB(t testing.TB, ddl ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestGolden plans every testdata/<case>/request.json for DuckDB (see
// checkGoldens) against the shop tables in an in-memory DuckDB.
func TestGolden(t *testing.T) {
	p := loadShop(t)
	db := openShop(t)
	checkGoldens(t, p, dialect.DuckDB, func(t *testing.T, q string) [][]any { return queryRows(t, db, q) })
	// The injection case must leave the table in place.
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM shop.orders`).Scan(&n); err != nil || n != 6 {
		t.Fatalf("shop.orders after injection attempts: n=%d err=%v", n, err)
	}
}

// checkGoldens plans every testdata/<case>/request.json for d, compares the
// SQL with expected.<dialect>.sql (-update rewrites it), and runs both the
// planned SQL and the hand-written answer through run: their rows must
// match. The answer is answer.<dialect>.sql where the engine needs its own
// spelling, else answer.sql.
func checkGoldens(t *testing.T, p *plan.Planner, d dialect.Dialect, run func(t *testing.T, sql string) [][]any) {
	reqs, _ := filepath.Glob("testdata/*/request.json")
	if len(reqs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, req := range reqs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			q := readRequest(t, req)
			pl, probs := p.Plan(q, d)
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			checkPlanned(t, dir, d, pl, run, len(q.OrderBy) == 0 && q.Limit == nil)
		})
	}
}

// checkPlanned compares pl's SQL with dir's expected.<dialect>.sql and,
// unless run is nil, the rows run gives for it with those of the
// hand-written answer (readAnswer), sorted first when unordered. It
// returns the planned rows.
func checkPlanned(t *testing.T, dir string, d dialect.Dialect, pl *plan.Plan, run func(t *testing.T, sql string) [][]any, unordered bool) [][]any {
	t.Helper()
	checkGoldenSQL(t, filepath.Join(dir, "expected."+d.Name()+".sql"), pl.SQL)
	if run == nil {
		return nil
	}
	got, exp := run(t, pl.SQL), run(t, readAnswer(t, dir, d))
	if unordered {
		sortRows(got)
		sortRows(exp)
	}
	if diff := compareRows(got, exp); diff != "" {
		t.Errorf("%s\nSQL: %s\n got: %v\nwant: %v", diff, pl.SQL, got, exp)
	}
	return got
}

// readRequest reads and parses a case's request.json.
func readRequest(t *testing.T, path string) *plan.Query {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	q, probs := plan.ParseQuery(body)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	return q
}

// checkGoldenSQL compares sql with the golden file, which holds it with a
// final newline; -update rewrites the file first.
func checkGoldenSQL(t *testing.T, golden, sql string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(sql+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if strings.TrimSpace(string(want)) != sql {
		t.Errorf("planned SQL differs from %s (-update to accept):\n got: %s\nwant: %s", golden, sql, want)
	}
}

// readAnswer reads a case's hand-written answer for d: answer.<dialect>.sql
// in dir where the engine needs its own spelling, else answer.sql.
func readAnswer(t *testing.T, dir string, d dialect.Dialect) string {
	t.Helper()
	answer, err := os.ReadFile(filepath.Join(dir, "answer."+d.Name()+".sql"))
	if os.IsNotExist(err) {
		answer, err = os.ReadFile(filepath.Join(dir, "answer.sql"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(answer)
}

func queryRows(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%v\nSQL: %s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			vals[i] = normalize(v)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize maps driver values onto float64, string, or nil so rows from
// differently typed but equal expressions compare equal.
func normalize(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64:
		f, _ := new(big.Float).SetString(fmt.Sprint(v))
		x, _ := f.Float64()
		return x
	case float32:
		return float64(v)
	case float64:
		return v
	case *big.Int:
		x, _ := new(big.Float).SetInt(v).Float64()
		return x
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format("2006-01-02")
		}
		return v.UTC().Format(time.RFC3339Nano)
	case string:
		return v
	case []byte:
		return string(v)
	}
	if s, ok := v.(fmt.Stringer); ok {
		var f float64
		if _, err := fmt.Sscan(s.String(), &f); err == nil {
			return f
		}
		return s.String()
	}
	b, _ := json.Marshal(v)
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		return f
	}
	return string(b)
}

func sortRows(rows [][]any) {
	sort.Slice(rows, func(i, j int) bool { return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j]) })
}

func compareRows(got, want [][]any) string {
	if len(got) != len(want) {
		return fmt.Sprintf("row count %d, want %d", len(got), len(want))
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d: %d columns, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range got[i] {
			g, w := got[i][j], want[i][j]
			gf, gok := g.(float64)
			wf, wok := w.(float64)
			switch {
			case gok && wok:
				if math.Abs(gf-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
					return fmt.Sprintf("row %d col %d: %v, want %v", i, j, g, w)
				}
			case g != w:
				return fmt.Sprintf("row %d col %d: %v (%T), want %v (%T)", i, j, g, g, w, w)
			}
		}
	}
	return ""
}
