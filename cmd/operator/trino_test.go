package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/engine/trino/trinotest"
)

// TestOpenTrino: --engine trino reads the DSN from --dsn-env, and
// --default-catalog/--default-schema become the session defaults the drift
// check describes unqualified tables in.
func TestOpenTrino(t *testing.T) {
	s := trinotest.Start(t, "ossie", "op-pw", 10)
	if _, err := s.DB.Exec("CREATE SCHEMA sales; CREATE TABLE sales.orders (id BIGINT, amount DOUBLE)"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIE_TEST_OPERATOR_DSN", s.ClientDSN(t, "cmd-operator-test", "", ""))
	eng := openFromFlags(t, "--engine", "trino", "--dsn-env", "OSSIE_TEST_OPERATOR_DSN", "--default-catalog", "memory", "--default-schema", "sales")
	if eng.Dialect().Name() != "trino" {
		t.Fatalf("dialect %s", eng.Dialect().Name())
	}
	cols, err := eng.Describe(context.Background(), []string{"orders"})
	if err != nil || len(cols) != 2 {
		t.Fatalf("Describe(orders) in memory.sales: %v %v", cols, err)
	}
	// The same through --dsn-file.
	file := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(file, []byte(os.Getenv("OSSIE_TEST_OPERATOR_DSN")), 0o600); err != nil {
		t.Fatal(err)
	}
	openFromFlags(t, "--engine", "trino", "--dsn-file", file, "--default-catalog", "memory", "--default-schema", "sales")
}
