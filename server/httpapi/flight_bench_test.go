package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// BenchmarkIdenticalConcurrentQueries (issue 28 item 2): eight clients
// ask the same heavy question at once over HTTP (a 3 M-row scan
// aggregated to about 5,600 rows, as JSON), result cache off. Each
// iteration is one burst of eight; answers/s and engine executions per
// burst are reported. sharing=off is the server before in-flight sharing
// (Config.FlightBytes < 0).
func BenchmarkIdenticalConcurrentQueries(b *testing.B) {
	eng, err := duckdb.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(context.Background(), `CREATE TABLE wide_t AS SELECT range AS k, 'label ' || (range % 7) || CASE WHEN range % 11 = 0 THEN ' "quoted"' ELSE '' END AS label,
		  CAST(DATE '2024-01-01' + CAST(range % 400 AS INTEGER) AS DATE) AS day,
		  CASE WHEN range % 13 = 0 THEN NULL ELSE range / 4.0 END AS x FROM range(3000000)`); err != nil {
		b.Fatal(err)
	}
	arts, err := load.Models([]string{"../testdata/wide.yaml"}, compiler.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const clients = 8
	const q = `{"metrics":["total","n"],"dimensions":["t.label","t.day"]}`
	for _, bc := range []struct {
		name        string
		flightBytes int64
	}{{"sharing=off", -1}, {"sharing=on", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			srv, err := server.New(server.Config{Engine: eng, Models: arts, FlightBytes: bc.flightBytes, Limits: server.Limits{MaxInFlight: clients}})
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(handlerOf(srv))
			defer ts.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			ask := func() int {
				req, _ := http.NewRequest("POST", ts.URL+"/v1/models/wide/query", strings.NewReader(q))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return 0
				}
				defer resp.Body.Close()
				n, _ := io.Copy(io.Discard, resp.Body)
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
				}
				return int(n)
			}
			size := ask() // warm the connection pool and the engine
			before := counterValue(b, srv.Config().Registry, "ossie_server_engine_queries_total")
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() { ask() })
				}
				wg.Wait()
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(clients*b.N)/elapsed.Seconds(), "answers/s")
			b.ReportMetric((counterValue(b, srv.Config().Registry, "ossie_server_engine_queries_total")-before)/float64(b.N), "executions/burst")
			b.ReportMetric(float64(size), "answer-bytes")
		})
	}
}
