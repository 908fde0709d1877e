package conformance_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/httpapi"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// BenchFlightsEnv names a directory holding flights-3m.parquet (or the
// sample's flights-sample.parquet) and airports.csv, as
// scripts/fetch-flights.sh prints it. Set (by `make bench-trino`),
// BenchmarkTrinoServerVsClient starts its own Trino with the Hive
// connector (plugin "hive", installed by TRINO_PLUGINS="memory hive"
// scripts/trino.sh) and reads the Parquet file in place; unset, it copies
// the committed sample into the shared server's memory connector.
const BenchFlightsEnv = "OSSIE_BENCH_FLIGHTS"

// BenchmarkTrinoServerVsClient answers every flights question on Trino two
// ways: through the semantic server over HTTP (POST
// /v1/models/flights/query on an httptest server: decode, plan, run
// through engine/trino, encode JSON) and as the hand-written SQL of
// testdata/flights.yaml through trino-go-client (database/sql, every row
// scanned). Both must return the same number of rows. One op is all the
// questions both ways, interleaved; the metrics server-s/op and
// client-s/op split it, server/client is their ratio, measured in the
// same run against the same server, and the log has each question's
// times. Run with:
//
//	go test ./test/conformance -run '^$' -bench TrinoServerVsClient -benchtime 5x -v
//
// or `make bench-trino` for the 3 M rows.
func BenchmarkTrinoServerVsClient(b *testing.B) {
	questions := flightQuestions(b)
	ctx := context.Background()
	dsn := flightsOnTrino(b)
	eng, err := trino.Open(ctx, trino.Config{DSN: dsn, RetryTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	arts, err := load.Models([]string{flightsModel}, compiler.CompileOptions{Dialect: dialect.Trino})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		b.Fatal(err)
	}
	api, err := httpapi.New(srv, httpapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(api)
	defer hs.Close()
	client, err := sql.Open("trino", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()

	bodies := make([][]byte, len(questions))
	rows := make([]int, len(questions))
	for i, q := range questions {
		if bodies[i], err = json.Marshal(q.Query); err != nil {
			b.Fatal(err)
		}
		// One untimed round: both ways answer, with the same row count.
		if rows[i], err = scanAll(ctx, client, q.Hand); err != nil || rows[i] < q.MinRows {
			b.Fatalf("%s: hand-written SQL: %d rows, %v", q.Name, rows[i], err)
		}
		if n, err := postQuery(hs.URL, bodies[i]); err != nil || n != rows[i] {
			b.Fatalf("%s: server: %d rows, %v; hand-written SQL: %d rows", q.Name, n, err, rows[i])
		}
	}
	// The two ways alternate question by question (which goes first
	// alternates by round), so a change of load on a shared machine during
	// the run falls on both alike.
	var serverTime, clientTime time.Duration
	perQuestion := make([][2]time.Duration, len(questions))
	round := 0
	for b.Loop() {
		for i, q := range questions {
			for k := range 2 {
				start := time.Now()
				var n int
				if (k+round)%2 == 0 {
					n, err = postQuery(hs.URL, bodies[i])
				} else {
					n, err = scanAll(ctx, client, q.Hand)
				}
				d := time.Since(start)
				if err != nil || n != rows[i] {
					b.Fatalf("%s: %d rows, want %d: %v", q.Name, n, rows[i], err)
				}
				way := (k + round) % 2 // 0 server, 1 client
				perQuestion[i][way] += d
				if way == 0 {
					serverTime += d
				} else {
					clientTime += d
				}
			}
		}
		round++
	}
	b.ReportMetric((serverTime / time.Duration(round)).Seconds(), "server-s/op")
	b.ReportMetric((clientTime / time.Duration(round)).Seconds(), "client-s/op")
	b.ReportMetric(float64(serverTime)/float64(clientTime), "server/client")
	for i, q := range questions {
		b.Logf("%-48s server %8s  client %8s per answer", q.Name,
			(perQuestion[i][0] / time.Duration(round)).Round(time.Millisecond), (perQuestion[i][1] / time.Duration(round)).Round(time.Millisecond))
	}
	b.Logf("%d flights questions on Trino, %d rounds: server over HTTP %s, trino-go-client %s per round; ratio server/client %.2f",
		len(questions), round, (serverTime / time.Duration(round)).Round(time.Millisecond), (clientTime / time.Duration(round)).Round(time.Millisecond),
		float64(serverTime)/float64(clientTime))
}

// flightsOnTrino puts the tables flights and airports in one Trino schema
// and returns a DSN whose session catalog and schema are it: the 3 M rows
// of $OSSIE_BENCH_FLIGHTS through the Hive connector, else the sample in
// the shared server's memory connector.
func flightsOnTrino(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	duck, err := duckdb.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer duck.Close()
	dir := os.Getenv(BenchFlightsEnv)
	if dir == "" {
		srv := trinoserver.Shared(b)
		schema := srv.NewSchema(b, "bench")
		dsn := srv.DSN(trinoserver.AdminUser, "memory", schema)
		copyFlights(b, duck, dsn, filepath.Join(flightsData, "flights-sample.parquet"), filepath.Join(flightsData, "airports.csv"))
		return dsn
	}
	parquet := filepath.Join(dir, "flights-3m.parquet")
	if _, err := os.Stat(parquet); err != nil {
		parquet = filepath.Join(dir, "flights-sample.parquet")
	}
	srv, dsn := hiveFlights(b, parquet)
	start := time.Now()
	var n int64
	if err := srv.DB.QueryRowContext(ctx, "SELECT count(*) FROM hive.bench.flights").Scan(&n); err != nil {
		b.Fatal(err)
	}
	b.Logf("Trino %s (Hive connector, Parquet in place): %d flights rows in %s, counted in %s", trinoserver.Version, n, parquet, time.Since(start).Round(time.Millisecond))
	copyFlights(b, duck, dsn, "", filepath.Join(dir, "airports.csv"))
	return dsn
}

// copyFlights loads the files into DuckDB and copies the tables into the
// session schema of dsn (flights only when parquet is not empty).
func copyFlights(b *testing.B, duck *duckdb.Engine, dsn, parquet, airports string) {
	b.Helper()
	ctx := context.Background()
	eng, err := trino.Open(ctx, trino.Config{DSN: dsn, RetryTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	files := map[string]string{"flights": parquet, "airports": airports}
	for _, table := range []string{"flights", "airports"} {
		if files[table] == "" {
			continue
		}
		if err := duck.LoadFile(ctx, table, files[table]); err != nil {
			b.Fatal(err)
		}
		copyToTrino(b, duck, target{trinoName, eng}, "main", table)
	}
}

// hiveFlights starts a Trino of its own with a Hive catalog `hive` (file
// metastore and Parquet data on the local file system, Trino
// documentation "Local file system support") whose schema bench holds the
// external table flights over parquet; it is stopped when b ends.
func hiveFlights(b *testing.B, parquet string) (*trinoserver.Server, string) {
	b.Helper()
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "data", "flights"), 0o755); err != nil {
		b.Fatal(err)
	}
	// An external table is a directory; the file is copied, not linked,
	// so the local file system lists it as a plain file.
	if err := copyFile(parquet, filepath.Join(root, "data", "flights", filepath.Base(parquet))); err != nil {
		b.Fatal(err)
	}
	srv, err := trinoserver.Start(trinoserver.Options{
		Plugins: []string{"hive"},
		Catalogs: map[string]string{"hive": "connector.name=hive\n" +
			"hive.metastore=file\n" +
			"hive.metastore.catalog.dir=local:///metastore\n" +
			"fs.native-local.enabled=true\n" +
			"local.location=" + root + "\n"},
	})
	if err != nil {
		trinoserver.SkipOrFail(b, err)
	}
	b.Cleanup(srv.Stop)
	b.Logf("Trino with the Hive connector started in %s", srv.StartDuration.Round(time.Millisecond))
	// The columns as DuckDB reads the file: the timestamp has no zone.
	if err := srv.Exec(context.Background(),
		// The file metastore keeps managed tables (airports) under its
		// own directory: the schema takes the default location.
		"CREATE SCHEMA hive.bench",
		"CREATE TABLE hive.bench.flights (date TIMESTAMP(3), delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR) "+
			"WITH (external_location = 'local:///data/flights', format = 'PARQUET')",
	); err != nil {
		b.Fatalf("%v\nend of %s", err, srv.LogPath())
	}
	return srv, srv.DSN(trinoserver.AdminUser, "hive", "bench")
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// postQuery sends one query body to the server and returns the number of
// rows of its answer.
func postQuery(base string, body []byte) (int, error) {
	resp, err := http.Post(base+"/v1/models/flights/query", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct {
		Rows [][]any `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	return len(out.Rows), nil
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
