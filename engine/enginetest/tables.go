package enginetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine"
)

// TableEngine is an engine that holds rollup tables.
type TableEngine interface {
	engine.Engine
	engine.Materializer
}

// Tables checks the engine.Materializer contract on e in schema (which
// must not exist yet): a build creates the schema and a commented table, a
// rebuild replaces rows and comment, a build whose query fails midway
// keeps the old table, its rows and its comment, a leftover build table
// does not stop a build, an incremental refresh replaces exactly the rows
// at or after its start and a failed one changes nothing, and drop is
// idempotent. The queries are plain SQL that DuckDB, PostgreSQL and Trino
// all accept.
func Tables(t *testing.T, e TableEngine, schema []string) {
	t.Helper()
	ctx := context.Background()
	const name = `it's a "rollup"`
	rel := engine.TablePath(e.Dialect(), schema, name)
	day := func(d int) string { return fmt.Sprintf("CAST('2024-01-%02d 00:00:00' AS TIMESTAMP)", d) }
	rows := func(pairs ...int) string {
		q := ""
		for i := 0; i < len(pairs); i += 2 {
			if q != "" {
				q += " UNION ALL "
			}
			q += fmt.Sprintf("SELECT %s AS day, %d AS n", day(pairs[i]), pairs[i+1])
		}
		return q
	}
	// want checks the table's (day, n) rows in day order and its comment.
	want := func(step, comment string, pairs ...int) {
		t.Helper()
		res, err := e.Query(ctx, "SELECT EXTRACT(DAY FROM day), n FROM "+rel+" ORDER BY day", 0)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		got := fmt.Sprint(res.Rows)
		exp := "["
		for i := 0; i < len(pairs); i += 2 {
			if i > 0 {
				exp += " "
			}
			exp += fmt.Sprintf("[%d %d]", pairs[i], pairs[i+1])
		}
		if exp += "]"; got != exp {
			t.Errorf("%s: rows %s, want %s", step, got, exp)
		}
		rels, err := e.Relations(ctx, schema)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if r := rels[name]; r.View || r.Comment != comment {
			t.Errorf("%s: relation %+v, want a table commented %q", step, r, comment)
		}
		for n := range rels {
			if engine.IsBuildName(n) {
				t.Errorf("%s: build table %q left behind", step, n)
			}
		}
	}
	def := func(q, comment string) engine.TableDef {
		return engine.TableDef{Schema: schema, Name: name, Query: q, Comment: comment}
	}

	n, err := e.BuildTable(ctx, def(rows(1, 10, 2, 20), "owner's v1"))
	if err != nil || n != 2 {
		t.Fatalf("first build: %d rows, %v", n, err)
	}
	want("first build", "owner's v1", 1, 10, 2, 20)

	if n, err = e.BuildTable(ctx, def(rows(1, 11, 2, 21, 3, 31), "v2")); err != nil || n != 3 {
		t.Fatalf("rebuild: %d rows, %v", n, err)
	}
	want("rebuild", "v2", 1, 11, 2, 21, 3, 31)

	// The value 'x' fails the cast only once rows flow, after the build
	// table exists on engines that create it first.
	bad := "SELECT " + day(9) + " AS day, CAST(v AS INTEGER) AS n FROM (VALUES ('1'), ('x')) AS t(v)"
	if _, err := e.BuildTable(ctx, def(bad, "broken")); err == nil {
		t.Fatal("a build whose query fails succeeded")
	}
	want("failed build", "v2", 1, 11, 2, 21, 3, 31)

	// A build table left by an interrupted build is replaced.
	if err := e.Exec(ctx, "CREATE TABLE "+engine.TablePath(e.Dialect(), schema, engine.BuildName(name))+" AS SELECT 1 AS junk"); err != nil {
		t.Fatal(err)
	}
	if n, err = e.BuildTable(ctx, def(rows(1, 12, 2, 22, 3, 32), "v3")); err != nil || n != 3 {
		t.Fatalf("build over a leftover: %d rows, %v", n, err)
	}
	want("build over a leftover", "v3", 1, 12, 2, 22, 3, 32)

	since := engine.Refresh{Column: "day", Since: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}
	if n, err = e.RefreshTable(ctx, def(rows(2, 23, 4, 43), "v4"), since); err != nil || n != 3 {
		t.Fatalf("refresh: %d rows, %v", n, err)
	}
	want("refresh", "v4", 1, 12, 2, 23, 4, 43)

	// A bounded range keeps the rows after it.
	between := engine.Refresh{Column: "day", Since: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)}
	if n, err = e.RefreshTable(ctx, def(rows(2, 24), "v5"), between); err != nil || n != 2 {
		t.Fatalf("bounded refresh: %d rows, %v", n, err)
	}
	want("bounded refresh", "v5", 2, 24, 4, 43)

	if _, err := e.RefreshTable(ctx, def(bad, "broken"), since); err == nil {
		t.Fatal("a refresh whose query fails succeeded")
	}
	want("failed refresh", "v5", 2, 24, 4, 43)

	for range 2 {
		if err := e.DropTable(ctx, schema, name); err != nil {
			t.Fatal(err)
		}
	}
	if rels, err := e.Relations(ctx, schema); err != nil || len(rels) != 0 {
		t.Errorf("after drop: %+v, %v", rels, err)
	}
}
