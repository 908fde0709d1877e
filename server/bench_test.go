package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// BenchmarkQueryHTTP is the fixed cost of one small answer over HTTP
// (loopback, keep-alive): decoding, planning, the engine, encoding,
// logging. cache=on answers from the result cache after the first call.
func BenchmarkQueryHTTP(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cache int64
	}{{"cache=off", 0}, {"cache=on", 1 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			eng, err := duckdb.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			if err := eng.Exec(context.Background(), shopTables); err != nil {
				b.Fatal(err)
			}
			arts, err := LoadModelFiles([]string{"testdata/shop.yaml"}, compiler.CompileOptions{})
			if err != nil {
				b.Fatal(err)
			}
			srv, err := New(Config{Engine: eng, Models: arts, CacheBytes: bc.cache})
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			const q = `{"metrics":["order_count"],"dimensions":["customers.state"]}`
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
