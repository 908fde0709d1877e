package ossiectl

import (
	"context"
	"flag"
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
		ef      engineFlags
		gov     string
		auth    server.AuthFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the semantic HTTP API for model files on DuckDB (as cmd/server)",
		Long: "serve compiles the model files, opens DuckDB and serves the semantic API until\n" +
			"interrupted (SIGINT/SIGTERM), then drains in-flight requests. Without --tokens-file,\n" +
			"--proxy-secret-file or --anonymous-role it serves ungoverned, and then only on a\n" +
			"loopback --addr unless --no-auth is given (docs/server.md).",
		Example: "  ossiectl serve --models examples/flights/model.yaml --duckdb flights.duckdb\n" +
			"  ossiectl serve --models model.yaml --governance governance.yaml --tokens-file tokens.yaml --addr :8080",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(models) == 0 {
				return usagef("serve needs --models FILE")
			}
			if err := auth.Check(addr); err != nil {
				return usagef("%v", err)
			}
			tables, err := parseLoads(loads)
			if err != nil {
				return err
			}
			arts, err := server.LoadGovernedModelFiles(models, gov, opts)
			if err != nil {
				fmt.Fprintln(e.stderr, err)
				return failed
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			eng, err := ef.open(ctx, dbPath, tables, opts)
			if err != nil {
				return err
			}
			defer eng.Close()
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			a, err := auth.Open(ctx, log)
			if err != nil {
				return failf("%v", err)
			}
			srv, err := server.New(server.Config{Engine: eng, Models: arts, MaxRows: maxRows, QueryTimeout: timeout, MaxBodyBytes: maxBody, Logger: log, Auth: a})
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
	f.StringVar(&addr, "addr", server.DefaultAddr, "listen address")
	f.StringVar(&gov, "governance", "", "governance file (roles, row filters, masks; docs/governance.md) applied to every model file")
	authFlags := flag.NewFlagSet("auth", flag.ContinueOnError)
	auth.Register(authFlags)
	f.AddGoFlagSet(authFlags)
	f.IntVar(&maxRows, "max-rows", server.DefaultMaxRows, "row cap per answer")
	f.DurationVar(&timeout, "query-timeout", server.DefaultQueryTimeout, "time limit per query")
	f.Int64Var(&maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "request body limit")
	compileFlags(cmd, &opts)
	ef.register(cmd)
	return cmd
}
