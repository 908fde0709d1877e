package duckdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine"
)

func openMem(t *testing.T) *Engine {
	t.Helper()
	e, err := Open("")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func mustExec(t *testing.T, e *Engine, sql string) {
	t.Helper()
	if err := e.Exec(context.Background(), sql); err != nil {
		t.Fatalf("Exec %q: %v", sql, err)
	}
}

func TestQueryConvertsValues(t *testing.T) {
	e := openMem(t)
	res, err := e.Query(context.Background(), `SELECT
		42::INTEGER AS i, 7::TINYINT AS ti, 12.34::DECIMAL(10,2) AS d,
		DATE '2024-02-29' AS dt, TIMESTAMP '2024-02-29 13:14:15' AS ts,
		TIME '08:09:10' AS tm, 'x''y' AS s, NULL::VARCHAR AS n,
		170141183460469231731687303715884105727::HUGEINT AS big, 5::HUGEINT AS small_huge,
		'00112233-4455-6677-8899-aabbccddeeff'::UUID AS u,
		'nan'::DOUBLE AS nan, 1.5::DOUBLE AS f, true AS b, [1, 2] AS l,
		{'a': 1, 'b': 'z'} AS st, 18446744073709551615::UBIGINT AS ub,
		TIME '08:09:10.123456' AS tfrac, INTERVAL '1 month 2 days 3 seconds' AS iv,
		MAP {'k': 1} AS mp, 'abc'::UNION(n INTEGER, t VARCHAR) AS un, '0101'::BIT AS bt`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"i": int64(42), "ti": int64(7), "d": 12.34, "dt": "2024-02-29",
		"tm": "08:09:10", "s": "x'y", "n": nil,
		"big": "170141183460469231731687303715884105727", "small_huge": int64(5),
		"u": "00112233-4455-6677-8899-aabbccddeeff", "nan": nil, "f": 1.5, "b": true,
		"ub": "18446744073709551615", "tfrac": "08:09:10.123456", "un": "abc", "bt": "0101",
	}
	if len(res.Rows) != 1 || res.Truncated {
		t.Fatalf("rows=%d truncated=%v", len(res.Rows), res.Truncated)
	}
	row := res.Rows[0]
	for i, c := range res.Columns {
		got := row[i]
		switch c.Name {
		case "ts":
			ts, ok := got.(time.Time)
			if !ok || !ts.Equal(time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)) {
				t.Errorf("ts = %#v", got)
			}
		case "l":
			l, ok := got.([]any)
			if !ok || len(l) != 2 || l[0] != int64(1) || l[1] != int64(2) {
				t.Errorf("l = %#v", got)
			}
		case "st":
			m, ok := got.(map[string]any)
			if !ok || m["a"] != int64(1) || m["b"] != "z" {
				t.Errorf("st = %#v", got)
			}
		case "iv":
			if m, ok := got.(map[string]any); !ok || m["months"] != int64(1) || m["days"] != int64(2) || m["micros"] != int64(3e6) {
				t.Errorf("iv = %#v", got)
			}
		case "mp":
			l, ok := got.([]any)
			if !ok || len(l) != 1 {
				t.Fatalf("mp = %#v", got)
			}
			if e, ok := l[0].(map[string]any); !ok || e["key"] != "k" || e["value"] != int64(1) {
				t.Errorf("mp = %#v", got)
			}
		default:
			w, ok := want[c.Name]
			if !ok {
				t.Fatalf("unexpected column %q", c.Name)
			}
			if got != w {
				t.Errorf("%s (%s) = %#v, want %#v", c.Name, c.Type, got, w)
			}
		}
	}
	if res.Columns[2].Type != "DECIMAL(10,2)" || res.Columns[3].Type != "DATE" {
		t.Errorf("column types %v", res.Columns)
	}
}

func TestQueryRowCap(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	for _, tc := range []struct {
		max, rows int
		truncated bool
	}{{0, 10, false}, {-1, 10, false}, {3, 3, true}, {9, 9, true}, {10, 10, false}, {11, 10, false}} {
		res, err := e.Query(ctx, "SELECT range AS x FROM range(10) ORDER BY x", tc.max)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != tc.rows || res.Truncated != tc.truncated {
			t.Errorf("max=%d: rows=%d truncated=%v, want %d %v", tc.max, len(res.Rows), res.Truncated, tc.rows, tc.truncated)
		}
		for i, r := range res.Rows {
			if r[0] != int64(i) {
				t.Fatalf("max=%d: row %d = %v", tc.max, i, r[0])
			}
		}
	}
	// An empty result is an empty (not nil) slice, so it encodes as [].
	res, err := e.Query(ctx, "SELECT 1 AS x WHERE false", 5)
	if err != nil || res.Rows == nil || len(res.Rows) != 0 || res.Truncated {
		t.Fatalf("empty result: %+v %v", res, err)
	}
}

func TestErrorClassification(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	mustExec(t, e, "CREATE TABLE t (a INTEGER)")
	for _, tc := range []struct {
		sql      string
		notFound bool
	}{
		{"SELECT * FROM missing_table", true},
		{"SELECT nope FROM t", true},
		{"SELECT t.nope FROM t", true}, // Binder Error: Table "t" does not have a column named "nope"
		{"SELECT * FROM read_parquet('/nonexistent/dir/x.parquet')", true},
		{"SELEC 1", false},
		{"SELECT 'a'::INTEGER", false},
	} {
		_, err := e.Query(ctx, tc.sql, 0)
		if err == nil {
			t.Fatalf("%s: no error", tc.sql)
		}
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Message == "" {
			t.Errorf("%s: not an *engine.Error: %T %v", tc.sql, err, err)
		}
		if got := errors.Is(err, engine.ErrNotFound); got != tc.notFound {
			t.Errorf("%s: ErrNotFound=%v want %v (%v)", tc.sql, got, tc.notFound, err)
		}
		if errors.Is(err, engine.ErrUnavailable) {
			t.Errorf("%s: classified unavailable: %v", tc.sql, err)
		}
		if strings.Contains(err.Error(), "database/sql/driver") {
			t.Errorf("%s: driver prefix leaked: %v", tc.sql, err)
		}
	}
}

func TestOpenUnavailable(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "garbage.duckdb")
	if err := os.WriteFile(notDB, []byte("this is not a duckdb file, not at all, definitely not"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{notDB, filepath.Join(dir, "no", "such", "dir", "x.duckdb")} {
		e, err := Open(p)
		if err == nil {
			e.Close()
			t.Fatalf("Open(%s) succeeded", p)
		}
		if !errors.Is(err, engine.ErrUnavailable) {
			t.Errorf("Open(%s): %v is not ErrUnavailable", p, err)
		}
	}
}

func TestOpenFileSharesData(t *testing.T) {
	p := filepath.Join(t.TempDir(), "db.duckdb")
	e, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, e, "CREATE TABLE kept AS SELECT 7 AS v")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res, err := e2.Query(context.Background(), "SELECT v FROM kept", 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(7) {
		t.Fatalf("reopened: %+v %v", res, err)
	}
}

func TestDescribeTableViewAndFiles(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	dir := t.TempDir()
	mustExec(t, e, `CREATE SCHEMA s; CREATE TABLE s."Odd ""T""" (id BIGINT, name VARCHAR, amount DECIMAL(10,2), day DATE)`)
	mustExec(t, e, `CREATE VIEW v AS SELECT id, upper(name) AS uname FROM s."Odd ""T"""`)
	pq := filepath.Join(dir, "it's data.parquet")
	csv := filepath.Join(dir, "rows.csv")
	mustExec(t, e, "COPY (SELECT 1::INTEGER AS k, 'a' AS label) TO "+quoteLit(pq)+" (FORMAT parquet)")
	mustExec(t, e, "COPY (SELECT 1::INTEGER AS k, DATE '2024-01-02' AS d) TO "+quoteLit(csv)+" (FORMAT csv, HEADER)")

	check := func(name string, got []engine.Column, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var parts []string
		for _, c := range got {
			parts = append(parts, c.Name+" "+c.Type)
		}
		if s := strings.Join(parts, ", "); s != want {
			t.Errorf("%s: got %q, want %q", name, s, want)
		}
	}
	cols, err := e.Describe(ctx, []string{"s", `Odd "T"`})
	check("table", cols, err, "id BIGINT, name VARCHAR, amount DECIMAL(10,2), day DATE")
	cols, err = e.Describe(ctx, []string{"memory", "s", `Odd "T"`})
	check("catalog.schema.table", cols, err, "id BIGINT, name VARCHAR, amount DECIMAL(10,2), day DATE")
	cols, err = e.Describe(ctx, []string{"v"})
	check("view", cols, err, "id BIGINT, uname VARCHAR")
	cols, err = e.Describe(ctx, []string{pq})
	check("parquet", cols, err, "k INTEGER, label VARCHAR")
	cols, err = e.DescribeFile(ctx, csv)
	check("csv", cols, err, "k BIGINT, d DATE")

	for _, missing := range [][]string{{"nope"}, {"s", "nope"}, {filepath.Join(dir, "absent.parquet")}} {
		_, err := e.Describe(ctx, missing)
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Describe(%q): %v is not ErrNotFound", missing, err)
		}
	}
	if _, err := e.Describe(ctx, nil); err == nil {
		t.Error("Describe(nil) succeeded")
	}
	if _, err := e.DescribeFile(ctx, "x.xlsx"); err == nil {
		t.Error("DescribeFile(.xlsx) succeeded")
	}
}

func TestLoadFile(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	pq := filepath.Join(t.TempDir(), "o'brien.parquet")
	mustExec(t, e, "COPY (SELECT range AS id, range * 1.5 AS v FROM range(5)) TO "+quoteLit(pq)+" (FORMAT parquet)")
	table := `we"ird; DROP TABLE x`
	if err := e.LoadFile(ctx, table, pq); err != nil {
		t.Fatal(err)
	}
	res, err := e.Query(ctx, `SELECT count(*), sum(v) FROM "we""ird; DROP TABLE x"`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != int64(5) || res.Rows[0][1] != 15.0 {
		t.Fatalf("loaded %v", res.Rows)
	}
	// Loading again replaces rather than appends.
	if err := e.LoadFile(ctx, table, pq); err != nil {
		t.Fatal(err)
	}
	res, _ = e.Query(ctx, `SELECT count(*) FROM "we""ird; DROP TABLE x"`, 0)
	if res.Rows[0][0] != int64(5) {
		t.Fatalf("after reload %v", res.Rows)
	}
	missing := filepath.Join(t.TempDir(), "missing.csv")
	if err := e.LoadFile(ctx, "t", missing); !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "no file "+missing) {
		t.Errorf("missing file: %v", err)
	}
	// A file DuckDB cannot parse: named, with DuckDB's reason and without
	// the excerpt of the generated statement.
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.LoadFile(ctx, "t", bad); err == nil || !strings.Contains(err.Error(), "cannot load "+bad+" with read_parquet") ||
		strings.Contains(err.Error(), "LINE 1") || strings.Contains(err.Error(), "CREATE") {
		t.Errorf("unparsable file: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "d.csv")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.LoadFile(ctx, "t", dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

func TestQueryCancellation(t *testing.T) {
	e := openMem(t)
	// About 10^11 joined rows: minutes of work unless interrupted.
	const slow = "SELECT count(*) FROM range(1000000) a, range(100000) b WHERE (a.range * b.range) % 7 = 3"
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Query(ctx, slow, 0)
	took := time.Since(start)
	if err == nil {
		t.Fatal("slow query finished")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap DeadlineExceeded", err)
	}
	if took > 5*time.Second {
		t.Errorf("cancellation took %v", took)
	}
	// The pool still works after an interrupted statement.
	res, err := e.Query(context.Background(), "SELECT 1", 0)
	if err != nil || res.Rows[0][0] != int64(1) {
		t.Fatalf("after cancel: %v %v", res, err)
	}
}

func TestConcurrentQueries(t *testing.T) {
	e := openMem(t)
	mustExec(t, e, "CREATE TABLE n AS SELECT range AS x FROM range(1000)")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Query(context.Background(), "SELECT sum(x) FROM n", 0)
			if err != nil {
				errs <- err
				return
			}
			if res.Rows[0][0] != 499500.0 && res.Rows[0][0] != int64(499500) {
				errs <- errors.New("wrong sum")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDialect(t *testing.T) {
	if openMem(t).Dialect().Name() != "duckdb" {
		t.Fatal("dialect")
	}
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// DuckDB's binder reports a missing column of a qualified reference as
// `Table "t" does not have a column named "nope"`: drift, not a generic
// engine failure.
func TestBinderMissingColumnIsDrift(t *testing.T) {
	e := openMem(t)
	mustExec(t, e, "CREATE TABLE t (a INTEGER)")
	_, err := e.Query(context.Background(), "SELECT t.nope FROM t", 0)
	if err == nil || !strings.Contains(err.Error(), "does not have a column named") || !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("want a not-found binder error naming the column, got %v", err)
	}
}
