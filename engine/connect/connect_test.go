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
	"github.com/ossie-dev/ossie/engine/trino/trinotest"
	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestCheckRefusesBadOptions(t *testing.T) {
	for _, o := range []connect.Options{
		{Engine: "oracle"},
		{Engine: connect.Postgres},
		{Engine: connect.Trino},
		{Engine: connect.Trino, DSNEnv: "A", DSNFile: "b"},
		{Engine: connect.DuckDB, DuckDBPath: "x.duckdb", DSNFile: "b"},
		{Engine: connect.Trino, DSNEnv: "A", PasswordFile: "p"},
		{Engine: connect.Trino, DSNEnv: "A", DuckDBPath: "x.duckdb"},
	} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := connect.Open(context.Background(), o); err == nil {
			t.Errorf("Open(%+v) succeeded", o)
		}
	}
	for _, o := range []connect.Options{{}, {DuckDBPath: "x.duckdb"}, {Engine: connect.Postgres, DSNFile: "f", PasswordFile: "p"}, {Engine: connect.Trino, DSNEnv: "E", Catalog: "c", Schema: "s"}} {
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

// TestOpenTrino: the DSN comes from a file or a variable; --default-catalog
// and --default-schema become the session's catalog and schema; a wrong
// password is unavailable and never quoted.
func TestOpenTrino(t *testing.T) {
	const secret = "tr1no-s3cret"
	s := trinotest.Start(t, "ossie", secret, 10)
	if _, err := s.DB.Exec("CREATE SCHEMA sales; CREATE TABLE sales.orders (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dsn := s.ClientDSN(t, "connect-test", "", "")
	file := writeFile(t, t.TempDir(), "dsn", dsn+"\n")
	e, err := connect.Open(ctx, connect.Options{Engine: connect.Trino, DSNFile: file, Catalog: "memory", Schema: "sales"})
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
	if h := s.Posts()[len(s.Posts())-1]; h.Get("X-Trino-Catalog") != "memory" || h.Get("X-Trino-Schema") != "sales" {
		t.Errorf("session headers %v", h)
	}

	t.Setenv("OSSIE_TEST_TRINO_DSN", strings.Replace(dsn, secret, "wrong-"+secret, 1))
	_, err = connect.Open(ctx, connect.Options{Engine: connect.Trino, DSNEnv: "OSSIE_TEST_TRINO_DSN"})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("wrong password: %v, want ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error quotes the password: %v", err)
	}
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
