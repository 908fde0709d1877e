package ossiectl

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/mcpapi"
)

func (e *env) mcpCmd() *cobra.Command {
	var (
		local    localServerFlags
		roles    []string
		attrs    []string
		agentMax int
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the model files to an AI agent over MCP on stdin/stdout",
		Long: "mcp runs a Model Context Protocol server on stdin/stdout for desktop agents: tools\n" +
			"list_models, describe_model, query (structured, never SQL) and explain. With --role it\n" +
			"answers as a caller holding those roles (--attr for row filters), exactly as the HTTP API\n" +
			"answers a token of those roles; without --role every member is visible. Logs go to stderr.\n" +
			"The same tools are served over HTTP at /mcp by serve and the server.",
		Example: "  ossiectl mcp --models examples/flights/model.yaml --duckdb flights.duckdb\n" +
			"  ossiectl mcp --models model.yaml --governance governance.yaml --role analyst --attr region=EU",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g := governanceFlags{roles: roles, attrs: attrs}
			c, err := g.caller()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			srv, eng, err := local.open(ctx, e, log, server.Config{})
			if err != nil {
				return err
			}
			defer eng.Close()
			opts := mcpapi.Options{MaxRows: agentMax}
			if c != nil {
				opts.Identity = &auth.Identity{Name: "mcp", Roles: c.Roles, Attributes: c.Attributes, Method: "local"}
			}
			d := newDrain()
			t := &mcp.IOTransport{Reader: d.reader(e.stdinCloser()), Writer: d.writer(nopWriteCloser{e.stdout})}
			if err := mcpapi.New(srv, opts).Run(ctx, t); err != nil && ctx.Err() == nil {
				return failf("mcp: %v", err)
			}
			return nil
		},
	}
	local.register(cmd)
	cmd.Flags().StringSliceVar(&roles, "role", nil, "answer as a caller holding these roles (comma-separated or repeated)")
	cmd.Flags().StringArrayVar(&attrs, "attr", nil, "caller attribute `NAME=VALUE` for row filters (repeatable; needs --role)")
	cmd.Flags().IntVar(&agentMax, "agent-max-rows", mcpapi.DefaultMaxRows, "rows of one query answer returned to the agent (more are cut and reported as truncated)")
	return cmd
}

// nopWriteCloser keeps the transport from closing the command's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func (e *env) stdinCloser() io.ReadCloser {
	if rc, ok := e.stdin.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(e.stdin)
}
