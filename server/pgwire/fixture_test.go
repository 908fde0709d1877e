package pgwire

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/httpapi"
	"github.com/ossie-dev/ossie/server/load"
)

// Tokens of the governed fixture (roles of server/testdata/shop.governance.yaml).
const (
	tokenState   = "tok-state-analyst-0000000000"
	tokenAuditor = "tok-auditor-0000000000000000"
	tokenOps     = "tok-ops-000000000000000000000"
)

type fixture struct {
	eng *duckdb.Engine
	// hand is the server's engine, which answers hand-written SQL
	// (handRows); nil: eng.
	hand engine.Engine
	srv  *server.Server
	http *httptest.Server
	addr string // the SQL endpoint
	ep   *Endpoint
}

// newFixture serves shop and slow over HTTP and SQL; governed: shop is
// governed and callers authenticate with the tokens above.
func newFixture(t testing.TB, governed bool, opts Options) *fixture {
	t.Helper()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tables, err := os.ReadFile("../testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(ctx, string(tables)); err != nil {
		t.Fatal(err)
	}
	f := newServedFixture(t, eng, governed, opts)
	f.eng = eng
	return f
}

// newServedFixture serves shop and slow over HTTP and SQL from eng,
// which holds the tables of ../testdata/shop.sql; governed as for
// newFixture. handRows reads eng.
func newServedFixture(t testing.TB, eng engine.Engine, governed bool, opts Options) *fixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := server.Config{Engine: eng}
	slow, err := load.Models([]string{"../testdata/slow.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if governed {
		shop, err := load.GovernedModels([]string{"../testdata/shop.yaml"}, "../testdata/shop.governance.yaml", compiler.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Models = append(shop, slow...)
		dir := t.TempDir()
		tokens := "tokens:\n" +
			"  - {name: state, token: " + tokenState + ", roles: [state_analyst], attributes: {state: CA}}\n" +
			"  - {name: auditor, token: " + tokenAuditor + ", roles: [auditor]}\n" +
			"  - {name: ops, token: " + tokenOps + ", roles: [ops]}\n"
		if err := os.WriteFile(filepath.Join(dir, "tokens.yaml"), []byte(tokens), 0o600); err != nil {
			t.Fatal(err)
		}
		if cfg.Auth, err = auth.New(ctx, auth.Options{TokensFile: filepath.Join(dir, "tokens.yaml")}); err != nil {
			t.Fatal(err)
		}
	} else {
		shop, err := load.Models([]string{"../testdata/shop.yaml"}, compiler.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Models = append(shop, slow...)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	api, err := httpapi.New(srv, httpapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	ep := New(srv, opts)
	go func() { done <- ep.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &fixture{hand: eng, srv: srv, http: hs, addr: ln.Addr().String(), ep: ep}
}

// url is a libpq connection URL for the endpoint; password "" sends none.
func (f *fixture) url(password string) string {
	host, port, _ := net.SplitHostPort(f.addr)
	u := "postgres://bi"
	if password != "" {
		u += ":" + password
	}
	return u + "@" + host + ":" + port + "/ossie?sslmode=disable"
}

func (f *fixture) connect(t testing.TB, password string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), f.url(password))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
