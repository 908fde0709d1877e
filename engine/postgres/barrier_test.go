package postgres_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/engine"
)

// TestViewIsSecurityBarrier reproduces the leak of issue 13 finding 1: a
// BI login allowed to read one governed view only creates a temporary
// function that raises a notice with every value it is given, cheap enough
// that the planner runs it before the view's row filter, and filters the
// view with it. Without security_barrier the function sees every row of
// the base table (22 destinations); with it, only the rows the filter
// admits (one destination). The view must stay a barrier through CREATE
// OR REPLACE (which resets a view's options unless they are repeated) and
// through the drop-and-create of a change of columns.
func TestViewIsSecurityBarrier(t *testing.T) {
	admin, dsn := open(t)
	ctx := context.Background()
	role := "bi_" + randSuffix(t, admin)
	mustExec(t, admin, `CREATE TABLE flights AS SELECT i AS id, 'D' || (i % 22) AS dest FROM generate_series(1, 3000) AS i`)
	mustExec(t, admin, `CREATE ROLE "`+role+`" LOGIN PASSWORD 'bi-pw'`)
	t.Cleanup(func() { _ = admin.Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`) })
	schema := []string{"bi"}
	const filtered = `SELECT id, dest FROM public.flights WHERE dest = 'D1'`
	if err := admin.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: "d1", Query: filtered, Comment: "v1"}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, admin, `GRANT USAGE ON SCHEMA bi TO "`+role+`"; GRANT SELECT ON bi.d1 TO "`+role+`"`)

	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "bi-pw")
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if v, ok := strings.CutPrefix(n.Message, "peek "); ok {
			mu.Lock()
			seen[v] = true
			mu.Unlock()
		}
	}
	reader, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Close(context.Background()) })
	if _, err := reader.Exec(ctx, `CREATE FUNCTION pg_temp.peek(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001
AS $$ BEGIN RAISE NOTICE 'peek %', $1; RETURN true; END $$`); err != nil {
		t.Fatal(err)
	}
	leak := func(step string) {
		t.Helper()
		mu.Lock()
		clear(seen)
		mu.Unlock()
		var n int
		if err := reader.QueryRow(ctx, `SELECT count(*) FROM bi.d1 WHERE pg_temp.peek(dest)`).Scan(&n); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if n != 137 || len(seen) != 1 || !seen["D1"] {
			t.Errorf("%s: the reader's function saw destinations %v (count %d), want only D1 (137 rows)", step, keys(seen), n)
		}
	}
	leak("created")
	rels, err := admin.Relations(ctx, schema)
	if err != nil || rels["d1"].Unguarded {
		t.Errorf("a created view is reported unguarded: %+v, %v", rels, err)
	}

	if err := admin.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: "d1", Query: filtered + ` AND id > 0`, Comment: "v2", Replace: true}); err != nil {
		t.Fatal(err)
	}
	leak("replaced")
	if err := admin.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: "d1", Query: `SELECT id, dest, 1 AS extra FROM public.flights WHERE dest = 'D1'`, Comment: "v3", Replace: true}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, admin, `GRANT SELECT ON bi.d1 TO "`+role+`"`) // the drop-and-create loses grants on the view
	leak("recreated with another column")

	// A view made without the barrier (as before this fix) is reported,
	// so the operator replaces it.
	mustExec(t, admin, `CREATE VIEW bi.old AS `+filtered)
	if rels, err := admin.Relations(ctx, schema); err != nil || !rels["old"].Unguarded || rels["d1"].Unguarded {
		t.Errorf("old view not reported unguarded: %+v, %v", rels, err)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
