package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/enginetest"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// largeAnswerData is flights-shaped data whose answer by route and week
// has about 84,000 rows, like the 84k-row question of `make bench-e2e`
// (300,000 generated rows instead of the 3 M real ones, so setup stays quick).
const largeAnswerData = `
CREATE TABLE flights AS SELECT
	TIMESTAMP '2001-01-01' + to_minutes((i * 7919) % (181 * 24 * 60)) AS date,
	(i % 97) - 20 AS delay, (i % 2000) + 50 AS distance,
	'O' || (i % 80) AS origin, 'D' || ((i // 80) % 40) AS destination
FROM range(300000) AS t(i);
CREATE TABLE airports (iata VARCHAR, name VARCHAR, city VARCHAR, state VARCHAR, country VARCHAR, latitude DOUBLE, longitude DOUBLE);`

// BenchmarkLargeAnswer is the 84k-row answer (flight count by origin,
// destination and week) over HTTP in each format next to the engine's own
// time: engine=hand is the hand-written SQL and engine=planned the
// server's SQL, each run through database/sql with every value scanned
// (what a Go client of DuckDB pays); the http cases read the whole body.
// The ratio http/engine=hand is the server's cost per large answer;
// cpu-ms/op (the process's CPU time, DuckDB's threads included) is the
// steadier measure on a shared machine.
func BenchmarkLargeAnswer(b *testing.B) {
	ctx := context.Background()
	eng, err := duckdb.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(ctx, largeAnswerData); err != nil {
		b.Fatal(err)
	}
	arts, err := load.Models([]string{"../../examples/flights/model.yaml"}, compiler.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		b.Fatal(err)
	}
	const q = `{"metrics":["flight_count"],"dimensions":["flights.origin_code","flights.destination_code",{"field":"flights.departure_time","grain":"week"}]}`
	p, err := srv.Plan(ctx, "flights", servertest.MustQuery(b, q))
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(handlerOf(srv))
	defer ts.Close()
	for _, bc := range []struct{ name, sql, accept string }{
		{name: "engine=hand", sql: `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights GROUP BY ALL`},
		{name: "engine=hand-ordered", sql: `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights GROUP BY ALL ORDER BY 1, 2, 3`},
		{name: "engine=planned", sql: p.SQL},
		{name: "http=json", accept: "application/json"},
		{name: "http=csv", accept: "text/csv"},
		{name: "http=arrow", accept: format.MediaArrow},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				if bc.sql != "" {
					enginetest.ScanAll(b, eng.DB(), bc.sql)
					continue
				}
				postAll(b, ts.URL+"/v1/models/flights/query", bc.accept, q)
			}
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time this process used so far (user and system, all
// threads: DuckDB's too). On a shared machine it moves less than the wall
// time.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// postAll posts body with accept and reads the whole answer.
func postAll(b *testing.B, url, accept, body string) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatal(resp.Status)
	}
}
