package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/trino/trinotest"
)

// TestQueryOnTrino runs `ossiectl query --engine trino` through the Trino
// client protocol (engine/trino/trinotest), the DSN read from a file and
// the session schema from --default-schema.
func TestQueryOnTrino(t *testing.T) {
	s := trinotest.Start(t, "ossie", "cli-pw", 100)
	if _, err := s.DB.Exec(`CREATE SCHEMA shop;
		CREATE TABLE shop.orders (order_id BIGINT, customer_id BIGINT, status VARCHAR, order_date DATE, amount DECIMAL(10,2));
		CREATE TABLE shop.customers (customer_id BIGINT, state VARCHAR);
		INSERT INTO shop.orders VALUES (1, 1, 'placed', DATE '2024-01-02', 10.50), (2, 2, 'shipped', DATE '2024-01-03', 4.25), (3, 1, 'placed', DATE '2024-01-04', 1);
		INSERT INTO shop.customers VALUES (1, 'CA'), (2, 'NY')`); err != nil {
		t.Fatal(err)
	}
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(s.ClientDSN(t, "ossiectl-test", "memory", "")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "query", "testdata/shop.yaml", "--engine", "trino", "--dsn-file", dsnFile, "--default-schema", "shop",
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
		if code, _, errs := run(t, "", args...); code != 2 || strings.Contains(errs, "cli-pw") {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", bad, code, errs)
		}
	}
}
