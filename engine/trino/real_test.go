package trino_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/enginetest"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// These tests run against a real Trino (test/trinoserver, one server for
// the package). The protocol edge cases a real server cannot be made to
// produce on demand stay in trino_test.go on engine/trino/trinotest.

// startingErr is what opening the engine got from the shared server while
// /v1/info still reported it starting (TestMain's hook runs before any test
// reaches the server).
var startingErr error

func TestMain(m *testing.M) {
	trinoserver.SharedOptions.WhileStarting = func(s *trinoserver.Server) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, startingErr = trino.Open(ctx, trino.Config{DSN: s.DSN(trinoserver.AdminUser, "memory", ""), RetryTimeout: time.Second})
		if startingErr == nil {
			startingErr = errors.New("no error: a query succeeded while the server reported starting")
		}
	}
	os.Exit(trinoserver.Main(m))
}

// openReal opens the engine as user on the shared real Trino with session
// catalog memory and schema (empty: none).
func openReal(t *testing.T, user, schema string) *trino.Engine {
	t.Helper()
	srv := trinoserver.Shared(t)
	e, err := trino.Open(context.Background(), trino.Config{DSN: srv.DSN(user, "memory", schema), RetryTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// realSchema makes a fresh schema with the table t(id BIGINT, amount
// DOUBLE) holding two rows, and opens the engine on it as AdminUser.
func realSchema(t *testing.T, prefix string) (string, *trino.Engine) {
	t.Helper()
	schema := trinoserver.Shared(t).NewSchema(t, prefix)
	e := openReal(t, trinoserver.AdminUser, schema)
	for _, s := range []string{
		"CREATE TABLE t (id BIGINT, amount DOUBLE)",
		"INSERT INTO t VALUES (1, 9.5), (2, 20)",
	} {
		if err := e.Exec(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return schema, e
}

// wantClass asserts err is an *engine.Error of class (nil: no class) whose
// message names Trino's error name.
func wantClass(t *testing.T, what string, err, class error, name string) {
	t.Helper()
	var ee *engine.Error
	if !errors.As(err, &ee) {
		t.Errorf("%s: %v, want an *engine.Error", what, err)
		return
	}
	if ee.Class != class || !strings.Contains(ee.Message, name) {
		t.Errorf("%s: class %v, message %q; want class %v naming %s", what, ee.Class, ee.Message, class, name)
	}
}

// TestRealDrift: a missing table, column, schema or catalog is drift
// (engine.ErrNotFound) as a real Trino reports it; a syntax error has no
// class and a bad cast is invalid input.
func TestRealDrift(t *testing.T) {
	schema, e := realSchema(t, "drift")
	ctx := context.Background()
	for _, c := range []struct {
		sql, name string
		class     error
	}{
		{"SELECT * FROM nope", "TABLE_NOT_FOUND", engine.ErrNotFound},
		{"SELECT nope FROM t", "COLUMN_NOT_FOUND", engine.ErrNotFound},
		{"SELECT * FROM memory.noschema.t", "SCHEMA_NOT_FOUND", engine.ErrNotFound},
		{"SELECT * FROM nocatalog.s.t", "CATALOG_NOT_FOUND", engine.ErrNotFound},
		{"SELEC 1", "SYNTAX_ERROR", nil},
		{"SELECT CAST('abc' AS INTEGER)", "INVALID_CAST_ARGUMENT", engine.ErrInvalidInput},
	} {
		_, err := e.Query(ctx, c.sql, 0)
		wantClass(t, c.sql, err, c.class, c.name)
	}
	for _, path := range [][]string{{"nope"}, {"noschema", "t"}, {"memory", schema, "nope"}, {"nocatalog", "s", "t"}} {
		_, err := e.Describe(ctx, path)
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Describe %v: %v, want ErrNotFound", path, err)
		}
	}
}

// TestRealPermissionDenied: Trino's file-based access control refusing a
// table (ReaderUser outside its schema) or a whole catalog (DeniedUser) is
// engine.ErrPermissionDenied from Query and Describe, never drift; a
// missing table the reader may look for stays drift.
func TestRealPermissionDenied(t *testing.T) {
	schema, _ := realSchema(t, "denied")
	ctx := context.Background()
	reader := openReal(t, trinoserver.ReaderUser, schema)
	nobody := openReal(t, trinoserver.DeniedUser, schema)
	for who, e := range map[string]*trino.Engine{"reader": reader, "nobody": nobody} {
		_, err := e.Query(ctx, "SELECT * FROM t", 0)
		wantClass(t, who+" Query", err, engine.ErrPermissionDenied, "PERMISSION_DENIED")
		_, err = e.Describe(ctx, []string{"t"})
		wantClass(t, who+" Describe", err, engine.ErrPermissionDenied, "PERMISSION_DENIED")
	}
	_, err := reader.Describe(ctx, []string{"nope"})
	wantClass(t, "reader Describe of a missing table", err, engine.ErrNotFound, "TABLE_NOT_FOUND")
}

// TestRealStartingUp: a coordinator still starting answers
// SERVER_STARTING_UP, which is an outage (retry later), not drift.
func TestRealStartingUp(t *testing.T) {
	trinoserver.Shared(t)
	if startingErr == nil {
		t.Fatal("the shared server was never seen starting (TestMain's hook did not run)")
	}
	wantClass(t, "query while starting", startingErr, engine.ErrUnavailable, "SERVER_STARTING_UP")
}

// TestRealServerDown: a coordinator that is not running (nothing listens
// on its loopback port) is an outage.
func TestRealServerDown(t *testing.T) {
	_, err := trino.Open(context.Background(), trino.Config{DSN: trinoserver.DownDSN(t, trinoserver.AdminUser, "memory"), RetryTimeout: 500 * time.Millisecond})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Open on a closed port: %v, want ErrUnavailable", err)
	}
}

// TestRealTypesAndDescribe: values of Trino's types convert as
// convertValue documents, and Describe reads tables and views by one,
// two or three path parts with Trino's type spelling.
func TestRealTypesAndDescribe(t *testing.T) {
	schema, e := realSchema(t, "types")
	ctx := context.Background()
	res, err := e.Query(ctx, `SELECT BIGINT '3', 7 / 2, DOUBLE '0.75', 'v', DATE '2024-02-29',
		TIMESTAMP '2024-02-29 13:14:15.500000', TIMESTAMP '2024-01-01 10:00:00.000000 +02:00',
		TRUE, CAST(12.34 AS DECIMAL(10,2)), CAST(NULL AS VARCHAR), TIME '10:11:12.250000',
		day_of_week(DATE '2024-01-07'), greatest(1, NULL)`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(3), int64(3), 0.75, "v", "2024-02-29",
		time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC), time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC),
		true, 12.34, nil, "10:11:12.25", int64(7), nil}
	for i, w := range want {
		g := res.Rows[0][i]
		if wt, ok := w.(time.Time); ok {
			if gt, ok := g.(time.Time); !ok || !gt.Equal(wt) || gt.Location() != time.UTC {
				t.Errorf("column %d (%s) = %#v, want %v in UTC", i+1, res.Columns[i].Type, g, wt)
			}
			continue
		}
		if g != w {
			t.Errorf("column %d (%s) = %#v, want %#v", i+1, res.Columns[i].Type, g, w)
		}
	}
	if err := e.Exec(ctx, "CREATE TABLE typed (id BIGINT, amount DECIMAL(10,2), placed DATE, at TIMESTAMP(6) WITH TIME ZONE, note VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	want2 := "id:BIGINT amount:DECIMAL(10,2) placed:DATE at:TIMESTAMP(6) WITH TIME ZONE note:VARCHAR"
	for _, path := range [][]string{{"typed"}, {schema, "typed"}, {"memory", schema, "typed"}} {
		cols, err := e.Describe(ctx, path)
		if err != nil {
			t.Fatalf("Describe %v: %v", path, err)
		}
		var got []string
		for _, c := range cols {
			got = append(got, c.Name+":"+c.Type)
		}
		if strings.Join(got, " ") != want2 {
			t.Errorf("Describe %v = %v, want %s", path, got, want2)
		}
	}
}

// TestRealRowCapCancels: a capped answer stops reading and the coordinator
// records the query as cancelled by the user, not run to its end.
func TestRealRowCapCancels(t *testing.T) {
	_, e := realSchema(t, "cap")
	ctx := context.Background()
	const marker = "ossie_row_cap_probe"
	// A million rows, far more than the first pages carry.
	res, err := e.Query(ctx, "SELECT a.x * 1000 + b.y AS "+marker+" FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 1000)) AS b(y)", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated {
		t.Fatalf("rows=%v truncated=%v", res.Rows, res.Truncated)
	}
	// The DELETE is asynchronous on the coordinator: poll briefly.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := e.Query(ctx, "SELECT state, error_code FROM system.runtime.queries WHERE query LIKE '%AS "+marker+" FROM%' AND query NOT LIKE '%system.runtime%'", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Rows) == 1 && st.Rows[0][0] == "FAILED" && st.Rows[0][1] == "USER_CANCELED" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("capped query on the coordinator: %v, want FAILED / USER_CANCELED", st.Rows)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRealGovernedViews: the engine creates, replaces, comments, lists and
// drops governed views in a schema of the memory connector (which stores
// views), and a second user whom the access control lets read only that
// schema reads the certified numbers through the views (they run with
// their owner's rights) but not the table under them; a third user reads
// nothing.
func TestRealGovernedViews(t *testing.T) {
	schema, e := realSchema(t, "views")
	ctx := context.Background()
	srv := trinoserver.Shared(t)
	t.Cleanup(func() { _ = srv.Exec(ctx, `DROP SCHEMA IF EXISTS memory."`+trinoserver.ReaderSchema+`" CASCADE`) })
	viewSchema := []string{"memory", trinoserver.ReaderSchema}
	base := `"memory"."` + schema + `"."t"`
	reader := openReal(t, trinoserver.ReaderUser, trinoserver.ReaderSchema)
	ids := func(who *trino.Engine) []any {
		t.Helper()
		res, err := who.Query(ctx, `SELECT id FROM "certified" ORDER BY id`, 0)
		if err != nil {
			t.Fatalf("reading the view: %v", err)
		}
		var out []any
		for _, r := range res.Rows {
			out = append(out, r[0])
		}
		return out
	}
	listed := func() (engine.Relation, bool) {
		t.Helper()
		rels, err := e.Relations(ctx, viewSchema)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := rels["certified"]
		return r, ok
	}

	if err := e.ApplyView(ctx, engine.ViewDef{Schema: viewSchema, Name: "certified", Query: "SELECT id, amount FROM " + base + " WHERE amount > 10", Comment: "certified: big orders"}); err != nil {
		t.Fatal(err)
	}
	if r, ok := listed(); !ok || !r.View || r.Comment != "certified: big orders" {
		t.Fatalf("Relations after create: %+v (listed %v)", r, ok)
	}
	if got := ids(reader); len(got) != 1 || got[0] != int64(2) {
		t.Fatalf("reader through the view: %v, want [2]", got)
	}

	if err := e.ApplyView(ctx, engine.ViewDef{Schema: viewSchema, Name: "certified", Query: "SELECT id, amount FROM " + base, Comment: "certified: all orders", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if r, ok := listed(); !ok || r.Comment != "certified: all orders" {
		t.Fatalf("Relations after replace: %+v (listed %v)", r, ok)
	}
	if got := ids(reader); len(got) != 2 {
		t.Fatalf("reader through the replaced view: %v, want 2 rows", got)
	}

	_, err := reader.Query(ctx, "SELECT * FROM "+base, 0)
	wantClass(t, "reader on the table under the view", err, engine.ErrPermissionDenied, "PERMISSION_DENIED")
	nobody := openReal(t, trinoserver.DeniedUser, trinoserver.ReaderSchema)
	_, err = nobody.Query(ctx, `SELECT * FROM "certified"`, 0)
	wantClass(t, "denied user on the view", err, engine.ErrPermissionDenied, "PERMISSION_DENIED")

	if err := e.DropView(ctx, viewSchema, "certified"); err != nil {
		t.Fatal(err)
	}
	if r, ok := listed(); ok {
		t.Fatalf("Relations after drop still lists %+v", r)
	}
	_, err = reader.Query(ctx, `SELECT * FROM "certified"`, 0)
	wantClass(t, "reader on the dropped view", err, engine.ErrNotFound, "TABLE_NOT_FOUND")
	// Dropping what is gone is not an error (a retried reconcile).
	if err := e.DropView(ctx, viewSchema, "certified"); err != nil {
		t.Fatalf("second DropView: %v", err)
	}
}

// TestRealServerIsLoopbackSingleNode checks the harness's promises: the
// installed version, one node, announced on the loopback URL it serves
// (never the machine's other addresses).
func TestRealServerIsLoopbackSingleNode(t *testing.T) {
	srv := trinoserver.Shared(t)
	var version, uri string
	var n int
	err := srv.DB.QueryRowContext(context.Background(),
		"SELECT max(node_version), max(http_uri), count(*) FROM system.runtime.nodes").Scan(&version, &uri, &n)
	if err != nil {
		t.Fatal(err)
	}
	if version != trinoserver.Version || n != 1 || uri != srv.URL() {
		t.Fatalf("nodes: version %q, uri %q, count %d; want %s, %s, 1", version, uri, n, trinoserver.Version, srv.URL())
	}
}

// The rollup table contract of engine.Materializer on a real Trino's
// memory connector: builds swap by DROP and rename, refreshes rebuild.
func TestRealTables(t *testing.T) {
	schema := trinoserver.Shared(t).NewSchema(t, "tables")
	e := openReal(t, trinoserver.AdminUser, schema)
	enginetest.Tables(t, e, []string{"memory", schema})
}

// TestRealCoordinatorKilledMidQuery: the coordinator dies while a query's
// pages are being read (a crash, an eviction). The stream must end by the
// caller's deadline with an error, not wait out the client's retries of
// the next page or of the query's cancellation (trino-go-client retries
// a refused connection for 2 minutes, and the DELETE that cancels a
// query for 30 s, whatever the caller's context). It uses a coordinator
// of its own, which it kills.
func TestRealCoordinatorKilledMidQuery(t *testing.T) {
	s, err := trinoserver.Start(trinoserver.Options{})
	if err != nil {
		trinoserver.SkipOrFail(t, err)
	}
	defer s.Stop()
	// The server's configuration: the DSN's retry defaults.
	e, err := trino.Open(context.Background(), trino.Config{DSN: s.DSN(trinoserver.AdminUser, "memory", "")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const timeout = 3 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	rows := 0
	err = e.Stream(ctx, "SELECT a.x * 1000 + b.y FROM UNNEST(sequence(1, 1000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 1000)) AS b(y)",
		func([]engine.Column) error { return nil },
		func([]any) error {
			if rows++; rows == 1 {
				s.Kill() // the rest of this page is read, the next one is not there
			}
			return nil
		})
	took := time.Since(start)
	if err == nil {
		t.Fatalf("%d rows and no error from a query whose coordinator was killed", rows)
	}
	if took > timeout+2*time.Second {
		t.Errorf("the stream ended %s after it began, its deadline was %s: %v", took.Round(100*time.Millisecond), timeout, err)
	}
	if !errors.Is(err, engine.ErrUnavailable) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want engine.ErrUnavailable or the deadline", err)
	}
}
