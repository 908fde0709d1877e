package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m)) }

// TestTrinoEngine serves the shop model with --engine trino on a real
// Trino: the DSN comes from --dsn-file, --default-catalog/--default-schema
// qualify the sources and are the session's defaults.
func TestTrinoEngine(t *testing.T) {
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "shop")
	if err := srv.Exec(context.Background(),
		`CREATE TABLE memory.`+schema+`.orders (order_id BIGINT, customer_id BIGINT, status VARCHAR, order_date DATE, amount DECIMAL(10,2))`,
		`CREATE TABLE memory.`+schema+`.customers (customer_id BIGINT, state VARCHAR)`,
		`INSERT INTO memory.`+schema+`.orders VALUES (1, 1, 'placed', DATE '2024-01-02', 10.50), (2, 2, 'shipped', DATE '2024-01-03', 4.25)`,
		`INSERT INTO memory.`+schema+`.customers VALUES (1, 'CA'), (2, 'NY')`,
	); err != nil {
		t.Fatal(err)
	}
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(srv.DSN(trinoserver.AdminUser, "", "")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--engine", "trino", "--dsn-file", dsnFile,
			"--default-catalog", "memory", "--default-schema", schema, "--addr", addr})
	})
	defer func() {
		cancel()
		if code := hs.Exit(t); code != 0 {
			t.Errorf("server exited with %d", code)
		}
	}()
	hs.WaitServing(t)
	code, body := hs.Call("POST", "/v1/models/shop/query",
		`{"metrics":["revenue","order_count"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`, "")
	if code != 200 || !strings.Contains(body, `"rows":[["CA",10.5,1],["NY",4.25,1]]`) {
		t.Fatalf("answer %d %s", code, body)
	}
}
