//go:build duckdb_arrow

package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/engine"
)

// everyType is one column of each type the Arrow path reads, a NULL in
// every seventh row and values at the edges (NaN and infinities, HUGEINT
// and UBIGINT past int64, dates before 1970, sub-second times, the empty
// string), repeated strings and dates (read once each) and ones never
// repeated, over 5,000 rows: three record batches.
const everyType = `SELECT i,
	CASE WHEN i % 7 = 1 THEN NULL ELSE i % 2 = 0 END AS b,
	CASE WHEN i % 7 = 2 THEN NULL ELSE (i % 200 - 100)::TINYINT END AS ti,
	CASE WHEN i % 7 = 3 THEN NULL ELSE (i * 7 - 20000)::SMALLINT END AS si,
	CASE WHEN i % 7 = 4 THEN NULL ELSE (i * 400009 - 1000000000)::INTEGER END AS ii,
	CASE WHEN i % 7 = 5 THEN NULL ELSE i * 1000000007 * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) END AS bi,
	CASE WHEN i % 7 = 6 THEN NULL ELSE (i % 256)::UTINYINT END AS uti,
	CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 13 % 65536)::USMALLINT END AS usi,
	CASE WHEN i % 7 = 1 THEN NULL ELSE (i * 858993)::UINTEGER END AS ui,
	CASE WHEN i % 7 = 2 THEN NULL ELSE 18446744073709551615::UBIGINT - (i * 1000000000000000)::UBIGINT END AS ubi,
	CASE WHEN i % 7 = 3 THEN NULL WHEN i % 3 = 0 THEN i::HUGEINT ELSE i::HUGEINT * 100000000000000000000000::HUGEINT * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) END AS hi,
	CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 3.0)::FLOAT END AS f,
	CASE WHEN i % 7 = 5 THEN NULL WHEN i % 11 = 0 THEN 'nan'::DOUBLE WHEN i % 13 = 0 THEN '-inf'::DOUBLE ELSE i / 7.0 END AS d,
	CASE WHEN i % 7 = 6 THEN NULL ELSE (i * -1.234)::DECIMAL(18,3) END AS dec18,
	CASE WHEN i % 7 = 0 THEN NULL ELSE (i / 3)::DECIMAL(38,10) END AS dec38,
	CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 100 / 7)::DECIMAL(4,2) END AS dec4,
	CASE WHEN i % 7 = 2 THEN NULL ELSE (i * 123456789)::DECIMAL(38,0) END AS dec38_0,
	CASE WHEN i % 7 = 3 THEN NULL WHEN i % 5 = 0 THEN '' WHEN i % 2 = 0 THEN 'O' || (i % 80) ELSE 'é unique ' || i END AS v,
	CASE WHEN i % 7 = 4 THEN NULL ELSE ('x' || i)::BLOB END AS bl,
	CASE WHEN i % 7 = 5 THEN NULL ELSE DATE '1900-01-01' + (i * 17)::INTEGER END AS dt,
	CASE WHEN i % 7 = 6 THEN NULL ELSE DATE '2001-01-01' + (i % 60 * 7)::INTEGER END AS dt_weeks,
	CASE WHEN i % 7 = 6 THEN NULL ELSE TIME '00:00:00' + to_microseconds(i * 12345678) END AS tm,
	CASE WHEN i % 7 = 0 THEN NULL ELSE TIMESTAMP '1960-01-01' + to_microseconds(i * 123456789011) END AS ts,
	CASE WHEN i % 7 = 1 THEN NULL ELSE (TIMESTAMP '1960-01-01' + to_seconds(i * 1234567))::TIMESTAMP_S END AS ts_s,
	CASE WHEN i % 7 = 2 THEN NULL ELSE (TIMESTAMP '1960-01-01' + to_milliseconds(i * 1234567891))::TIMESTAMP_MS END AS ts_ms,
	CASE WHEN i % 7 = 3 THEN NULL ELSE (TIMESTAMP '1960-01-01' + to_microseconds(i * 1234567891))::TIMESTAMP_NS END AS ts_ns,
	CASE WHEN i % 7 = 4 THEN NULL ELSE TIMESTAMPTZ '2001-03-25 01:30:00+01' + to_minutes(i * 37) END AS tstz,
	CASE WHEN i % 7 = 5 THEN NULL ELSE to_months(i % 13 - 6) + to_days(i % 31) + to_microseconds(i * 1001 - 2000000) END AS iv
FROM range(5000) AS t(i) ORDER BY i`

// The Arrow path and the driver's row path hand over the same columns and
// the same values for every type the Arrow path reads, on a real DuckDB,
// in a time zone that is not UTC.
func TestArrowAndRowsAgree(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	if err := e.Exec(ctx, `SET GLOBAL TimeZone = 'America/New_York'`); err != nil {
		t.Fatal(err)
	}
	rowsRes, entry := readRows(t, e, everyType)
	shape := entry.shape.Load()
	if shape == nil || !shape.arrow {
		t.Fatalf("the row path remembered %+v, want the Arrow path next", shape)
	}
	arrowRes, done := readArrowPath(t, e, entry, shape)
	if !done {
		t.Fatalf("the Arrow path refused the columns %v; Arrow schema:\n%s", shape.cols, arrowSchema(t, e, everyType))
	}
	compareResults(t, rowsRes, arrowRes)
	again, err := e.Query(ctx, everyType, 0) // Stream chooses the Arrow path now
	if err != nil {
		t.Fatal(err)
	}
	compareResults(t, rowsRes, again)
}

// A result with a type the Arrow path does not read (UUID, JSON, ENUM,
// LIST, STRUCT, MAP) is read row by row even when large, with the same
// answer every time.
func TestArrowFallsBackToRows(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	for _, col := range []string{
		`uuid()::VARCHAR::UUID`, `'{"a": 1}'::JSON`, `'x'::ENUM ('x', 'y')`, `[i, i + 1]`, `{'a': i, 'b': 'x'}`, `MAP {'k': i}`,
	} {
		t.Run(col, func(t *testing.T) {
			q := fmt.Sprintf(`SELECT i, %s AS c FROM range(3000) AS t(i) ORDER BY i`, col)
			first, entry := readRows(t, e, q)
			shape := entry.shape.Load()
			if shape.arrow {
				t.Fatalf("%s (%s) would be read through Arrow next", col, first.Columns[1].Type)
			}
			if _, done := readArrowPath(t, e, entry, shape); done {
				t.Fatalf("the Arrow path read %s (%s); want the row path", col, first.Columns[1].Type)
			}
			again, err := e.Query(ctx, q, 0)
			if err != nil {
				t.Fatal(err)
			}
			if col == `uuid()::VARCHAR::UUID` { // a new UUID per run
				return
			}
			compareResults(t, first, again)
		})
	}
}

// readRows answers q row by row and returns the cache entry that
// remembered its shape.
func readRows(t *testing.T, e *Engine, q string) (*engine.Result, *stmtEntry) {
	t.Helper()
	ctx := context.Background()
	entry, ok := e.stmts.prepared(ctx, e.db, q)
	if !ok {
		_, err := e.db.PrepareContext(ctx, q)
		t.Fatalf("cannot prepare %s: %v", q, err)
	}
	res := &engine.Result{}
	err := e.streamRows(ctx, q, entry, false, collectColumns(res), collectRows(res))
	if err != nil {
		t.Fatal(err)
	}
	return res, entry
}

// readArrowPath answers entry's SQL through the Arrow path.
func readArrowPath(t *testing.T, e *Engine, entry *stmtEntry, shape *resultShape) (*engine.Result, bool) {
	t.Helper()
	res := &engine.Result{}
	done, err := e.streamArrow(context.Background(), entry, shape, collectColumns(res), collectRows(res))
	if err != nil {
		t.Fatal(err)
	}
	return res, done
}

func collectColumns(res *engine.Result) engine.ColumnsFunc {
	return func(cols []engine.Column) error {
		res.Columns = cols
		return nil
	}
}

func collectRows(res *engine.Result) engine.RowFunc {
	return func(row []any) error {
		res.Rows = append(res.Rows, append([]any(nil), row...))
		return nil
	}
}

// compareResults fails on the first column or value that differs, naming
// the row, the column and both values with their Go types.
func compareResults(t *testing.T, want, got *engine.Result) {
	t.Helper()
	if !reflect.DeepEqual(want.Columns, got.Columns) {
		t.Fatalf("columns: %v, want %v", got.Columns, want.Columns)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for r := range want.Rows {
		for c := range want.Rows[r] {
			if w, g := want.Rows[r][c], got.Rows[r][c]; !reflect.DeepEqual(w, g) {
				t.Fatalf("row %d, %s (%s): %#v (%T), want %#v (%T)", r, want.Columns[c].Name, want.Columns[c].Type, g, g, w, w)
			}
		}
	}
}

// arrowSchema is the Arrow schema DuckDB gives q, for a failure message.
func arrowSchema(t *testing.T, e *Engine, q string) string {
	conn, err := e.db.Conn(context.Background())
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	var s string
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		r, err := a.QueryContext(context.Background(), q)
		if err != nil {
			return err
		}
		defer r.Release()
		s = r.Schema().String()
		return nil
	})
	if err != nil {
		return err.Error()
	}
	return s
}

// A SQL text read through Arrow follows the catalog as the row path does,
// also when the catalog changes past Exec (through DB(), which keeps the
// remembered shapes): after its table is replaced by one of other
// columns, the Arrow schema no longer fits the remembered columns and the
// answer comes, right, from the new table (row by row, then through Arrow
// again); after the table is dropped it fails as drift.
func TestArrowFollowsTheCatalog(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const q = `SELECT * FROM t ORDER BY 1`
	if err := e.Exec(ctx, `CREATE TABLE t AS SELECT range AS a FROM range(3000)`); err != nil {
		t.Fatal(err)
	}
	for range 2 { // rows, then Arrow
		res, err := e.Query(ctx, q, 0)
		if err != nil || len(res.Rows) != 3000 || res.Rows[2999][0] != int64(2999) {
			t.Fatalf("first: %v rows, %v", len(res.Rows), err)
		}
	}
	if _, err := e.DB().ExecContext(ctx, `CREATE OR REPLACE TABLE t AS SELECT 'x' || range AS b, range / 2 AS c FROM range(3000)`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := e.Query(ctx, q, 0)
		if err != nil || len(res.Columns) != 2 || res.Columns[0].Name != "b" || len(res.Rows) != 3000 || res.Rows[0][0] != "x0" || res.Rows[1][1] != 0.5 {
			t.Fatalf("after replace: %v %v, %v", res.Columns, res.Rows[:1], err)
		}
	}
	if _, err := e.DB().ExecContext(ctx, `DROP TABLE t`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(ctx, q, 0); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("after drop: %v, want ErrNotFound", err)
	}
}

// A cancelled context ends an Arrow read with an error that wraps
// context.Canceled, never with a short answer that looks complete.
func TestArrowCancelled(t *testing.T) {
	e := openMem(t)
	const q = `SELECT range AS n FROM range(100000) ORDER BY n`
	if _, err := e.Query(context.Background(), q, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	read := 0
	err := e.Stream(ctx, q, func([]engine.Column) error { return nil }, func([]any) error {
		if read++; read == 5000 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || read >= 100000 {
		t.Fatalf("cancelled at row 5000: %v after %d rows", err, read)
	}
}

// When DuckDB's Arrow form of a column is not the one the Arrow path
// expects (here VARCHAR as large_utf8, by a setting), the answer is read row
// by row, right, and the next read does not try Arrow again.
func TestArrowRefusedFormStaysOnRows(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	if err := e.Exec(ctx, `SET GLOBAL arrow_large_buffer_size = true`); err != nil {
		t.Fatal(err)
	}
	const q = `SELECT 'x' || range AS s FROM range(3000) ORDER BY range`
	for i := range 4 { // rows, Arrow refused then rows, rows, rows
		res, err := e.Query(ctx, q, 0)
		if err != nil || len(res.Rows) != 3000 || res.Rows[2999][0] != "x2999" {
			t.Fatalf("read %d: %d rows, %v", i, len(res.Rows), err)
		}
		entry, _ := e.stmts.prepared(ctx, e.db, q)
		if shape := entry.shape.Load(); shape.arrow != (i == 0) {
			t.Fatalf("after read %d: Arrow next is %v; schema %s", i, shape.arrow, arrowSchema(t, e, q))
		}
	}
}

// An Arrow read past the memory limit fails with the class the row path
// gives (engine.ErrOutOfMemory): the same SQL text, remembered as large,
// asked again for far more groups than the limit lets DuckDB hold.
func TestArrowOutOfMemoryClass(t *testing.T) {
	ctx := context.Background()
	e := openMem(t)
	const q = `SELECT i, count(*) AS n FROM range(2000000) r(i) JOIN groups ON i < groups.n GROUP BY i ORDER BY i DESC`
	for _, s := range []string{"SET temp_directory = ''", "CREATE TABLE groups AS SELECT 3000 AS n"} {
		if err := e.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Query(ctx, q, 0); err != nil {
		t.Fatal(err)
	}
	// Past Exec (and Bound, which uses it): it would make the next read a
	// row read.
	for _, s := range []string{`UPDATE groups SET n = 2000000`, `SET memory_limit = '2MiB'`, `SET threads = 1`} {
		if _, err := e.DB().ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	entry, _ := e.stmts.prepared(ctx, e.db, q)
	if shape := entry.shape.Load(); !shape.arrow {
		t.Fatalf("the next read of %s would not go through Arrow", q)
	}
	_, err := e.Query(ctx, q, 0)
	if !errors.Is(err, engine.ErrOutOfMemory) || !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("want ErrOutOfMemory, got %v", err)
	}
}

// A column replaced by one of another DuckDB type with the same Arrow form
// (HUGEINT and DECIMAL(38,0) are both decimal128(38,0)) through Exec is
// answered with the new type and its values (float64, not int64).
func TestArrowForgetsShapesOnExec(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const q = `SELECT * FROM t ORDER BY 1`
	if err := e.Exec(ctx, `CREATE TABLE t AS SELECT range::HUGEINT AS a FROM range(3000)`); err != nil {
		t.Fatal(err)
	}
	for range 2 { // rows, then Arrow
		res, err := e.Query(ctx, q, 0)
		if err != nil || res.Columns[0].Type != "HUGEINT" || res.Rows[1][0] != int64(1) {
			t.Fatalf("HUGEINT: %v %v, %v", res.Columns, res.Rows[1], err)
		}
	}
	if err := e.Exec(ctx, `CREATE OR REPLACE TABLE t AS SELECT range::DECIMAL(38,0) AS a FROM range(3000)`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := e.Query(ctx, q, 0)
		if err != nil || res.Columns[0].Type != "DECIMAL(38,0)" || res.Rows[1][0] != 1.0 {
			t.Fatalf("DECIMAL(38,0): %v %#v, %v", res.Columns, res.Rows[1], err)
		}
	}
}
