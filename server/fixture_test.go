package server

import (
	"context"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
)

// fixture serves the shop and slow models on DuckDB over
// servertest.ShopTables, for the core's own tests, which call the server
// in process (server/httpapi's tests serve the same models over HTTP).
type fixture struct {
	eng *duckdb.Engine
	srv *Server
}

func newFixture(t testing.TB, mod func(*Config)) *fixture { return serveShop(t, false, mod) }

// newWideFixture serves shop, slow and wide (over wide_t).
func newWideFixture(t testing.TB, mod func(*Config)) *fixture { return serveShop(t, true, mod) }

func serveShop(t testing.TB, wide bool, mod func(*Config)) *fixture {
	t.Helper()
	eng, arts := servertest.Shop(t, wide)
	cfg := Config{Engine: eng, Models: arts}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{eng: eng, srv: srv}
}

// handRows runs hand-written SQL on the fixture's engine and returns its
// rows as a JSON client reads them.
func (f *fixture) handRows(t *testing.T, sql string) [][]any {
	t.Helper()
	res, err := f.eng.Query(context.Background(), sql, 0)
	if err != nil {
		t.Fatalf("hand SQL: %v", err)
	}
	return servertest.JSONRows(t, res.Rows)
}
