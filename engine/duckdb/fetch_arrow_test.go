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
// every seventh row and values at the edges (NaN and infinities, HUGEINT,
// UHUGEINT and UBIGINT past int64, UUIDs with the high bit set, dates
// before 1970, sub-second times, the empty string, JSON null), repeated
// strings and dates (read once each) and ones never repeated, over 5,000
// rows: three record batches.
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
	CASE WHEN i % 7 = 5 THEN NULL ELSE to_months(i % 13 - 6) + to_days(i % 31) + to_microseconds(i * 1001 - 2000000) END AS iv,
	CASE WHEN i % 7 = 6 THEN NULL WHEN i % 2 = 0 THEN 340282366920938463463374607431768211455::UHUGEINT - i::UHUGEINT ELSE i::UHUGEINT END AS uhi,
	CASE WHEN i % 7 = 0 THEN NULL WHEN i % 2 = 0 THEN ('ffffffff-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID ELSE ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID END AS u,
	CASE WHEN i % 7 = 1 THEN NULL WHEN i % 5 = 0 THEN 'null'::JSON ELSE json_object('a', i, 'b', ['x', (i / 4)::VARCHAR], 'c', i % 3 = 0) END AS j,
	CASE WHEN i % 7 = 2 THEN NULL ELSE (['open', 'closed', 'été'][i % 3 + 1])::ENUM('open', 'closed', 'été') END AS en
FROM range(5000) AS t(i) ORDER BY i`

// nestedTypes is a column of each nested type the Arrow path reads (LIST,
// ARRAY, STRUCT with a quoted member name, a LIST of LISTs and of STRUCTs)
// over members of the scalar types whose Arrow form is an extension
// (UUID, HUGEINT, JSON) or a dictionary (ENUM), DECIMAL, DATE and
// TIMESTAMPTZ, NULL at every level (the value, a member, an element), over
// 5,000 rows.
const nestedTypes = `SELECT i,
	CASE WHEN i % 7 = 1 THEN NULL ELSE [i, NULL, i * 2] END AS li,
	CASE WHEN i % 7 = 2 THEN NULL ELSE ['x' || (i % 50), NULL] END AS lv,
	(CASE WHEN i % 7 = 3 THEN NULL ELSE [i, i + 1] END)::BIGINT[2] AS ar,
	CASE WHEN i % 7 = 4 THEN NULL ELSE {'a': i, 'b"q': CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END, 'd': DATE '2001-01-01' + (i % 40)::INTEGER} END AS st,
	CASE WHEN i % 7 = 6 THEN NULL ELSE [[i], [], NULL] END AS ll,
	[{'u': ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID, 'h': i::HUGEINT * 100000000000000000000000::HUGEINT}] AS ls,
	[(i / 3)::DECIMAL(18,3), NULL] AS ldec,
	[TIMESTAMPTZ '2001-03-25 01:30:00+01' + to_minutes(i)] AS lts,
	[('{"a": ' || i || '}')::JSON] AS lj,
	[(['p', 'q'][i % 2 + 1])::ENUM('p', 'q')] AS len
FROM range(5000) AS t(i) ORDER BY i`

// The Arrow path and the driver's row path hand over the same columns
// (names and DuckDB types) and the same values for every type the Arrow
// path reads, scalar and nested, on a real DuckDB, in a time zone that is
// not UTC; Stream reads the first ask through Arrow and the next, large,
// too.
func TestArrowAndRowsAgree(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	if err := e.Exec(ctx, `SET GLOBAL TimeZone = 'America/New_York'`); err != nil {
		t.Fatal(err)
	}
	for name, query := range map[string]string{"scalar": everyType, "nested": nestedTypes} {
		t.Run(name, func(t *testing.T) {
			rowsRes := readRows(t, e, query)
			arrowRes, read := readArrowPath(t, e, query)
			if read.refused {
				t.Fatalf("the Arrow path refused the columns %v; Arrow schema:\n%s", rowsRes.Columns, arrowSchema(t, e, query))
			}
			compareResults(t, rowsRes, arrowRes)
			q := query + ` -- asked through Stream`
			for i := range 2 {
				again, err := e.Query(ctx, q, 0)
				if err != nil {
					t.Fatal(err)
				}
				compareResults(t, rowsRes, again)
				if next := e.stmts.entry(q).next.Load(); next != nextArrow {
					t.Fatalf("after ask %d the next read is %d, want through Arrow", i+1, next)
				}
			}
		})
	}
}

// Types whose Arrow form is another's by default (HUGEINT and
// DECIMAL(38,0); VARCHAR, UUID and JSON) are told apart by their Arrow
// schema alone, also when the table changes past Exec (through DB()):
// each answer has the column's new type and values.
func TestArrowTellsLookalikeTypesApart(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const q = `SELECT a FROM t ORDER BY k`
	for _, c := range []struct {
		expr, typ string
		want      any
	}{
		{`range::HUGEINT`, "HUGEINT", int64(1)},
		{`range::DECIMAL(38,0)`, "DECIMAL(38,0)", 1.0},
		{`('00000000-0000-4000-8000-' || lpad(range::VARCHAR, 12, '0'))::UUID`, "UUID", "00000000-0000-4000-8000-000000000001"},
		{`'{"n": ' || range || '}'`, "VARCHAR", `{"n": 1}`},
		{`('{"n": ' || range || '}')::JSON`, "JSON", map[string]any{"n": 1.0}},
	} {
		create := `CREATE OR REPLACE TABLE t AS SELECT range AS k, ` + c.expr + ` AS a FROM range(3000)`
		if _, err := e.DB().ExecContext(ctx, create); err != nil {
			t.Fatal(err)
		}
		for i := range 2 { // first ask, then large
			res, err := e.Query(ctx, q, 0)
			if err != nil || res.Columns[0].Type != c.typ || !reflect.DeepEqual(res.Rows[1][0], c.want) {
				t.Fatalf("%s, ask %d: %v %#v, %v; want %s %#v", c.expr, i+1, res.Columns, res.Rows[1][0], err, c.typ, c.want)
			}
		}
	}
}

// A result with a type the Arrow path does not read (BIT, TIMETZ, UNION,
// MAP, whose JSON keys Arrow does not mark; a LIST or STRUCT of one of
// those) is read row by row, its first ask after the Arrow read
// stopped at the schema, and row by row from then on, with the same
// answer every time.
func TestArrowFallsBackToRows(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	for _, col := range []string{
		`'0101'::BIT`, `TIMETZ '10:00:00+02'`, `union_value(k := i)`, `MAP {'k': i}`, `[MAP {((i % 3) || '')::JSON: i}]`, `['0101'::BIT]`, `{'t': TIMETZ '10:00:00+02'}`,
	} {
		t.Run(col, func(t *testing.T) {
			q := fmt.Sprintf(`SELECT i, %s AS c FROM range(3000) AS t(i) ORDER BY i`, col)
			want := readRows(t, e, q)
			if _, read := readArrowPath(t, e, q); !read.refused {
				t.Fatalf("the Arrow path read %s (%s); want the row path", col, want.Columns[1].Type)
			}
			for i := range 2 {
				got, err := e.Query(ctx, q, 0)
				if err != nil {
					t.Fatal(err)
				}
				compareResults(t, want, got)
				if next := e.stmts.entry(q).next.Load(); next != nextRefused {
					t.Fatalf("after ask %d the next read is %d, want row by row", i+1, next)
				}
			}
		})
	}
}

// The first ask of a SQL text prepares nothing and is read through
// Arrow; a small answer is read row by row the next time, with the
// statement prepared then and reused after; a large one through Arrow.
func TestFirstAskThroughArrow(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	for _, c := range []struct {
		rows     int
		next     int32
		prepared bool
	}{{3, nextRows, true}, {3000, nextArrow, false}} {
		q := fmt.Sprintf(`SELECT i FROM range(%d) AS t(i)`, c.rows)
		if _, err := e.Query(ctx, q, 0); err != nil {
			t.Fatal(err)
		}
		entry := e.stmts.entry(q)
		if entry.stmt != nil || entry.next.Load() != c.next {
			t.Fatalf("%d rows, after the first ask: prepared %v, next %d; want none, %d", c.rows, entry.stmt != nil, entry.next.Load(), c.next)
		}
		for range 2 {
			if res, err := e.Query(ctx, q, 0); err != nil || len(res.Rows) != c.rows {
				t.Fatalf("%d rows: %v", c.rows, err)
			}
		}
		if (entry.stmt != nil) != c.prepared {
			t.Fatalf("%d rows, after three asks: prepared %v, want %v", c.rows, entry.stmt != nil, c.prepared)
		}
	}
}

// readRows answers q row by row, with an entry of its own.
func readRows(t *testing.T, e *Engine, q string) *engine.Result {
	t.Helper()
	res := &engine.Result{}
	if err := e.streamRows(context.Background(), &stmtEntry{sql: q}, collectColumns(res), collectRows(res)); err != nil {
		t.Fatal(err)
	}
	return res
}

// readArrowPath answers q through the Arrow path.
func readArrowPath(t *testing.T, e *Engine, q string) (*engine.Result, arrowRead) {
	t.Helper()
	res := &engine.Result{}
	read, err := e.streamArrow(context.Background(), q, collectColumns(res), collectRows(res))
	if err != nil {
		t.Fatal(err)
	}
	return res, read
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
// also when the catalog changes past Exec (through DB()): after its table
// is replaced by one of other columns, the answer comes, right, from the
// new table; after the table is dropped it fails as drift.
func TestArrowFollowsTheCatalog(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const q = `SELECT * FROM t ORDER BY 1`
	if err := e.Exec(ctx, `CREATE TABLE t AS SELECT range AS a FROM range(3000)`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
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
// expects (here VARCHAR as large_utf8, by a setting), the answer is read
// row by row, right, and the next reads do not try Arrow again; once Exec
// turns the setting back, Arrow reads it again.
func TestArrowRefusedFormStaysOnRows(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	if err := e.Exec(ctx, `SET GLOBAL arrow_large_buffer_size = true`); err != nil {
		t.Fatal(err)
	}
	const q = `SELECT 'x' || range AS s FROM range(3000) ORDER BY range`
	ask := func(want int32) {
		t.Helper()
		res, err := e.Query(ctx, q, 0)
		if err != nil || len(res.Rows) != 3000 || res.Rows[2999][0] != "x2999" {
			t.Fatalf("%d rows, %v", len(res.Rows), err)
		}
		if next := e.stmts.entry(q).next.Load(); next != want {
			t.Fatalf("next read %d, want %d; schema %s", next, want, arrowSchema(t, e, q))
		}
	}
	for range 3 { // refused, then rows
		ask(nextRefused)
	}
	if err := e.Exec(ctx, `SET GLOBAL arrow_large_buffer_size = false`); err != nil {
		t.Fatal(err)
	}
	ask(nextArrow)
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
	if next := e.stmts.entry(q).next.Load(); next != nextArrow {
		t.Fatalf("the next read of %s would not go through Arrow (%d)", q, next)
	}
	_, err := e.Query(ctx, q, 0)
	if !errors.Is(err, engine.ErrOutOfMemory) || !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("want ErrOutOfMemory, got %v", err)
	}
}
