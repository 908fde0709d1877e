package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open opens an engine on a fresh database of the shared server.
func open(t *testing.T) (*postgres.Engine, string) {
	t.Helper()
	dsn := pgtest.Shared(t).NewDatabase(t)
	return openDSN(t, dsn), dsn
}

func openDSN(t *testing.T, dsn string) *postgres.Engine {
	t.Helper()
	e, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustExec(t *testing.T, e *postgres.Engine, sql string) {
	t.Helper()
	if err := e.Exec(context.Background(), sql); err != nil {
		t.Fatalf("Exec %q: %v", sql, err)
	}
}

func TestDialect(t *testing.T) {
	e, _ := open(t)
	if e.Dialect() != dialect.Postgres || e.Dialect().Name() != "postgres" {
		t.Fatalf("Dialect() = %v", e.Dialect())
	}
}

func TestQueryConvertsValues(t *testing.T) {
	e, _ := open(t)
	res, err := e.Query(context.Background(), `SELECT
		42::int4 AS i, 7::int2 AS si, 9000000000::int8 AS bi, 12.34::numeric(10,2) AS d,
		SUM(x) AS int_sum, SUM(x::int8) AS numeric_sum, 99999999999999999999::numeric AS huge,
		DATE '2024-02-29' AS dt, TIMESTAMP '2024-02-29 13:14:15.5' AS ts,
		TIMESTAMPTZ '2024-02-29 13:14:15+02' AS tstz, TIME '08:09:10.25' AS tm,
		'x''y'::text AS s, 'v'::varchar(3) AS vc, NULL::text AS n,
		'00112233-4455-6677-8899-aabbccddeeff'::uuid AS u, 'NaN'::float8 AS nan,
		'Infinity'::numeric AS inf, 1.5::float8 AS f, 0.25::float4 AS r, true AS b,
		ARRAY[1, 2] AS arr, '{"a": 1, "b": "z"}'::jsonb AS js,
		INTERVAL '1 month 2 days 3 seconds' AS iv, 'infinity'::date AS dinf, '\x0102'::bytea AS by
		FROM (VALUES (1), (2)) v(x)`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"i": int64(42), "si": int64(7), "bi": int64(9000000000), "d": 12.34,
		"int_sum": int64(3), "numeric_sum": int64(3), "huge": "99999999999999999999",
		"dt": "2024-02-29", "tm": "08:09:10.25", "s": "x'y", "vc": "v", "n": nil,
		"u": "00112233-4455-6677-8899-aabbccddeeff", "nan": nil, "inf": nil,
		"f": 1.5, "r": 0.25, "b": true, "dinf": "infinity",
	}
	wantTypes := map[string]string{
		"i": "INTEGER", "si": "SMALLINT", "bi": "BIGINT", "d": "NUMERIC", "int_sum": "BIGINT",
		"numeric_sum": "NUMERIC", "dt": "DATE", "ts": "TIMESTAMP", "tstz": "TIMESTAMPTZ",
		"tm": "TIME", "s": "TEXT", "vc": "VARCHAR", "u": "UUID", "f": "DOUBLE PRECISION",
		"r": "REAL", "b": "BOOLEAN", "arr": "INTEGER[]", "js": "JSONB", "iv": "INTERVAL", "by": "BYTEA",
	}
	if len(res.Rows) != 1 || res.Truncated {
		t.Fatalf("rows=%d truncated=%v", len(res.Rows), res.Truncated)
	}
	row := res.Rows[0]
	for i, c := range res.Columns {
		got := row[i]
		if wt, ok := wantTypes[c.Name]; ok && c.Type != wt {
			t.Errorf("column %s type %q, want %q", c.Name, c.Type, wt)
		}
		switch c.Name {
		case "ts":
			if ts, ok := got.(time.Time); !ok || !ts.Equal(time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC)) {
				t.Errorf("ts = %#v", got)
			}
		case "tstz":
			if ts, ok := got.(time.Time); !ok || !ts.Equal(time.Date(2024, 2, 29, 11, 14, 15, 0, time.UTC)) || ts.Location() != time.UTC {
				t.Errorf("tstz = %#v", got)
			}
		case "arr":
			if l, ok := got.([]any); !ok || len(l) != 2 || l[0] != int64(1) || l[1] != int64(2) {
				t.Errorf("arr = %#v", got)
			}
		case "js":
			if m, ok := got.(map[string]any); !ok || m["a"] != 1.0 || m["b"] != "z" {
				t.Errorf("js = %#v", got)
			}
		case "iv":
			if m, ok := got.(map[string]any); !ok || m["months"] != int64(1) || m["days"] != int64(2) || m["micros"] != int64(3e6) {
				t.Errorf("iv = %#v", got)
			}
		case "by":
			if b, ok := got.([]byte); !ok || len(b) != 2 || b[0] != 1 || b[1] != 2 {
				t.Errorf("by = %#v", got)
			}
		default:
			w, ok := want[c.Name]
			if !ok {
				t.Fatalf("unexpected column %q", c.Name)
			}
			if got != w {
				t.Errorf("%s = %#v (%T), want %#v (%T)", c.Name, got, got, w, w)
			}
		}
	}
}

func TestQueryRowCap(t *testing.T) {
	e, _ := open(t)
	// 100 million streamed rows: reading them all would take minutes, so
	// an answer at all shows the statement was cut at the cap.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	begin := time.Now()
	res, err := e.Query(ctx, "SELECT a * 10000 + b FROM generate_series(0, 9999) a, generate_series(1, 10000) b", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || !res.Truncated || res.Rows[2][0] != int64(3) {
		t.Fatalf("rows=%v truncated=%v", res.Rows, res.Truncated)
	}
	t.Logf("capped query took %s", time.Since(begin))
	// Exactly at the cap is not truncated.
	res, err = e.Query(context.Background(), "SELECT g FROM generate_series(1, 3) g", 3)
	if err != nil || len(res.Rows) != 3 || res.Truncated {
		t.Fatalf("at the cap: %v %v %v", res, err, res != nil && res.Truncated)
	}
	// The pool keeps working after a cut-off statement.
	for i := 0; i < 10; i++ {
		res, err := e.Query(context.Background(), "SELECT 1", 0)
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("query %d after the capped one: %v", i, err)
		}
	}
	// No zero-row result is nil.
	res, err = e.Query(context.Background(), "SELECT 1 WHERE false", 0)
	if err != nil || res.Rows == nil || len(res.Rows) != 0 || len(res.Columns) != 1 {
		t.Fatalf("empty result: %#v %v", res, err)
	}
}

func TestQueryCancellation(t *testing.T) {
	e, _ := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := e.Query(ctx, "SELECT pg_sleep(30)", 0)
	if err == nil {
		t.Fatal("pg_sleep(30) finished under a 200ms deadline")
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Fatalf("cancellation took %s", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("want DeadlineExceeded and ErrUnavailable, got %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel2() }()
	_, err = e.Query(ctx2, "SELECT pg_sleep(30)", 0)
	if !errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrUnavailable) || errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("cancelled request: want context.Canceled without class, got %v", err)
	}
	// The server stopped the statements: the pool answers at once.
	res, err := e.Query(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != int64(0) {
		t.Fatalf("%v sleeping statements still run on the server", res.Rows[0][0])
	}
}

func TestExecRunsSeveralStatements(t *testing.T) {
	e, _ := open(t)
	mustExec(t, e, `CREATE TABLE a (x int); INSERT INTO a VALUES (1), (2); CREATE VIEW b AS SELECT x * 10 AS y FROM a`)
	res, err := e.Query(context.Background(), "SELECT SUM(y) FROM b", 0)
	if err != nil || res.Rows[0][0] != int64(30) {
		t.Fatalf("%v %v", res, err)
	}
	// A failing statement rolls back the whole batch (one implicit transaction).
	if err := e.Exec(context.Background(), "INSERT INTO a VALUES (3); INSERT INTO nope VALUES (1)"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
	res, _ = e.Query(context.Background(), "SELECT COUNT(*) FROM a", 0)
	if res.Rows[0][0] != int64(2) {
		t.Fatalf("rows after failed batch: %v", res.Rows[0][0])
	}
}

func TestDescribe(t *testing.T) {
	e, dsn := open(t)
	mustExec(t, e, `CREATE SCHEMA "Sales";
		CREATE TABLE "Sales"."Orders" ("Order ID" int PRIMARY KEY, amount numeric(10,2), note varchar(20), at timestamptz, tags text[]);
		CREATE TABLE "Sales".orders (x bigint);
		CREATE TABLE plain (d date, "group" text);
		CREATE VIEW plain_v AS SELECT d FROM plain;
		CREATE MATERIALIZED VIEW plain_m AS SELECT "group" FROM plain;
		CREATE TABLE empty_cols ();
		ALTER TABLE plain ADD COLUMN gone int; ALTER TABLE plain DROP COLUMN gone`)
	db := dsnDatabase(t, dsn)
	cases := []struct {
		path []string
		want string
	}{
		{[]string{"Sales", "Orders"}, "Order ID INTEGER, amount NUMERIC(10,2), note VARCHAR(20), at TIMESTAMPTZ, tags TEXT[]"},
		{[]string{"Sales", "orders"}, "x BIGINT"},
		{[]string{db, "Sales", "Orders"}, "Order ID INTEGER, amount NUMERIC(10,2), note VARCHAR(20), at TIMESTAMPTZ, tags TEXT[]"},
		{[]string{"plain"}, "d DATE, group TEXT"},
		{[]string{"public", "plain"}, "d DATE, group TEXT"},
		{[]string{"plain_v"}, "d DATE"},
		{[]string{"plain_m"}, "group TEXT"},
		{[]string{"empty_cols"}, ""},
	}
	for _, c := range cases {
		cols, err := e.Describe(context.Background(), c.path)
		if err != nil {
			t.Errorf("%q: %v", c.path, err)
			continue
		}
		var parts []string
		for _, col := range cols {
			parts = append(parts, col.Name+" "+col.Type)
		}
		if got := strings.Join(parts, ", "); got != c.want {
			t.Errorf("%q: got %q, want %q", c.path, got, c.want)
		}
	}
	for _, missing := range [][]string{
		{"Orders"},                      // exists only in schema Sales
		{"sales", "Orders"},             // schema names are case-sensitive
		{"Sales", "ORDERS"},             // so are table names
		{"nope", "plain"},               // missing schema
		{"other_db", "public", "plain"}, // another database
		{`plain"; DROP TABLE plain; --`},
	} {
		_, err := e.Describe(context.Background(), missing)
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%q: want ErrNotFound, got %v", missing, err)
		}
	}
	if _, err := e.Describe(context.Background(), nil); err == nil {
		t.Error("empty path accepted")
	}
	if _, err := e.Describe(context.Background(), []string{"public", ""}); err == nil {
		t.Error("empty part accepted")
	}
	if _, err := e.Describe(context.Background(), []string{"plain"}); err != nil {
		t.Fatalf("plain dropped by the injection attempt: %v", err)
	}
}

func dsnDatabase(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

func TestErrorClassification(t *testing.T) {
	e, _ := open(t)
	mustExec(t, e, "CREATE TABLE t (x int)")
	cases := []struct {
		sql   string
		class error
	}{
		{"SELECT * FROM missing_table", engine.ErrNotFound},
		{"SELECT missing_column FROM t", engine.ErrNotFound},
		{"SELECT * FROM missing_schema.t", engine.ErrNotFound},
		{"SELEC 1", nil},
		{"SELECT 1 / 0", nil},
		{"SELECT 'a' + 1", nil},
		{"SELECT no_such_function(1)", nil},
	}
	for _, c := range cases {
		_, err := e.Query(context.Background(), c.sql, 0)
		if err == nil {
			t.Errorf("%s: no error", c.sql)
			continue
		}
		var ee *engine.Error
		if !errors.As(err, &ee) {
			t.Errorf("%s: %T is not *engine.Error", c.sql, err)
			continue
		}
		if ee.Class != c.class {
			t.Errorf("%s: class %v, want %v (%v)", c.sql, ee.Class, c.class, err)
		}
		if !strings.HasPrefix(ee.Message, "postgres: ") || !strings.Contains(ee.Message, "SQLSTATE") {
			t.Errorf("%s: message %q", c.sql, ee.Message)
		}
	}
}

// TestUnavailableAndRecovery stops the server under an open engine: every
// call fails as unavailable (never as drift) without leaking the password,
// and the same engine answers again once the server is back.
func TestUnavailableAndRecovery(t *testing.T) {
	srv := pgtest.Private(t)
	dsn := srv.NewDatabase(t)
	e := openDSN(t, dsn)
	mustExec(t, e, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
	if err := srv.StopServer(); err != nil {
		t.Fatal(err)
	}
	checks := map[string]func(ctx context.Context) error{
		"Query": func(ctx context.Context) error { _, err := e.Query(ctx, "SELECT x FROM t", 0); return err },
		"Exec":  func(ctx context.Context) error { return e.Exec(ctx, "SELECT 1") },
		"Describe": func(ctx context.Context) error {
			_, err := e.Describe(ctx, []string{"t"})
			return err
		},
		"Ping": e.Ping,
	}
	for name, call := range checks {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := call(ctx)
		cancel()
		if !errors.Is(err, engine.ErrUnavailable) || errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%s with the server down: want ErrUnavailable only, got %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), srv.Password()) {
			t.Errorf("%s: error message contains the password: %v", name, err)
		}
	}
	if err := srv.StartServer(); err != nil {
		t.Fatal(err)
	}
	var res *engine.Result
	var err error
	// The pool may hand out a connection broken by the restart once.
	for i := 0; i < 3; i++ {
		if res, err = e.Query(context.Background(), "SELECT x FROM t", 0); err == nil {
			break
		}
		if !errors.Is(err, engine.ErrUnavailable) {
			t.Fatalf("after restart: %v", err)
		}
	}
	if err != nil || res.Rows[0][0] != int64(1) {
		t.Fatalf("engine did not recover after the server came back: %v", err)
	}
}

// TestShutdownMidSessionIsUnavailable kills the session serving the pool
// (admin_shutdown, 57P01 — what a server restart does to open sessions).
func TestShutdownMidSessionIsUnavailable(t *testing.T) {
	e, _ := open(t)
	ctx := context.Background()
	errc := make(chan error, 1)
	go func() { _, err := e.Query(ctx, "SELECT pg_sleep(10)", 0); errc <- err }()
	time.Sleep(300 * time.Millisecond)
	admin := openDSN(t, pgtest.Shared(t).AdminDSN())
	if _, err := admin.Query(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(10)'", 0); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, engine.ErrUnavailable) {
			t.Fatalf("terminated session: want ErrUnavailable, got %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("query did not end when its session was terminated")
	}
}

func TestAuthFailureIsUnavailable(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.NewDatabase(t)
	const wrong = "Wr0ngPassw0rd-zzz"
	bad := strings.Replace(dsn, srv.Password(), wrong, 1)
	e := openDSN(t, bad)
	_, err := e.Query(context.Background(), "SELECT 1", 0)
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("wrong password: want ErrUnavailable, got %v", err)
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), srv.Password()) {
		t.Fatalf("message leaks a password: %v", err)
	}
	if !strings.Contains(err.Error(), "28P01") {
		t.Errorf("message should carry the SQLSTATE of the auth failure: %v", err)
	}
	// The cause is the password, not an engine that is down: say so.
	if !errors.Is(err, postgres.ErrAuthFailed) || !strings.Contains(err.Error(), "refused the credentials") ||
		!strings.Contains(err.Error(), "password") {
		t.Errorf("wrong password: want ErrAuthFailed and a message pointing at the credentials, got %v", err)
	}
}

func TestTooManyConnectionsIsUnavailable(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.NewDatabase(t)
	admin := openDSN(t, dsn)
	role := fmt.Sprintf("limited_%d", time.Now().UnixNano())
	mustExec(t, admin, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD 'pw-limited' CONNECTION LIMIT 1", role))
	t.Cleanup(func() { _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(role, "pw-limited")
	e, err := postgres.Open(context.Background(), postgres.Config{DSN: u.String(), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	held, err := e.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	_, err = e.Query(context.Background(), "SELECT 1", 0)
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "53300") {
		t.Fatalf("second connection over the role's limit: want ErrUnavailable (53300), got %v", err)
	}
	if strings.Contains(err.Error(), "pw-limited") {
		t.Fatalf("message leaks the password: %v", err)
	}
}

func TestConnectionRefusedIsUnavailable(t *testing.T) {
	// A port nobody listens on: take a private server's port and stop it.
	srv := pgtest.Private(t)
	dsn := srv.AdminDSN()
	if err := srv.StopServer(); err != nil {
		t.Fatal(err)
	}
	e := openDSN(t, dsn)
	err := e.Ping(context.Background())
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("refused connection: want ErrUnavailable, got %v", err)
	}
	if strings.Contains(err.Error(), srv.Password()) {
		t.Fatalf("message leaks the password: %v", err)
	}
}

func TestCredentialSources(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.NewDatabase(t)
	dir := t.TempDir()
	dsnFile := filepath.Join(dir, "dsn")
	if err := os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The DSN without its password plus the password in its own file, as
	// a Secret key mounted next to plain configuration.
	noPw := strings.Replace(dsn, ":"+srv.Password()+"@", "@", 1)
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte(srv.Password()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIE_TEST_PG_DSN", dsn)
	for name, cfg := range map[string]postgres.Config{
		"env":           {DSNEnv: "OSSIE_TEST_PG_DSN"},
		"file":          {DSNFile: dsnFile},
		"password file": {DSN: noPw, PasswordFile: pwFile},
	} {
		e, err := postgres.Open(context.Background(), cfg)
		if err != nil {
			t.Errorf("%s: Open: %v", name, err)
			continue
		}
		if err := e.Ping(context.Background()); err != nil {
			t.Errorf("%s: Ping: %v", name, err)
		}
		e.Close()
	}
	for name, cfg := range map[string]postgres.Config{
		"nothing":          {},
		"two sources":      {DSN: dsn, DSNFile: dsnFile},
		"unset env":        {DSNEnv: "OSSIE_TEST_PG_DSN_UNSET"},
		"missing file":     {DSNFile: filepath.Join(dir, "nope")},
		"bad port":         {DSN: "postgres://u:S3cretPw@127.0.0.1:notaport/db"},
		"bad key=value":    {DSN: "host=127.0.0.1 password=S3cretPw port=notaport"},
		"missing password": {DSN: noPw, PasswordFile: filepath.Join(dir, "nope")},
	} {
		e, err := postgres.Open(context.Background(), cfg)
		if err == nil {
			e.Close()
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		if strings.Contains(err.Error(), "S3cretPw") || strings.Contains(err.Error(), srv.Password()) {
			t.Errorf("%s: error leaks a password: %v", name, err)
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	e, _ := open(t)
	mustExec(t, e, "CREATE TABLE n AS SELECT g FROM generate_series(1, 1000) g")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := e.Query(context.Background(), fmt.Sprintf("SELECT SUM(g) + %d FROM n", i), 0)
			if err != nil {
				errs <- err
				return
			}
			if res.Rows[0][0] != int64(500500+i) {
				errs <- fmt.Errorf("query %d: %v", i, res.Rows[0][0])
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
