package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/test/trinoserver"
)

// TestMain runs the operator itself when the test binary is re-executed
// with runOperatorEnv set (TestStartupLogHasNoStackTrace), else the tests.
func TestMain(m *testing.M) {
	if os.Getenv(runOperatorEnv) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(trinoserver.Main(m))
}

// TestOpenTrino: --engine trino reads the DSN from --dsn-env, and
// --default-catalog/--default-schema become the session defaults the drift
// check describes unqualified tables in (a real Trino).
func TestOpenTrino(t *testing.T) {
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "sales")
	if err := srv.Exec(context.Background(), "CREATE TABLE memory."+schema+".orders (id BIGINT, amount DOUBLE)"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIE_TEST_OPERATOR_DSN", srv.DSN(trinoserver.AdminUser, "", ""))
	eng := openFromFlags(t, "--engine", "trino", "--dsn-env", "OSSIE_TEST_OPERATOR_DSN", "--default-catalog", "memory", "--default-schema", schema)
	if eng.Dialect().Name() != "trino" {
		t.Fatalf("dialect %s", eng.Dialect().Name())
	}
	cols, err := eng.Describe(context.Background(), []string{"orders"})
	if err != nil || len(cols) != 2 {
		t.Fatalf("Describe(orders) in memory.%s: %v %v", schema, cols, err)
	}
	// The same through --dsn-file.
	file := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(file, []byte(os.Getenv("OSSIE_TEST_OPERATOR_DSN")), 0o600); err != nil {
		t.Fatal(err)
	}
	eng = openFromFlags(t, "--engine", "trino", "--dsn-file", file, "--default-catalog", "memory", "--default-schema", schema)
	if cols, err := eng.Describe(context.Background(), []string{"orders"}); err != nil || len(cols) != 2 {
		t.Fatalf("Describe(orders) through --dsn-file: %v %v", cols, err)
	}
}
