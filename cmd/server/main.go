// Command server serves the Ossie semantic HTTP API until SIGTERM or
// SIGINT, then drains in-flight requests. Models come from one of:
//
// Local mode: model files compiled at start.
//
//	server --models examples/flights/model.yaml --duckdb flights.duckdb --addr :8080
//
// Kubernetes mode: the artifact ConfigMaps the operator publishes, watched
// and hot-swapped while serving (a refused new version leaves the last good
// one serving). The API server connection is --kubeconfig, else in-cluster,
// else $KUBECONFIG or ~/.kube/config.
//
//	server --kube --namespaces team-a,team-b --duckdb /data/warehouse.duckdb --tokens-file /var/run/secrets/ossie/tokens.yaml
//
// Authentication (docs/server.md): --tokens-file, --proxy-secret-file and
// --anonymous-role; without any of them the server listens only on a
// loopback --addr unless --no-auth says otherwise on purpose.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/client-go/kubernetes"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/internal/buildinfo"
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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// run parses args and serves until ctx is done. Exit codes: 0 clean stop
// (or --help, --version), 1 start-up or serving failure, 2 bad usage.
func run(ctx context.Context, args []string) int {
	return runTo(ctx, args, os.Stderr)
}

// runTo is run writing usage and start-up errors to stderr.
func runTo(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var models, namespaces listFlag
	fs.Var(&models, "models", "local mode: model files (repeatable or comma-separated)")
	kube := fs.Bool("kube", false, "Kubernetes mode: serve the artifact ConfigMaps published by the operator")
	fs.Var(&namespaces, "namespaces", "Kubernetes mode: namespaces to watch (repeatable or comma-separated; default all)")
	kubeconfig := fs.String("kubeconfig", "", "Kubernetes mode: kubeconfig file (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	maxArtifact := fs.Int64("max-artifact-bytes", 64<<20, "Kubernetes mode: limit of one artifact bundle, uncompressed, in bytes")
	engineKind := fs.String("engine", "duckdb", "SQL engine: duckdb, postgres or trino")
	dbPath := fs.String("duckdb", "", "DuckDB database file; it must exist unless --create-duckdb (default: in-memory)")
	createDB := fs.Bool("create-duckdb", false, "create the --duckdb file when it does not exist (an empty database)")
	dsnEnv := fs.String("dsn-env", "", "postgres, trino: name of the environment variable holding the connection string")
	dsnFile := fs.String("dsn-file", "", "postgres, trino: file holding the connection string (e.g. a mounted Secret key)")
	passwordFile := fs.String("password-file", "", "postgres: file whose content (trailing newline removed) replaces the connection string's password, if any (e.g. a mounted Secret key)")
	addr := fs.String("addr", ":8080", "listen address")
	maxRows := fs.Int("max-rows", server.DefaultMaxRows, "row cap per answer")
	timeout := fs.Duration("query-timeout", server.DefaultQueryTimeout, "time limit per query")
	maxBody := fs.Int64("max-body-bytes", server.DefaultMaxBodyBytes, "request body limit in bytes")
	catalog := fs.String("default-catalog", "", "catalog prepended to table sources that name none (local mode); trino: the session catalog")
	schema := fs.String("default-schema", "", "schema prepended to table sources that name none (local mode); trino: the session schema")
	governance := fs.String("governance", "", "local mode: governance file (roles, row filters, masks; docs/governance.md) applied to every model file")
	debugErrors := fs.Bool("debug-errors", false, "local mode without authentication only: add the engine's own message (planned SQL, physical names) to engine problem details; never for shared servers")
	var auth server.AuthFlags
	auth.Register(fs)
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Println("server", buildinfo.String())
		return 0
	}
	engineOpts := connect.Options{Engine: *engineKind, DuckDBPath: *dbPath, DSNEnv: *dsnEnv, DSNFile: *dsnFile,
		PasswordFile: *passwordFile, Catalog: *catalog, Schema: *schema}
	var usage string
	switch {
	case fs.NArg() > 0:
		usage = "no positional arguments are taken"
	case *kube && (len(models) > 0 || *governance != ""):
		usage = "--models and --governance (local mode) and --kube (Kubernetes mode) are exclusive"
	case !*kube && len(models) == 0:
		usage = "--models FILE (local mode) or --kube (Kubernetes mode) is required"
	case !*kube && (len(namespaces) > 0 || *kubeconfig != ""):
		usage = "--namespaces and --kubeconfig need --kube"
	case *debugErrors && (*kube || auth.Configured()):
		usage = "--debug-errors is for ungoverned local mode only: not with --kube or authentication flags"
	case *createDB && *dbPath == "":
		usage = "--create-duckdb needs --duckdb FILE"
	case engineOpts.Check() != nil:
		// Never a DSN flag: it would show the password in ps and logs.
		usage = engineOpts.Check().Error()
	default:
		if err := auth.Check(*addr); err != nil {
			usage = err.Error()
		}
	}
	if usage != "" {
		fmt.Fprintln(stderr, "server: "+usage)
		fs.Usage()
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))

	cfg := server.Config{MaxRows: *maxRows, QueryTimeout: *timeout, MaxBodyBytes: *maxBody, Logger: log, DebugErrors: *debugErrors, AnyHost: auth.AnyHost(*addr)}
	if !*kube {
		arts, err := server.LoadGovernedModelFiles(models, *governance, compiler.CompileOptions{DefaultCatalog: *catalog, DefaultSchema: *schema})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		cfg.Models = arts
	}
	if err := checkDuckDBFile(*dbPath, *createDB); err != nil {
		fmt.Fprintln(stderr, "server: "+err.Error())
		return 1
	}
	eng, err := connect.Open(ctx, engineOpts)
	if err != nil {
		log.Error("cannot open the engine", "engine", *engineKind, "error", err)
		return 1
	}
	defer eng.Close()
	if err := server.Sandbox(context.WithoutCancel(ctx), eng, cfg.Models); err != nil {
		log.Error("cannot sandbox the engine", "error", err)
		return 1
	}
	cfg.Engine = eng

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Auth, err = auth.Open(ctx, log); err != nil {
		log.Error("cannot configure authentication", "error", err)
		return 1
	}
	if *kube {
		restCfg, err := server.KubeRESTConfig(*kubeconfig)
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
		w, err := server.WatchConfigMaps(ctx, cs, cfg.Store, server.KubeOptions{Namespaces: namespaces, MaxBundleBytes: *maxArtifact, Logger: log})
		if err != nil {
			log.Error("cannot watch ConfigMaps", "error", err)
			return 1
		}
		// Informers stop with ctx; wait for them after serving ends.
		defer w.Wait()
		defer cancel()
		cfg.Synced = w.Synced
		log.Info("watching artifact ConfigMaps", "namespaces", namespaces.String(), "host", restCfg.Host)
	}
	srv, err := server.New(cfg)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	if err := server.ListenAndServe(ctx, *addr, srv.Handler(), log); err != nil {
		log.Error("server stopped", "error", err)
		return 1
	}
	return 0
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
