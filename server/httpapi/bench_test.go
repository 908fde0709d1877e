package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// BenchmarkQueryHTTP is the fixed cost of one small answer over HTTP
// (loopback, keep-alive): decoding, planning, the engine, encoding,
// logging. cache=on answers from the result cache after the first call;
// engine-only runs the planned SQL directly, the baseline.
func BenchmarkQueryHTTP(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cache int64
	}{{"cache=off", 0}, {"cache=on", 1 << 20}, {"engine-only", -1}} {
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
			const q = `{"metrics":["order_count"],"dimensions":["customers.state"]}`
			if bc.cache < 0 {
				// The same planned SQL straight on the engine: the baseline.
				p, err := srv.Plan(context.Background(), "shop", servertest.MustQuery(b, q))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := eng.Query(context.Background(), p.SQL, 0); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			ts := httptest.NewServer(handlerOf(srv))
			defer ts.Close()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(ts.URL+"/v1/models/shop/query", "application/json", strings.NewReader(q))
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
