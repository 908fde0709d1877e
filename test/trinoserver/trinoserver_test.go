package trinoserver_test

import (
	"context"
	"os"
	"testing"

	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m)) }

// TestStarts proves the install runs: the coordinator reports the
// installed version, is the only node, and announces itself on loopback.
func TestStarts(t *testing.T) {
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
	t.Logf("started in %s", srv.StartDuration)
}

// TestNewSchemaIsDropped proves NewSchema's cleanup: the schema is gone
// after the subtest that made it.
func TestNewSchemaIsDropped(t *testing.T) {
	srv := trinoserver.Shared(t)
	var name string
	t.Run("make", func(t *testing.T) {
		name = srv.NewSchema(t, "harness")
		if err := srv.Exec(context.Background(), `CREATE TABLE memory."`+name+`".t AS SELECT 1 AS x`); err != nil {
			t.Fatal(err)
		}
	})
	var n int
	if err := srv.DB.QueryRow(`SELECT count(*) FROM memory.information_schema.schemata WHERE schema_name = '` + name + `'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("schema %s still exists", name)
	}
}
