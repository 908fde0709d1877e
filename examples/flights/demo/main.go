// Command demo answers business questions about US flights with the Ossie
// flights model (examples/flights/model.yaml) on an embedded DuckDB.
//
// It loads the flights and airports files into an in-memory DuckDB (or the
// file given by --db), compiles the model, and asks each question through
// server.Answer: the code path behind POST /v1/models/{model}/query, so the
// numbers printed are the numbers the HTTP API returns. It starts nothing
// long-running and exits when the answers are printed.
//
// Usage (from the repository root; `make demo` fetches the 3 M-row file
// first and passes its directory):
//
//	go run ./examples/flights/demo [--data DIR] [--model FILE] [--db FILE] [--sql]
//
// DIR must hold airports.csv and flights-3m.parquet (full data) or
// flights-sample.parquet (the committed 30,000-row sample).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the demo's command-line flags.
type options struct {
	dataDir   string
	modelPath string
	dbPath    string
	showSQL   bool
}

// run is main without the process: it returns the exit code (0 answers
// printed, 1 failure, 2 bad flags).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.dataDir, "data", "", "directory with airports.csv and flights-3m.parquet or flights-sample.parquet\n(default: examples/flights/data/full when it exists, else examples/flights/data)")
	fs.StringVar(&o.modelPath, "model", filepath.Join("examples", "flights", "model.yaml"), "Ossie model file")
	fs.StringVar(&o.dbPath, "db", "", "DuckDB database file to load the data into (default: in memory)")
	fs.BoolVar(&o.showSQL, "sql", false, "also print the SQL planned for each question")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := demo(ctx, o, stdout); err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return 1
	}
	return 0
}

// dataFiles locates the flights and airports files in dir, preferring the
// full 3 M-row file over the sample.
func dataFiles(dir string) (flights, airports string, err error) {
	if dir == "" {
		dir = filepath.Join("examples", "flights", "data")
		if fileExists(filepath.Join(dir, "full", "flights-3m.parquet")) && fileExists(filepath.Join(dir, "full", "airports.csv")) {
			dir = filepath.Join(dir, "full")
		}
	}
	airports = filepath.Join(dir, "airports.csv")
	if !fileExists(airports) {
		return "", "", fmt.Errorf("no airports.csv in %s (run from the repository root or pass --data)", dir)
	}
	for _, name := range []string{"flights-3m.parquet", "flights-sample.parquet"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p, airports, nil
		}
	}
	return "", "", fmt.Errorf("no flights-3m.parquet or flights-sample.parquet in %s", dir)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func since(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return d.Round(10 * time.Millisecond).String()
}
