package ossiectl

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/httpapi"
	"github.com/ossie-dev/ossie/server/pgwire"
)

func (e *env) serveCmd() *cobra.Command {
	var (
		local   localServerFlags
		addr    string
		maxBody int64
		authf   auth.Flags
		pg      pgwire.Flags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the semantic HTTP API, MCP (/mcp) and the web explorer (/) for model files (as cmd/server)",
		Long: "serve compiles the model files, opens DuckDB and serves the semantic API until\n" +
			"interrupted (SIGINT/SIGTERM), then drains in-flight requests. The model and governance\n" +
			"files are watched: a change that compiles is swapped in, one that does not is logged and\n" +
			"shown in /readyz while the last good version keeps serving; SIGHUP reloads them now.\n" +
			"Without --tokens-file, --proxy-secret-file or --anonymous-role it serves ungoverned, and then\n" +
			"only on a loopback --addr unless --no-auth is given (docs/server.md).",
		Example: "  ossiectl serve --models examples/flights/model.yaml --duckdb flights.duckdb\n" +
			"  ossiectl serve --models model.yaml --governance governance.yaml --tokens-file tokens.yaml --addr :8080",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(local.models) == 0 {
				return usagef("serve needs --models FILE")
			}
			if _, err := local.check(); err != nil {
				return err
			}
			if err := authf.Check(addr); err != nil {
				return usagef("%v", err)
			}
			if err := pg.Check(&authf); err != nil {
				return usagef("%v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			a, err := authf.Open(ctx, log)
			if err != nil {
				return failf("%v", err)
			}
			srv, eng, err := local.open(ctx, e, log, server.Config{MaxBodyBytes: maxBody, Auth: a})
			if err != nil {
				return err
			}
			defer eng.Close()
			api, err := httpapi.New(srv, httpapi.Options{AnyHost: authf.AnyHost(addr)})
			if err != nil {
				return failf("%v", err)
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			waitSQL, err := pg.Start(ctx, srv, log)
			if err != nil {
				return failf("%v", err)
			}
			err = httpapi.ListenAndServe(ctx, addr, api, log)
			cancel()
			if werr := waitSQL(); err == nil {
				err = werr
			}
			if err != nil {
				return failf("%v", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	local.register(cmd)
	f.StringVar(&addr, "addr", auth.DefaultAddr, "listen address")
	authFlags := flag.NewFlagSet("auth", flag.ContinueOnError)
	authf.Register(authFlags)
	f.AddGoFlagSet(authFlags)
	pgFlags := flag.NewFlagSet("pgwire", flag.ContinueOnError)
	pg.Register(pgFlags)
	f.AddGoFlagSet(pgFlags)
	f.Int64Var(&maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "request body limit")
	return cmd
}
