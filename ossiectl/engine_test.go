package ossiectl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m)) }

// TestQueryOnTrino runs `ossiectl query --engine trino` on a real Trino,
// the DSN read from a file and the session schema from --default-schema.
func TestQueryOnTrino(t *testing.T) {
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "shop")
	if err := srv.Exec(context.Background(),
		`CREATE TABLE memory.`+schema+`.orders (order_id BIGINT, customer_id BIGINT, status VARCHAR, order_date DATE, amount DECIMAL(10,2))`,
		`CREATE TABLE memory.`+schema+`.customers (customer_id BIGINT, state VARCHAR)`,
		`INSERT INTO memory.`+schema+`.orders VALUES (1, 1, 'placed', DATE '2024-01-02', 10.50), (2, 2, 'shipped', DATE '2024-01-03', 4.25), (3, 1, 'placed', DATE '2024-01-04', 1)`,
		`INSERT INTO memory.`+schema+`.customers VALUES (1, 'CA'), (2, 'NY')`,
	); err != nil {
		t.Fatal(err)
	}
	dsn := srv.DSN(trinoserver.AdminUser, "memory", "")
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "query", "testdata/shop.yaml", "--engine", "trino", "--dsn-file", dsnFile, "--default-schema", schema,
		"--metrics", "order_count", "--dimensions", "customers.state", "--order-by", "customers.state", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if want := "customers.state,order_count\nCA,2\nNY,1\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	for _, bad := range [][]string{
		{"--engine", "trino"},
		{"--engine", "trino", "--dsn-file", dsnFile, "--load", "orders=x.csv"},
		{"--engine", "oracle"},
	} {
		args := append([]string{"query", "testdata/shop.yaml", "--metrics", "order_count"}, bad...)
		if code, _, errs := run(t, "", args...); code != 2 || strings.Contains(errs, dsn) {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", bad, code, errs)
		}
	}
}
