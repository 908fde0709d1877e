package pgwire

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNodePostgres drives the endpoint with node-postgres (npm pg;
// testdata/pg_node.cjs, the package scripts/node-pg.sh installs;
// OSSIE_NODE_PG_HOME names it) with tokens as passwords: pg_catalog
// lists the models, tables and columns, metric queries run as simple
// queries, with parameters and as named prepared statements, a slow query
// is cancelled with node-postgres' CancelRequest, and the state analyst
// sees fewer columns and rows. Answers equal the HTTP API's and
// hand-written SQL. Skipped without the install unless
// OSSIE_REQUIRE_NODE_PG=1 (make test).
func TestNodePostgres(t *testing.T) {
	pkg := clientInstall(t, "OSSIE_NODE_PG_HOME", "OSSIE_REQUIRE_NODE_PG", "node_modules/pg/package.json", "scripts/node-pg.sh")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH (scripts/install-deps.sh installs it)")
	}
	f := newFixture(t, true, Options{})
	var r clientReport
	f.runClient(t, []string{"NODE_PATH=" + filepath.Dir(filepath.Dir(pkg))}, &r, node, "testdata/pg_node.cjs")
	f.checkReport(t, "node-postgres", &r)
}
