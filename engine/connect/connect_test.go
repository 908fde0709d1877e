package connect_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/trino/trinotest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m, pgtest.StopShared)) }

func TestCheckRefusesBadOptions(t *testing.T) {
	for _, o := range []connect.Options{
		{Engine: "oracle"},
		{Engine: connect.Postgres},
		{Engine: connect.Trino},
		{Engine: connect.Trino, DSNEnv: "A", DSNFile: "b"},
		{Engine: connect.DuckDB, DuckDBPath: "x.duckdb", DSNFile: "b"},
		{Engine: connect.Trino, DSNEnv: "A", PasswordFile: "p"},
		{Engine: connect.Trino, DSNEnv: "A", DuckDBPath: "x.duckdb"},
		{Engine: connect.Postgres, DSNEnv: "A", AllowRead: []string{"/data"}},
		{Engine: connect.Postgres, DSNEnv: "A", Resources: duckdb.Resources{MemoryLimit: "1GiB"}},
		{Engine: connect.Trino, DSNEnv: "A", Resources: duckdb.Resources{Threads: 2}},
		{Resources: duckdb.Resources{MemoryLimit: "lots"}},
		{Resources: duckdb.Resources{MemoryLimit: "1 GiB; SET x"}},
		{Resources: duckdb.Resources{Threads: -1}},
	} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := connect.Open(context.Background(), o); err == nil {
			t.Errorf("Open(%+v) succeeded", o)
		}
	}
	for _, o := range []connect.Options{{}, {DuckDBPath: "x.duckdb"}, {Engine: connect.Postgres, DSNFile: "f", PasswordFile: "p"}, {Engine: connect.Trino, DSNEnv: "E", Catalog: "c", Schema: "s"},
		{Resources: duckdb.Resources{MemoryLimit: "512MiB", Threads: 2}}, {Resources: duckdb.Resources{MemoryLimit: "1.5GB"}}} {
		if err := o.Check(); err != nil {
			t.Errorf("%+v refused: %v", o, err)
		}
	}
}

func TestOpenDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "x.duckdb")
	dsnFile := writeFile(t, dir, "dsn", db+"\n")
	e, err := connect.Open(ctx, connect.Options{DSNFile: dsnFile})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// The same file through --duckdb sees the table.
	e, err = connect.Open(ctx, connect.Options{Engine: connect.DuckDB, DuckDBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dialect().Name() != "duckdb" {
		t.Errorf("dialect %s", e.Dialect().Name())
	}
	if _, err := e.Describe(ctx, []string{"t"}); err != nil {
		t.Errorf("the DSN file's database was not used: %v", err)
	}
}

// TestOpenTrino: the DSN comes from a file; --default-catalog and
// --default-schema become the session's catalog and schema on a real
// Trino (an unqualified table is found there).
func TestOpenTrino(t *testing.T) {
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "sales")
	ctx := context.Background()
	if err := srv.Exec(ctx, "CREATE TABLE memory."+schema+".orders (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, t.TempDir(), "dsn", srv.DSN(trinoserver.AdminUser, "", "")+"\n")
	e, err := connect.Open(ctx, connect.Options{Engine: connect.Trino, DSNFile: file, Catalog: "memory", Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dialect().Name() != "trino" {
		t.Fatalf("dialect %s", e.Dialect().Name())
	}
	cols, err := e.Describe(ctx, []string{"orders"})
	if err != nil || len(cols) != 1 {
		t.Fatalf("Describe in the default catalog and schema: %v %v", cols, err)
	}
}

// TestOpenTrinoWrongPassword: a password the coordinator rejects (the
// protocol test server: basic auth over TLS) is unavailable and never
// quoted, read from $VAR.
func TestOpenTrinoWrongPassword(t *testing.T) {
	const secret = "tr1no-s3cret"
	s := trinotest.Start(t, "ossie", secret, 10)
	dsn := s.ClientDSN(t, "connect-test", "", "")
	t.Setenv("OSSIE_TEST_TRINO_DSN", strings.Replace(dsn, secret, "wrong-"+secret, 1))
	_, err := connect.Open(context.Background(), connect.Options{Engine: connect.Trino, DSNEnv: "OSSIE_TEST_TRINO_DSN"})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("wrong password: %v, want ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error quotes the password: %v", err)
	}
	// The right one opens: the refusal was the password's.
	t.Setenv("OSSIE_TEST_TRINO_DSN", dsn)
	e, err := connect.Open(context.Background(), connect.Options{Engine: connect.Trino, DSNEnv: "OSSIE_TEST_TRINO_DSN"})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
}

func TestOpenPostgres(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	t.Setenv("OSSIE_TEST_PG_DSN", dsn)
	e, err := connect.Open(context.Background(), connect.Options{Engine: connect.Postgres, DSNEnv: "OSSIE_TEST_PG_DSN"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dialect().Name() != "postgres" {
		t.Fatalf("dialect %s", e.Dialect().Name())
	}
	if _, err := e.Query(context.Background(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenDuckDBSandboxed: every command that opens DuckDB through Open
// (the operator, bin/server, ossiectl init and the DSN form of query,
// serve and validate) gets an engine that reads the files AllowRead
// names and refuses every other host file (engine.ErrSandboxed, which
// the server answers as 403 OSS5014).
func TestOpenDuckDBSandboxed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	allowed := writeFile(t, dir, "allowed.csv", "x\n7\n")
	secret := writeFile(t, dir, "secret.txt", "s3cret\n")
	for _, o := range []connect.Options{
		{AllowRead: []string{allowed}},
		{Engine: connect.DuckDB, DuckDBPath: filepath.Join(dir, "x.duckdb"), AllowRead: []string{allowed}},
		{DSNFile: writeFile(t, dir, "dsn", filepath.Join(dir, "y.duckdb")), AllowRead: []string{allowed}},
	} {
		e, err := connect.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Query(ctx, "SELECT sum(x) FROM read_csv('"+allowed+"')", 0)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != float64(7) && res.Rows[0][0] != int64(7) {
			t.Errorf("%+v: the allowed file: %+v %v", o, res, err)
		}
		if _, err := e.Query(ctx, "SELECT content FROM read_text('"+secret+"')", 0); !errors.Is(err, engine.ErrSandboxed) {
			t.Errorf("%+v: a host file: %v, want engine.ErrSandboxed", o, err)
		}
		e.Close()
	}
}
