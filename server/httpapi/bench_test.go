package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/enginetest"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// BenchmarkQueryHTTP is the fixed cost of one small answer over HTTP
// (loopback, keep-alive): decoding, planning, the engine, encoding,
// logging. cache=on answers from the result cache after the first call;
// engine-only runs the planned SQL directly, the baseline. fresh: every
// ask has a filter value never used before, so the server plans it and
// the engine runs a SQL text it never saw (engine-only: the planned SQL of
// each such ask, unprepared, as hand-written SQL runs).
func BenchmarkQueryHTTP(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cache int64
		fresh bool
	}{{"cache=off", 0, false}, {"cache=on", 1 << 20, false}, {"engine-only", -1, false}, {"cache=off,fresh", 0, true}, {"engine-only,fresh", -1, true}} {
		b.Run(bc.name, func(b *testing.B) {
			eng, err := duckdb.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			if err := eng.Exec(context.Background(), servertest.ShopTables); err != nil {
				b.Fatal(err)
			}
			arts, err := load.Models([]string{"../testdata/shop.yaml"}, compiler.CompileOptions{})
			if err != nil {
				b.Fatal(err)
			}
			srv, err := server.New(server.Config{Engine: eng, Models: arts, CacheBytes: max(0, bc.cache)})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			ask := func() string {
				if !bc.fresh {
					return `{"metrics":["order_count"],"dimensions":["customers.state"]}`
				}
				n++
				return fmt.Sprintf(`{"metrics":["order_count"],"dimensions":["customers.state"],"filters":[{"field":"customers.state","op":"not_in","values":["x%d"]}]}`, n)
			}
			if bc.cache < 0 {
				// The same planned SQL straight on the engine: the baseline.
				plan := func() string {
					p, err := srv.Plan(context.Background(), "shop", servertest.MustQuery(b, ask()))
					if err != nil {
						b.Fatal(err)
					}
					return p.SQL
				}
				sql := plan()
				b.ReportAllocs()
				for b.Loop() {
					if bc.fresh {
						b.StopTimer()
						sql = plan()
						b.StartTimer()
						enginetest.ScanAll(b, eng.DB(), sql)
						continue
					}
					if _, err := eng.Query(context.Background(), sql, 0); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			ts := httptest.NewServer(handlerOf(srv))
			defer ts.Close()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(ts.URL+"/v1/models/shop/query", "application/json", strings.NewReader(ask()))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
