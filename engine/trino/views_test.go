package trino_test

import (
	"reflect"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/trino"
)

// The DDL as text: every identifier quoted, the comment an escaped
// literal, schema first. A real Trino runs it in TestRealGovernedViews.
func TestViewStatements(t *testing.T) {
	got := trino.ViewStatements(engine.ViewDef{
		Schema: []string{"hive", `bi"views`}, Name: "it's", Query: "SELECT 1 AS a", Comment: "owner's", Replace: true,
	})
	want := []string{
		`CREATE SCHEMA IF NOT EXISTS "hive"."bi""views"`,
		`CREATE OR REPLACE VIEW "hive"."bi""views"."it's" AS SELECT 1 AS a`,
		`COMMENT ON VIEW "hive"."bi""views"."it's" IS 'owner''s'`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if s := trino.ViewStatements(engine.ViewDef{Schema: []string{"v"}, Name: "x", Query: "SELECT 1"})[1]; s != `CREATE VIEW "v"."x" AS SELECT 1` {
		t.Errorf("create: %s", s)
	}
}
