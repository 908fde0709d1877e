package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/trino/trinotest"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestTrinoEngine serves the shop model with --engine trino: the DSN comes
// from --dsn-file, --default-catalog/--default-schema qualify the sources
// and are the session's defaults, and an answer travels through the Trino
// client protocol (engine/trino/trinotest).
func TestTrinoEngine(t *testing.T) {
	s := trinotest.Start(t, "ossie", "srv-pw", 100)
	if _, err := s.DB.Exec(`CREATE SCHEMA shop;
		CREATE TABLE shop.orders (order_id BIGINT, customer_id BIGINT, status VARCHAR, order_date DATE, amount DECIMAL(10,2));
		CREATE TABLE shop.customers (customer_id BIGINT, state VARCHAR);
		INSERT INTO shop.orders VALUES (1, 1, 'placed', DATE '2024-01-02', 10.50), (2, 2, 'shipped', DATE '2024-01-03', 4.25);
		INSERT INTO shop.customers VALUES (1, 'CA'), (2, 'NY')`); err != nil {
		t.Fatal(err)
	}
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(s.ClientDSN(t, "cmd-server-test", "", "")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--engine", "trino", "--dsn-file", dsnFile,
			"--default-catalog", "memory", "--default-schema", "shop", "--addr", addr})
	})
	defer func() {
		cancel()
		if code := srv.Exit(t); code != 0 {
			t.Errorf("server exited with %d", code)
		}
	}()
	srv.WaitServing(t)
	code, body := srv.Call("POST", "/v1/models/shop/query",
		`{"metrics":["revenue","order_count"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`, "")
	if code != 200 || !strings.Contains(body, `"rows":[["CA",10.5,1],["NY",4.25,1]]`) {
		t.Fatalf("answer %d %s", code, body)
	}
	if n := len(s.Posts()); n < 2 {
		t.Errorf("%d statements reached the Trino server, want the start-up check and the query", n)
	}
}
