// Command server serves the Ossie semantic HTTP API in local mode: it
// compiles model files at start, opens a DuckDB database and answers
// metric queries until SIGTERM or SIGINT, then drains in-flight requests.
//
//	server --models examples/flights/flights.yaml --duckdb flights.duckdb --addr :8080
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
)

// listFlag collects a flag given several times and/or comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	var models listFlag
	fs.Var(&models, "models", "model files (repeatable or comma-separated)")
	dbPath := fs.String("duckdb", "", "DuckDB database file (default: in-memory)")
	addr := fs.String("addr", ":8080", "listen address")
	maxRows := fs.Int("max-rows", server.DefaultMaxRows, "row cap per answer")
	timeout := fs.Duration("query-timeout", server.DefaultQueryTimeout, "time limit per query")
	maxBody := fs.Int64("max-body-bytes", server.DefaultMaxBodyBytes, "request body limit in bytes")
	catalog := fs.String("default-catalog", "", "catalog prepended to table sources that name none")
	schema := fs.String("default-schema", "", "schema prepended to table sources that name none")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(models) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "server: --models FILE is required and no positional arguments are taken")
		fs.Usage()
		return 2
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))

	arts, err := server.LoadModelFiles(models, compiler.CompileOptions{DefaultCatalog: *catalog, DefaultSchema: *schema})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	eng, err := duckdb.Open(*dbPath)
	if err != nil {
		log.Error("cannot open DuckDB", "error", err)
		return 1
	}
	defer eng.Close()
	srv, err := server.New(server.Config{Engine: eng, Models: arts, MaxRows: *maxRows, QueryTimeout: *timeout, MaxBodyBytes: *maxBody, Logger: log})
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := server.ListenAndServe(ctx, *addr, srv.Handler(), log); err != nil {
		log.Error("server stopped", "error", err)
		return 1
	}
	return 0
}
