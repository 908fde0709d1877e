package pgwire

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// newPostgresFixture is newFixture's governed server with the tables in
// a PostgreSQL database (a private server of test/pgtest) instead of
// DuckDB: ../testdata/shop.sql, whose DuckDB-only slow view is written
// with generate_series here.
func newPostgresFixture(t *testing.T) *fixture {
	t.Helper()
	dsn := pgtest.Private(t).NewDatabase(t)
	ctx := context.Background()
	eng, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	tables, err := os.ReadFile("../testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(tables), "\n") {
		if !strings.HasPrefix(l, "CREATE VIEW slow_view") {
			keep = append(keep, l)
		}
	}
	keep = append(keep, "CREATE VIEW slow_view AS SELECT a + b AS k FROM generate_series(1, 1000000) a, generate_series(1, 100000) b;")
	if err := eng.Exec(ctx, strings.Join(keep, "\n")); err != nil {
		t.Fatal(err)
	}
	return newServedFixture(t, eng, true, Options{})
}

// The Python and Node.js clients against the endpoint over the
// PostgreSQL engine: the same checks as on DuckDB (TestPsycopgAndSQLAlchemy,
// TestNodePostgres), hand-written SQL run by PostgreSQL, and the cancel
// reaching the PostgreSQL query. Needs PostgreSQL (OSSIE_REQUIRE_POSTGRES)
// and the clients' installs.
func TestClientsOnPostgres(t *testing.T) {
	python := clientInstall(t, "OSSIE_PG_PYTHON_HOME", "OSSIE_REQUIRE_PG_PYTHON", "venv/bin/python", "scripts/pg-python.sh")
	pkg := clientInstall(t, "OSSIE_NODE_PG_HOME", "OSSIE_REQUIRE_NODE_PG", "node_modules/pg/package.json", "scripts/node-pg.sh")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH (scripts/install-deps.sh installs it)")
	}
	f := newPostgresFixture(t)
	var py pythonReport
	f.runClient(t, nil, &py, python, "testdata/pg_python.py")
	f.checkReport(t, "psycopg on PostgreSQL", &py.clientReport)
	f.checkAnswer(t, "SQLAlchemy text() on PostgreSQL", py.Queries["sa_having"], "prepared_1")
	var js clientReport
	f.runClient(t, []string{"NODE_PATH=" + filepath.Dir(filepath.Dir(pkg))}, &js, node, "testdata/pg_node.cjs")
	f.checkReport(t, "node-postgres on PostgreSQL", &js)
}
