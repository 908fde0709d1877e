// Command server serves the Ossie semantic HTTP API until SIGTERM or
// SIGINT, then drains in-flight requests. Models come from one of:
//
// Local mode: model files compiled at start, watched and swapped in when
// they change (SIGHUP reloads them at once).
//
//	server --models=examples/flights/model.yaml --duckdb=flights.duckdb
//
// Kubernetes mode: the artifact ConfigMaps the operator publishes, watched
// and hot-swapped while serving (a refused new version leaves the last good
// one serving). The API server connection is --kubeconfig, else in-cluster,
// else $KUBECONFIG or ~/.kube/config.
//
//	server --kube --namespaces=team-a,team-b --duckdb=/data/warehouse.duckdb --tokens-file=/var/run/secrets/ossie/tokens.yaml --addr=:8080
//
// Authentication (docs/server.md): --tokens-file, --proxy-secret-file and
// --anonymous-role; without any of them the server listens only on a
// loopback --addr (the default, auth.DefaultAddr) unless --no-auth says
// otherwise on purpose. Flags, help and exit codes follow internal/cli.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/internal/buildinfo"
	"github.com/ossie-dev/ossie/internal/cli"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/httpapi"
	"github.com/ossie-dev/ossie/server/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// run parses args and serves until ctx is done. Exit codes: 0 clean stop
// (or --help, --version), 1 start-up or serving failure, 2 bad usage.
func run(ctx context.Context, args []string) int {
	return runTo(ctx, args, os.Stdout, os.Stderr)
}

// runTo is run writing help and the version to stdout, usage and
// start-up errors and the JSON log to stderr.
func runTo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Serve the Ossie semantic HTTP API",
		Long: "server answers metric queries over HTTP (docs/server.md) until SIGTERM or SIGINT,\n" +
			"then drains in-flight requests. Models come from model files (local mode, --models)\n" +
			"or from the artifact ConfigMaps the operator publishes (Kubernetes mode, --kube),\n" +
			"hot-swapped while serving. Without --tokens-file, --proxy-secret-file or\n" +
			"--anonymous-role it serves ungoverned, and then only on a loopback --addr unless\n" +
			"--no-auth says otherwise on purpose. Engine credentials come from --dsn-env or\n" +
			"--dsn-file, never from a flag value.\n" +
			"\n" +
			"Exit status:\n" +
			"  0  stopped cleanly (or --help, --version)\n" +
			"  1  start-up or serving failure (invalid model, engine or API server unreachable)\n" +
			"  2  usage (unknown flag, bad value, missing or conflicting flags)",
		Example: "  server --models=examples/flights/model.yaml --duckdb=flights.duckdb\n" +
			"  server --kube --namespaces=analytics --engine=postgres --dsn-file=/var/run/secrets/ossie/dsn --default-schema=public\n" +
			"  server --kube --engine=postgres --dsn-env=PG_DSN --tokens-file=/var/run/secrets/ossie/tokens.yaml --addr=:8080\n" +
			"  source <(server completion bash)   # shell completion (also zsh, fish, powershell)",
		Args: cli.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.version {
				fmt.Fprint(stdout, buildinfo.Report("server", buildinfo.String()))
				return nil
			}
			if msg := o.check(); msg != "" {
				return cli.Usagef("%s", msg)
			}
			if code := serve(ctx, &o, stderr); code != 0 {
				return cli.Failed
			}
			return nil
		},
	}
	o.register(cmd.Flags())
	cli.RegisterEnum(cmd, "engine", "duckdb", "postgres", "trino")
	_ = cmd.MarkFlagFilename("models", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("governance", "yaml", "yml", "json")
	return cli.Run(cmd, args, stdout, stderr)
}

// serve runs the server the checked options describe; it returns 0 on a
// clean stop and 1 on a failure it has logged.
func serve(ctx context.Context, o *options, stderr io.Writer) int {
	log := slog.New(slog.NewJSONHandler(stderr, nil))

	cfg := server.Config{MaxRows: o.maxRows, QueryTimeout: o.timeout, MaxBodyBytes: o.maxBody, Logger: log, DebugErrors: o.debugErrors,
		CacheBytes: o.cacheBytes, CacheTTL: o.cacheTTL, Limits: o.limits, Audit: &server.AuditOptions{FilterValues: o.auditValues}}
	files := load.ModelFiles{Paths: o.models, Governance: o.governance, Options: compiler.CompileOptions{DefaultCatalog: o.catalog, DefaultSchema: o.schema, StoredTimezone: o.storedTimezone}}
	if !o.kube {
		// Compile first: a model's problems are reported even when the
		// engine cannot be opened.
		if _, err := files.Load(ctx); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if err := checkDuckDBFile(o.dbPath, o.createDB); err != nil {
		fmt.Fprintln(stderr, "server: "+err.Error())
		return 1
	}
	// Not cancelled with ctx: a start whose ctx is already done still
	// opens (and sandboxes) the engine, then stops cleanly.
	eng, err := connect.Open(context.WithoutCancel(ctx), o.engineOptions())
	if err != nil {
		log.Error("cannot open the engine", "engine", o.engine, "error", err)
		return 1
	}
	defer eng.Close()
	if !o.kube {
		// Bound at load: fields without datatype take the engine's type,
		// and a declared time zone kind the engine contradicts (OSS5008)
		// refuses to start instead of answering shifted (BindModels).
		files.Engine = eng
		arts, err := files.Load(context.WithoutCancel(ctx)) // bounded by the bind timeout
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		cfg.Models = arts
	}
	cfg.Engine = eng
	cfg.Registry = metricsRegistry(eng)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Auth, err = o.auth.Open(ctx, log); err != nil {
		log.Error("cannot configure authentication", "error", err)
		return 1
	}
	if o.kube {
		restCfg, err := server.KubeRESTConfig(o.kubeconfig)
		if err != nil {
			log.Error("cannot configure the Kubernetes client", "error", err)
			return 1
		}
		cs, err := kubernetes.NewForConfig(restCfg)
		if err != nil {
			log.Error("cannot create the Kubernetes client", "error", err)
			return 1
		}
		cfg.Store = server.NewStore(log)
		w, err := server.WatchConfigMaps(ctx, cs, cfg.Store, server.KubeOptions{Namespaces: o.namespaces, MaxBundleBytes: o.maxArtifact, Logger: log})
		if err != nil {
			log.Error("cannot watch ConfigMaps", "error", err)
			return 1
		}
		// Informers stop with ctx; wait for them after serving ends.
		defer w.Wait()
		defer cancel()
		cfg.Synced = w.Synced
		log.Info("watching artifact ConfigMaps", "namespaces", o.namespaces.String(), "host", restCfg.Host)
	}
	srv, err := server.New(cfg)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	if !o.kube {
		// Edits of the model or governance files swap in while serving;
		// SIGHUP reloads now instead of stopping the server.
		srv.WatchModelFiles(ctx, files, 0).ReloadOn(ctx, syscall.SIGHUP)
		if o.rollups {
			if err := srv.RunRollups(ctx); err != nil {
				log.Error("cannot build rollups", "error", err)
				return 1
			}
		}
	}
	api, err := httpapi.New(srv, httpapi.Options{AnyHost: o.auth.AnyHost(o.addr)})
	if err != nil {
		log.Error("cannot serve HTTP", "error", err)
		return 1
	}
	waitSQL, err := o.pg.Start(ctx, srv, log)
	if err != nil {
		log.Error("cannot serve SQL", "error", err)
		return 1
	}
	code := 0
	if err := httpapi.ListenAndServe(ctx, o.addr, api, log); err != nil {
		log.Error("server stopped", "error", err)
		code = 1
	}
	cancel() // the SQL endpoint stops with the HTTP server
	if err := waitSQL(); err != nil {
		log.Error("SQL endpoint stopped", "error", err)
		code = 1
	}
	return code
}

// checkDuckDBFile refuses a --duckdb path that does not exist: DuckDB
// would create an empty database there, every query would then fail as
// drift while /readyz said ready, and a typo would go unnoticed. create
// (--create-duckdb) lets DuckDB create it on purpose.
func checkDuckDBFile(path string, create bool) error {
	if path == "" || path == ":memory:" || create {
		return nil
	}
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--duckdb %s: no such database file; create it first (for the flights example: go run ./examples/flights/demo --db %s), fix the path, or pass --create-duckdb to start with an empty database", path, path)
	}
	if err != nil {
		return fmt.Errorf("--duckdb %s: %w", path, err)
	}
	return nil
}
