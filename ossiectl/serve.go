package ossiectl

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
)

func (e *env) serveCmd() *cobra.Command {
	var (
		models  []string
		dbPath  string
		loads   []string
		addr    string
		maxRows int
		timeout time.Duration
		maxBody int64
		opts    compiler.CompileOptions
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the semantic HTTP API for model files on DuckDB (as cmd/server)",
		Long: "serve compiles the model files, opens DuckDB and serves the semantic API until\n" +
			"interrupted (SIGINT/SIGTERM), then drains in-flight requests.",
		Example: "  ossiectl serve --models examples/flights/model.yaml --duckdb flights.duckdb --addr :8080",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(models) == 0 {
				return usagef("serve needs --models FILE")
			}
			tables, err := parseLoads(loads)
			if err != nil {
				return err
			}
			arts, err := server.LoadModelFiles(models, opts)
			if err != nil {
				fmt.Fprintln(e.stderr, err)
				return failed
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			eng, err := openDuckDB(ctx, dbPath, tables)
			if err != nil {
				return err
			}
			defer eng.Close()
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			srv, err := server.New(server.Config{Engine: eng, Models: arts, MaxRows: maxRows, QueryTimeout: timeout, MaxBodyBytes: maxBody, Logger: log})
			if err != nil {
				return failf("%v", err)
			}
			if err := server.ListenAndServe(ctx, addr, srv.Handler(), log); err != nil {
				return failf("%v", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&models, "models", nil, "model files (comma-separated or repeated)")
	f.StringVar(&dbPath, "duckdb", "", "DuckDB database file (default: in-memory)")
	f.StringArrayVar(&loads, "load", nil, "create `TABLE=FILE` from a Parquet/CSV file at start (repeatable)")
	f.StringVar(&addr, "addr", ":8080", "listen address")
	f.IntVar(&maxRows, "max-rows", server.DefaultMaxRows, "row cap per answer")
	f.DurationVar(&timeout, "query-timeout", server.DefaultQueryTimeout, "time limit per query")
	f.Int64Var(&maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "request body limit")
	compileFlags(cmd, &opts)
	return cmd
}
