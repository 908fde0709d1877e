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

// The hand-written flights SQL is DuckDB's; two rewrites make most of it
// Trino's: `COUNT(*) FILTER (WHERE c)::DOUBLE` becomes a CAST, and a
// GROUP BY of the first column's alias its position (Trino groups by
// columns, not output aliases). Questions Trino still refuses (HAVING on
// an alias) are left out of the comparison and counted in the log.
var (
	castFilter   = regexp.MustCompile(`COUNT\(\*\) FILTER \(WHERE ([^)]*)\)::DOUBLE`)
	groupByAlias = regexp.MustCompile(`GROUP BY [a-z] ORDER BY`)
)

func trinoHand(hand string) string {
	hand = castFilter.ReplaceAllString(hand, "CAST(COUNT(*) FILTER (WHERE $1) AS DOUBLE)")
	return groupByAlias.ReplaceAllString(hand, "GROUP BY 1 ORDER BY")
}

// BenchmarkTrinoServerVsClient answers every flights question on the
// sample loaded into the real Trino two ways: through the semantic server
// over HTTP (POST /v1/models/flights/query on an httptest server: decode,
// plan, run through engine/trino, encode JSON) and as the hand-written SQL
// through trino-go-client (database/sql, rows scanned). One op is all the
// questions; the log line gives the ratio server/client of the two,
// measured in the same run. Run with:
//
//	go test ./test/conformance -run '^$' -bench TrinoServerVsClient -benchtime 5x -v
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

	var bodies [][]byte
	var hands []string
	var qs []flightQuestion
	for _, q := range file.Questions {
		hand := trinoHand(q.Hand)
		if _, err := scanAll(ctx, client, hand); err != nil {
			b.Logf("left out %s: Trino refuses its hand-written SQL: %v", q.Name, err)
			continue
		}
		body, err := json.Marshal(q.Query)
		if err != nil {
			b.Fatal(err)
		}
		bodies, hands, qs = append(bodies, body), append(hands, hand), append(qs, q)
	}
	// Both sub-benchmarks run in this one process against the same
	// server; the ratio of their times per op is logged at the end.
	perOp := map[string]time.Duration{}
	b.Run("server_http", func(b *testing.B) {
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
				if err != nil || resp.StatusCode != http.StatusOK || len(out.Rows) < qs[i].MinRows {
					b.Fatalf("%s: status %d, %d rows, %v", qs[i].Name, resp.StatusCode, len(out.Rows), err)
				}
			}
		}
		perOp["server"] = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("trino_go_client", func(b *testing.B) {
		for b.Loop() {
			for i, q := range hands {
				n, err := scanAll(ctx, client, q)
				if err != nil || n < qs[i].MinRows {
					b.Fatalf("%s: %d rows, %v\n%s", qs[i].Name, n, err, q)
				}
			}
		}
		perOp["client"] = b.Elapsed() / time.Duration(b.N)
	})
	if perOp["server"] > 0 && perOp["client"] > 0 {
		b.Logf("%d flights questions on Trino: server over HTTP %s, trino-go-client %s per round; ratio server/client %.2f",
			len(bodies), perOp["server"], perOp["client"], float64(perOp["server"])/float64(perOp["client"]))
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
