// Package flights_test checks the flights example end to end: the model in
// examples/flights is compiled, the real data is loaded into DuckDB, and
// every answer that server.Answer gives (the code path of the HTTP query
// endpoint) is compared with hand-written SQL on the same database.
// Benchmarks measure planning alone and the server against raw SQL.
package flights_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

var (
	modelFile = filepath.Join("..", "..", "examples", "flights", "model.yaml")
	sampleDir = filepath.Join("..", "..", "examples", "flights", "data")
	fullDir   = filepath.Join(sampleDir, "full")
)

// env is one DuckDB database holding the flights and airports tables plus
// a server over the compiled flights model.
type env struct {
	eng *duckdb.Engine
	srv *server.Server
	art *compiler.Artifact
	// flightsFile is the Parquet file that was loaded.
	flightsFile string
}

// newEnv loads dir (airports.csv plus flights-3m.parquet or
// flights-sample.parquet) into a fresh in-memory DuckDB, closed when tb ends.
func newEnv(tb testing.TB, dir string) *env {
	tb.Helper()
	ctx := context.Background()
	flightsFile := filepath.Join(dir, "flights-3m.parquet")
	if _, err := os.Stat(flightsFile); err != nil {
		flightsFile = filepath.Join(dir, "flights-sample.parquet")
	}
	eng, err := duckdb.Open("")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = eng.Close() })
	if err := eng.LoadFile(ctx, "flights", flightsFile); err != nil {
		tb.Fatal(err)
	}
	if err := eng.LoadFile(ctx, "airports", filepath.Join(dir, "airports.csv")); err != nil {
		tb.Fatal(err)
	}
	arts, err := load.Models([]string{modelFile}, compiler.CompileOptions{})
	if err != nil {
		tb.Fatalf("loading %s:\n%v", modelFile, err)
	}
	if len(arts) != 1 || arts[0].Name != "flights" {
		tb.Fatalf("want exactly the model \"flights\" in %s, got %d models", modelFile, len(arts))
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		tb.Fatal(err)
	}
	return &env{eng: eng, srv: srv, art: arts[0], flightsFile: flightsFile}
}

// answer runs q through server.Answer and returns column names and rows.
func (e *env) answer(ctx context.Context, tb testing.TB, q *plan.Query) ([]string, [][]any) {
	tb.Helper()
	res, err := e.srv.Answer(ctx, "flights", q)
	if err != nil {
		tb.Fatalf("server.Answer: %v", err)
	}
	if res.Truncated {
		tb.Fatalf("answer truncated at %d rows", res.RowCount)
	}
	cols := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = c.Name
	}
	return cols, res.Rows
}

// raw runs hand-written SQL directly on the engine.
func (e *env) raw(ctx context.Context, tb testing.TB, sql string) [][]any {
	tb.Helper()
	res, err := e.eng.Query(ctx, sql, 0)
	if err != nil {
		tb.Fatalf("hand-written SQL failed: %v\n%s", err, sql)
	}
	return res.Rows
}
