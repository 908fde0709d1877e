package trino_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/engine/trino/trinotest"
)

const secret = "s3cr3t-pa55"

func start(t *testing.T, pageSize int) (*trinotest.Server, *trino.Engine) {
	t.Helper()
	s := trinotest.Start(t, "ossie", secret, pageSize)
	e, err := trino.Open(context.Background(), trino.Config{DSN: s.DSN("", ""), Catalog: "memory", Schema: "main", HTTPClient: s.Client, RetryTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return s, e
}

func TestDialect(t *testing.T) {
	_, e := start(t, 10)
	if e.Dialect() != dialect.Trino {
		t.Fatalf("Dialect() = %v", e.Dialect())
	}
}

func TestQueryTypesAndPages(t *testing.T) {
	s, e := start(t, 2)
	res, err := e.Query(context.Background(), `SELECT CAST(i AS BIGINT) AS b, CAST(i AS DOUBLE) / 4 AS d, 'v' || CAST(i AS VARCHAR) AS s,
		DATE '2024-02-29' AS dt, TIMESTAMP '2024-02-29 13:14:15.5' AS ts, i % 2 = 0 AS even,
		CAST(12.34 AS DECIMAL(10,2)) AS dec, CAST(NULL AS VARCHAR) AS n
		FROM range(5) AS r(i) ORDER BY i`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 5 || res.Truncated {
		t.Fatalf("rows=%d truncated=%v", len(res.Rows), res.Truncated)
	}
	wantTypes := []string{"BIGINT", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP", "BOOLEAN", "DECIMAL", "VARCHAR"}
	for i, c := range res.Columns {
		if c.Type != wantTypes[i] {
			t.Errorf("column %s type %q, want %q", c.Name, c.Type, wantTypes[i])
		}
	}
	row := res.Rows[3]
	want := []any{int64(3), 0.75, "v3", "2024-02-29", time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC), false, 12.34, nil}
	for i, w := range want {
		if wt, ok := w.(time.Time); ok {
			if got, ok := row[i].(time.Time); !ok || !got.Equal(wt) || got.Location() != time.UTC {
				t.Errorf("%s = %#v, want %v", res.Columns[i].Name, row[i], wt)
			}
			continue
		}
		if row[i] != w {
			t.Errorf("%s = %#v, want %#v", res.Columns[i].Name, row[i], w)
		}
	}
	// Three pages of two rows, nothing cancelled: the query ran to its end.
	if c := s.Cancelled(); len(c) != 0 {
		t.Errorf("cancelled %v", c)
	}
	h := s.Posts()[len(s.Posts())-1]
	if h.Get("X-Trino-Catalog") != "memory" || h.Get("X-Trino-Schema") != "main" || h.Get("X-Trino-User") != "ossie" {
		t.Errorf("session headers %v", h)
	}
}

func TestRowCapCancelsQuery(t *testing.T) {
	s, e := start(t, 3)
	res, err := e.Query(context.Background(), "SELECT i FROM range(100) AS r(i) ORDER BY i", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated || res.Rows[3][0] != int64(3) {
		t.Fatalf("rows=%v truncated=%v", res.Rows, res.Truncated)
	}
	if c := s.Cancelled(); len(c) != 1 {
		t.Fatalf("cancelled %v, want the capped query", c)
	}
	// Exactly maxRows rows: not truncated.
	res, err = e.Query(context.Background(), "SELECT i FROM range(4) AS r(i)", 4)
	if err != nil || len(res.Rows) != 4 || res.Truncated {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

func TestExecAndDescribe(t *testing.T) {
	_, e := start(t, 2)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE orders (id BIGINT, amount DECIMAL(10,2), placed DATE, note VARCHAR)",
		"INSERT INTO orders VALUES (1, 9.5, DATE '2024-01-02', 'a'), (2, 20, DATE '2024-01-03', NULL)",
		"CREATE OR REPLACE VIEW big_orders AS SELECT id FROM orders WHERE amount > 10",
	} {
		if err := e.Exec(ctx, q); err != nil {
			t.Fatalf("Exec %q: %v", q, err)
		}
	}
	want := "id:BIGINT amount:DECIMAL(10,2) placed:DATE note:VARCHAR"
	for _, path := range [][]string{{"orders"}, {"main", "orders"}, {"memory", "main", "orders"}} {
		cols, err := e.Describe(ctx, path)
		if err != nil {
			t.Fatalf("Describe %v: %v", path, err)
		}
		var got []string
		for _, c := range cols {
			got = append(got, c.Name+":"+c.Type)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Describe %v = %v, want %s", path, got, want)
		}
	}
	cols, err := e.Describe(ctx, []string{"big_orders"})
	if err != nil || len(cols) != 1 || cols[0].Name != "id" {
		t.Fatalf("view: %v %v", cols, err)
	}
	for _, path := range [][]string{{"nope"}, {"nope", "orders"}, {"memory", "main", "nope"}} {
		if _, err := e.Describe(ctx, path); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Describe %v: %v, want ErrNotFound", path, err)
		}
	}
	res, err := e.Query(ctx, "SELECT id FROM big_orders", 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(2) {
		t.Fatalf("view query: %+v %v", res, err)
	}
	if err := e.Exec(ctx, "DROP VIEW big_orders"); err != nil {
		t.Fatal(err)
	}
}

func TestErrorClasses(t *testing.T) {
	s, e := start(t, 2)
	ctx := context.Background()
	cases := []struct {
		sql, name string
		class     error
	}{
		{"SELECT * FROM missing_table", "TABLE_NOT_FOUND", engine.ErrNotFound},
		{"SELECT missing_column FROM range(1) AS r(i)", "COLUMN_NOT_FOUND", engine.ErrNotFound},
		{"SELECT * FROM missing_schema.t", "", engine.ErrNotFound},
		{"SELECT CAST('abc' AS INTEGER)", "INVALID_CAST_ARGUMENT", engine.ErrInvalidInput},
		{"SELEC 1", "SYNTAX_ERROR", nil},
	}
	for _, c := range cases {
		_, err := e.Query(ctx, c.sql, 0)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Class != c.class || !strings.Contains(ee.Message, c.name) {
			t.Errorf("%q: %#v, want class %v and %s", c.sql, err, c.class, c.name)
		}
	}
	for name, class := range map[string]error{
		"SERVER_STARTING_UP": engine.ErrUnavailable,
		"PERMISSION_DENIED":  engine.ErrPermissionDenied,
		"CATALOG_NOT_FOUND":  engine.ErrNotFound,
		"SCHEMA_NOT_FOUND":   engine.ErrNotFound,
	} {
		s.FailNext(trinotest.Error{Message: "injected", ErrorName: name, ErrorType: "USER_ERROR"})
		_, err := e.Query(ctx, "SELECT 1", 0)
		if !errors.Is(err, class) {
			t.Errorf("%s: %v, want %v", name, err, class)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	_, e := start(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Query(ctx, "SELECT i FROM range(10) AS r(i)", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestUnavailableAndNoSecretInErrors(t *testing.T) {
	s := trinotest.Start(t, "ossie", secret, 2)
	dsn := s.DSN("memory", "main")
	// Wrong password: the coordinator rejects the credentials (401).
	bad := strings.Replace(dsn, secret, "wrong-"+secret, 1)
	_, err := trino.Open(context.Background(), trino.Config{DSN: bad, HTTPClient: s.Client, RetryTimeout: time.Second})
	checkErr(t, err, engine.ErrUnavailable, "wrong-"+secret, bad)
	// Server down: connection refused.
	s.Close()
	_, err = trino.Open(context.Background(), trino.Config{DSN: dsn, HTTPClient: s.Client, RetryTimeout: 500 * time.Millisecond})
	checkErr(t, err, engine.ErrUnavailable, secret, dsn)
	// Unparsable DSN: a plain error without the DSN.
	_, err = trino.Open(context.Background(), trino.Config{DSN: "https://u:" + secret + "@host:port:bad?x=%zz"})
	checkErr(t, err, nil, secret, "")
}

func checkErr(t *testing.T, err, class error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if class != nil && !errors.Is(err, class) {
		t.Errorf("%v: want class %v", err, class)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error leaks a secret: %v", err)
		}
	}
}
