package conformance_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// castFilter rewrites DuckDB's `COUNT(*) FILTER (WHERE c)::DOUBLE` in the
// hand-written flights SQL into Trino's CAST spelling; the rest of those
// queries is SQL both engines read.
var castFilter = regexp.MustCompile(`COUNT\(\*\) FILTER \(WHERE ([^)]*)\)::DOUBLE`)

// BenchmarkTrinoServerVsClient answers every flights question on the
// sample loaded into the real Trino two ways: through the semantic server
// over HTTP (POST /v1/models/flights/query on an httptest server: decode,
// plan, run through engine/trino, encode JSON) and as the hand-written SQL
// through trino-go-client (database/sql, rows scanned). One op is all the
// questions; the server/client metric is the ratio of the two, measured in
// the same run. Run with: go test ./test/conformance -run '^$' -bench TrinoServerVsClient -benchtime 1x
func BenchmarkTrinoServerVsClient(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "flights.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var file struct {
		Questions []flightQuestion `yaml:"questions"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	srv := trinoserver.Shared(b)
	schema := srv.NewSchema(b, "bench")
	eng, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.AdminUser, "memory", schema), RetryTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	duck, err := duckdb.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer duck.Close()
	for table, f := range map[string]string{"flights": "flights-sample.parquet", "airports": "airports.csv"} {
		if err := duck.LoadFile(ctx, table, filepath.Join(flightsData, f)); err != nil {
			b.Fatal(err)
		}
		copyToTrino(b, duck, target{trinoName, eng}, "main", table)
	}
	arts, err := server.LoadModelFiles([]string{flightsModel}, compiler.CompileOptions{Dialect: dialect.Trino})
	if err != nil {
		b.Fatal(err)
	}
	api, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(api.Handler())
	defer hs.Close()
	client, err := sql.Open("trino", srv.DSN(trinoserver.AdminUser, "memory", schema))
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()

	bodies := make([][]byte, len(file.Questions))
	hands := make([]string, len(file.Questions))
	for i, q := range file.Questions {
		if bodies[i], err = json.Marshal(q.Query); err != nil {
			b.Fatal(err)
		}
		hands[i] = castFilter.ReplaceAllString(q.Hand, "CAST(COUNT(*) FILTER (WHERE $1) AS DOUBLE)")
	}
	viaServer := func(b *testing.B) {
		for b.Loop() {
			for i, body := range bodies {
				resp, err := http.Post(hs.URL+"/v1/models/flights/query", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var out struct {
					Rows [][]any `json:"rows"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || len(out.Rows) < file.Questions[i].MinRows {
					b.Fatalf("%s: status %d, %d rows, %v", file.Questions[i].Name, resp.StatusCode, len(out.Rows), err)
				}
			}
		}
	}
	viaClient := func(b *testing.B) {
		for b.Loop() {
			for i, q := range hands {
				n, err := scanAll(ctx, client, q)
				if err != nil || n < file.Questions[i].MinRows {
					b.Fatalf("%s: %d rows, %v\n%s", file.Questions[i].Name, n, err, q)
				}
			}
		}
	}
	for b.Loop() {
		s := testing.Benchmark(viaServer)
		c := testing.Benchmark(viaClient)
		b.ReportMetric(float64(s.NsPerOp())/1e6, "server-ms/questions")
		b.ReportMetric(float64(c.NsPerOp())/1e6, "client-ms/questions")
		b.ReportMetric(float64(s.NsPerOp())/float64(c.NsPerOp()), "server/client")
	}
}

// scanAll runs q and scans every row, as a client reading the answer does.
func scanAll(ctx context.Context, db *sql.DB, q string) (int, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
