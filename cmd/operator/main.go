// Command operator runs the Ossie operator: it reconciles SemanticModel
// resources against one SQL engine and publishes their artifacts as
// ConfigMaps (docs/operator.md).
//
//	operator --engine=postgres --dsn-file=/var/run/secrets/ossie/dsn \
//	  --default-schema=public --namespaces=analytics --leader-elect
//
// The connection string is read from an environment variable (--dsn-env)
// or a file (--dsn-file, e.g. a mounted Secret); there is deliberately no
// flag taking the DSN itself, since flags show up in process listings.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/internal/buildinfo"
	"github.com/ossie-dev/ossie/operator"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

type config struct {
	engine, dsnEnv, dsnFile, passwordFile string
	opts                                  operator.Options
	resync                                time.Duration
	namespaces                            string
	leaderElect                           bool
	leaderElectionID, leaderElectionNS    string
	metricsAddr, probeAddr                string
	verbose, version                      bool
}

func parseFlags(args []string) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.StringVar(&c.engine, "engine", "duckdb", "SQL engine the models run on: duckdb, postgres or trino")
	fs.StringVar(&c.dsnEnv, "dsn-env", "", "name of the environment variable holding the engine connection string (DuckDB: database file path)")
	fs.StringVar(&c.dsnFile, "dsn-file", "", "file holding the engine connection string, e.g. a key of a mounted Secret")
	fs.StringVar(&c.passwordFile, "password-file", "", "postgres: file whose content replaces the connection string's password")
	fs.StringVar(&c.opts.Compile.DefaultCatalog, "default-catalog", "", "catalog prepended to table sources that name none (trino: also the session catalog)")
	fs.StringVar(&c.opts.Compile.DefaultSchema, "default-schema", "", "schema prepended to table sources that name none (trino: also the session schema)")
	fs.StringVar(&c.opts.ViewSchema, "view-schema", "ossie_views", "the one engine schema governed views are created in")
	fs.IntVar(&c.opts.MaxArtifactBytes, "max-artifact-bytes", operator.DefaultMaxArtifactBytes, "largest compressed artifact published in a ConfigMap, bytes (Kubernetes objects are limited to 1 MiB)")
	fs.DurationVar(&c.opts.EngineTimeout, "engine-timeout", operator.DefaultEngineTimeout, "time limit of each engine call of the drift check")
	fs.DurationVar(&c.opts.DriftRecheck, "drift-recheck", operator.DefaultDriftRecheck, "how soon a drifted model is checked again (negative: only on resync)")
	fs.IntVar(&c.opts.MaxConcurrentReconciles, "max-concurrent-reconciles", operator.DefaultMaxConcurrentReconciles, "models reconciled in parallel")
	fs.DurationVar(&c.resync, "resync", operator.DefaultResync, "period after which every model is reconciled again without a change")
	fs.StringVar(&c.namespaces, "namespaces", "", "comma-separated namespaces to watch (empty: all)")
	fs.BoolVar(&c.leaderElect, "leader-elect", false, "elect one active replica through a Lease; standbys wait")
	fs.StringVar(&c.leaderElectionID, "leader-election-id", operator.DefaultLeaderElectionID, "name of the Lease replicas compete for")
	fs.StringVar(&c.leaderElectionNS, "leader-election-namespace", "", "namespace of the Lease (default: the pod's namespace)")
	fs.StringVar(&c.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 disables it)")
	fs.StringVar(&c.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	fs.BoolVar(&c.verbose, "v", false, "debug logging")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.version {
		return c, nil
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := c.engineOptions().Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// namespaceList splits --namespaces.
func (c *config) namespaceList() []string {
	var out []string
	for _, ns := range strings.Split(c.namespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// engineOptions are the engine flags for engine/connect.
func (c *config) engineOptions() connect.Options {
	return connect.Options{Engine: c.engine, DSNEnv: c.dsnEnv, DSNFile: c.dsnFile, PasswordFile: c.passwordFile,
		Catalog: c.opts.Compile.DefaultCatalog, Schema: c.opts.Compile.DefaultSchema}
}

// openEngine builds the engine from the flags. Errors never quote the
// connection string.
func openEngine(ctx context.Context, c *config) (engine.Engine, error) {
	return connect.Open(ctx, c.engineOptions())
}

func run(args []string) int {
	c, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "operator:", err)
		return 2
	}
	if c.version {
		fmt.Println("operator", buildinfo.String())
		return 0
	}
	level := slog.LevelInfo
	if c.verbose {
		level = slog.LevelDebug
	}
	logger := logr.FromSlogHandler(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctrl.SetLogger(logger)

	ctx := ctrl.SetupSignalHandler()
	eng, err := openEngine(ctx, c)
	if err != nil {
		logger.Error(err, "cannot open the engine", "engine", c.engine)
		return 1
	}
	defer eng.Close()
	c.opts.Compile.Dialect = eng.Dialect() // a function the engine cannot compute fails validation (OSS3008)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		logger.Error(err, "scheme")
		return 1
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		logger.Error(err, "scheme")
		return 1
	}
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		logger.Error(err, "no Kubernetes configuration")
		return 1
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         operator.CacheOptions(c.namespaceList(), c.resync),
		Metrics:                       metricsserver.Options{BindAddress: c.metricsAddr},
		HealthProbeBindAddress:        c.probeAddr,
		LeaderElection:                c.leaderElect,
		LeaderElectionID:              c.leaderElectionID,
		LeaderElectionNamespace:       c.leaderElectionNS,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		logger.Error(err, "cannot create the manager")
		return 1
	}
	if _, err := operator.Setup(mgr, eng, c.opts); err != nil {
		logger.Error(err, "cannot set up the reconciler")
		return 1
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		logger.Error(err, "healthz")
		return 1
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		logger.Error(err, "readyz")
		return 1
	}
	logger.Info("starting", "engine", c.engine, "namespaces", c.namespaceList(), "resync", c.resync.String(),
		"defaultCatalog", c.opts.Compile.DefaultCatalog, "defaultSchema", c.opts.Compile.DefaultSchema,
		"documentVersions", ossie.SupportedVersions, "artifactFormat", compiler.ArtifactFormat)
	if err := mgr.Start(ctx); err != nil {
		logger.Error(err, "manager stopped")
		return 1
	}
	return 0
}
