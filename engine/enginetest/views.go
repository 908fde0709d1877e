// Package enginetest holds contract tests of the engine interfaces that
// each engine's own tests run against a real database (Views: DuckDB and
// PostgreSQL; the Trino test server cannot hold Trino views).
package enginetest

import (
	"context"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// ViewEngine is an engine that holds governed views.
type ViewEngine interface {
	engine.Engine
	engine.Viewer
}

// Views checks the engine.Viewer contract on e: quoted names of any
// spelling, comments kept exactly, CREATE VIEW refusing a taken name,
// replacement with other columns, tables told from views, idempotent drop.
// replaced is the replacing view's query, selecting columns b = 2 (an
// integer) and c = 'x' (text) in e's dialect. It creates the schema
// `bi "views"`, which must not exist yet.
func Views(t *testing.T, e ViewEngine, replaced string) {
	t.Helper()
	ctx := context.Background()
	schema := []string{`bi "views"`}
	const name = `it's "odd"`
	rels, err := e.Relations(ctx, schema)
	if err != nil || len(rels) != 0 {
		t.Fatalf("missing schema: %v, %v", rels, err)
	}
	if err := e.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: name, Query: "SELECT 1 AS a", Comment: "owner's view"}); err != nil {
		t.Fatal(err)
	}
	if err := e.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: name, Query: "SELECT 3 AS a", Comment: "someone else"}); err == nil {
		t.Error("CREATE VIEW over a taken name succeeded")
	}
	rels, err = e.Relations(ctx, schema)
	if err != nil || rels[name] != (engine.Relation{Name: name, View: true, Comment: "owner's view"}) {
		t.Fatalf("relations %+v, %v", rels, err)
	}
	if err := e.ApplyView(ctx, engine.ViewDef{Schema: schema, Name: name, Query: replaced, Comment: "v2", Replace: true}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Query(ctx, `SELECT b, c FROM "bi ""views"""."it's ""odd"""`, 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int32(2) && res.Rows[0][0] != int64(2) {
		t.Fatalf("replaced view: %+v, %v", res, err)
	}
	if err := e.Exec(ctx, `CREATE TABLE "bi ""views""".plain (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	rels, _ = e.Relations(ctx, schema)
	if rels[name].Comment != "v2" || rels["plain"].View || len(rels) != 2 {
		t.Errorf("relations after replace %+v", rels)
	}
	for range 2 {
		if err := e.DropView(ctx, schema, name); err != nil {
			t.Fatal(err)
		}
	}
	if rels, _ = e.Relations(ctx, schema); len(rels) != 1 {
		t.Errorf("after drop %+v", rels)
	}
}
