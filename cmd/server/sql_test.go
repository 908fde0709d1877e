package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/server/servertest"
)

// --pg-addr serves the SQL endpoint next to HTTP, with the same tokens
// and governance: the token is the password, and the catalog lists only
// what the token's role may read.
func TestSQLEndpointFlag(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	const token = "cmd-server-sql-token-0123456789"
	if err := os.WriteFile(tokens, []byte("tokens:\n  - {name: ca, token: "+token+", roles: [state_analyst], attributes: {state: CA}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pgAddr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return runTo(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--governance", "../../server/testdata/shop.governance.yaml",
			"--tokens-file", tokens, "--addr", addr, "--pg-addr", pgAddr}, io.Discard, io.Discard)
	})
	srv.WaitServing(t)
	if _, err := pgx.Connect(ctx, "postgres://bi:wrong-token-00000000000000@"+pgAddr+"/ossie?sslmode=disable"); err == nil {
		t.Error("a wrong token connected")
	}
	c, err := pgx.Connect(ctx, "postgres://bi:"+token+"@"+pgAddr+"/ossie?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, `SELECT column_name FROM information_schema.columns WHERE table_schema = 'shop' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cols, ",")
	if !strings.Contains(got, "revenue") || strings.Contains(got, "avg_amount") || strings.Contains(got, "customer_id") {
		t.Errorf("columns under the role: %s", got)
	}
	c.Close(ctx)
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}

// Without authentication the SQL endpoint, like HTTP, stays on loopback.
func TestSQLEndpointLoopbackWithoutAuth(t *testing.T) {
	var stderr strings.Builder
	code := runTo(context.Background(), []string{"--models", "../../server/testdata/shop.yaml", "--pg-addr", ":15432"}, io.Discard, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "--pg-addr :15432 is not a loopback address") || strings.Contains(stderr.String(), "--addr :15432") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}
