// Command operator runs the Ossie operator: it reconciles SemanticModel
// resources against one SQL engine and publishes their artifacts as
// ConfigMaps (docs/operator.md).
//
//	operator --engine=postgres --dsn-file=/var/run/secrets/ossie/dsn \
//	  --default-schema=public --namespaces=analytics --leader-elect
//
// Metrics and probes listen on loopback unless an address is given.
// Flags, help and exit codes follow internal/cli.
//
// The connection string is read from an environment variable (--dsn-env)
// or a file (--dsn-file, e.g. a mounted Secret); there is deliberately no
// flag taking the DSN itself, since flags show up in process listings.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/internal/buildinfo"
	"github.com/ossie-dev/ossie/internal/cli"
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
	kubeconfig                            string
	viewGrants                            []string
	allowRead                             []string
	// resources bound the embedded DuckDB (its rollup builds and drift
	// checks); the networked engines refuse them (connect.Options.Check).
	resources        duckdb.Resources
	verbose, version bool
}

// register defines every flag of the operator on f; usage rules are in
// check. A new flag touches these two functions only.
func (c *config) register(f *pflag.FlagSet) {
	f.StringVar(&c.engine, "engine", "duckdb", "SQL engine the models run on: duckdb, postgres or trino")
	f.StringVar(&c.dsnEnv, "dsn-env", "", "name of the environment variable holding the engine connection string (DuckDB: database file path)")
	f.StringVar(&c.dsnFile, "dsn-file", "", "file holding the engine connection string, e.g. a key of a mounted Secret")
	f.StringVar(&c.passwordFile, "password-file", "", "postgres: file whose content replaces the connection string's password")
	f.StringArrayVar(&c.allowRead, "allow-read", nil, connect.AllowReadUsage)
	f.StringVar(&c.resources.MemoryLimit, "engine-memory-limit", "", connect.MemoryLimitUsage)
	f.IntVar(&c.resources.Threads, "engine-threads", 0, connect.ThreadsUsage)
	f.StringVar(&c.opts.Compile.DefaultCatalog, "default-catalog", "", "catalog prepended to table sources that name none (trino: also the session catalog)")
	f.StringVar(&c.opts.Compile.DefaultSchema, "default-schema", "", "schema prepended to table sources that name none (trino: also the session schema)")
	f.StringVar(&c.opts.Compile.StoredTimezone, "stored-timezone", "", "IANA zone of the instants in naive DateTime columns whose model, dataset and field declare none (default UTC)")
	f.StringVar(&c.opts.ViewSchema, "view-schema", "ossie_views", "the one engine schema governed views are created in")
	f.StringArrayVar(&c.viewGrants, "view-grant", nil, "postgres: `ROLE=LOGIN` gives the engine login (a name, no credentials) SELECT on exactly ROLE's governed views (repeatable; once set, the operator revokes every other login's SELECT on its views)")
	f.IntVar(&c.opts.MaxArtifactBytes, "max-artifact-bytes", operator.DefaultMaxArtifactBytes, "largest compressed artifact published in a ConfigMap, bytes (Kubernetes objects are limited to 1 MiB)")
	f.DurationVar(&c.opts.EngineTimeout, "engine-timeout", operator.DefaultEngineTimeout, "time limit of each engine call of the drift check")
	f.DurationVar(&c.opts.BuildTimeout, "build-timeout", operator.DefaultBuildTimeout, "time limit of one rollup build or refresh")
	f.DurationVar(&c.opts.DriftRecheck, "drift-recheck", operator.DefaultDriftRecheck, "how soon a drifted model is checked again (negative: only on resync)")
	f.IntVar(&c.opts.MaxConcurrentReconciles, "max-concurrent-reconciles", operator.DefaultMaxConcurrentReconciles, "models reconciled in parallel")
	f.DurationVar(&c.resync, "resync", operator.DefaultResync, "period after which every model is reconciled again without a change")
	f.StringVar(&c.namespaces, "namespaces", "", "comma-separated namespaces to watch (empty: all)")
	f.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	f.BoolVar(&c.leaderElect, "leader-elect", false, "elect one active replica through a Lease; standbys wait")
	f.StringVar(&c.leaderElectionID, "leader-election-id", operator.DefaultLeaderElectionID, "name of the Lease replicas compete for")
	f.StringVar(&c.leaderElectionNS, "leader-election-namespace", "", "namespace of the Lease (default: the pod's namespace)")
	f.StringVar(&c.metricsAddr, "metrics-bind-address", DefaultMetricsAddr, "address of the Prometheus metrics endpoint (0 disables it; :PORT listens on every interface)")
	f.StringVar(&c.probeAddr, "health-probe-bind-address", DefaultProbeAddr, "address of the /healthz and /readyz endpoints (:PORT listens on every interface)")
	f.BoolVarP(&c.verbose, "verbose", "v", false, "debug logging")
	f.BoolVar(&c.version, "version", false, "print the version, the Ossie document versions read and the artifact format, and exit")
	// -v and --v were the standard library's spelling of --verbose.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "v" {
			name = "verbose"
		}
		return pflag.NormalizedName(name)
	})
}

// Loopback defaults: an operator started on a laptop exposes nothing, and
// neither collides with the server's default 127.0.0.1:8080. The Helm
// chart passes :PORT for both.
const (
	DefaultMetricsAddr = "127.0.0.1:8082"
	DefaultProbeAddr   = "127.0.0.1:8081"
)

// check returns the usage error of the parsed flags, if any.
func (c *config) check() error {
	if err := compiler.CheckTimezone(c.opts.Compile.StoredTimezone); err != nil {
		return fmt.Errorf("--stored-timezone: %w", err)
	}
	if err := c.parseViewGrants(); err != nil {
		return err
	}
	return c.engineOptions().Check()
}

// parseViewGrants fills opts.ViewGrants from --view-grant ROLE=LOGIN.
// Only PostgreSQL has logins to grant to: Trino's access control is its
// own (the memory connector has no GRANT) and DuckDB has no logins.
func (c *config) parseViewGrants() error {
	if len(c.viewGrants) == 0 {
		return nil
	}
	if c.engine != "postgres" {
		return fmt.Errorf("--view-grant needs --engine postgres (%s has no logins the operator can grant views to)", c.engine)
	}
	c.opts.ViewGrants = map[string][]string{}
	for _, g := range c.viewGrants {
		role, login, ok := strings.Cut(g, "=")
		role, login = strings.TrimSpace(role), strings.TrimSpace(login)
		if !ok || role == "" || login == "" {
			return fmt.Errorf("--view-grant %q: want ROLE=LOGIN", g)
		}
		if !slices.Contains(c.opts.ViewGrants[role], login) {
			c.opts.ViewGrants[role] = append(c.opts.ViewGrants[role], login)
		}
	}
	return nil
}

// parseFlags parses and checks args into a config without running
// anything (tests); its error is what the command would print.
func parseFlags(args []string) (*config, error) {
	c := &config{}
	var out strings.Builder
	if cli.Run(command(c, func() error { return nil }), args, &out, &out) != cli.ExitOK {
		return nil, errors.New(strings.TrimSpace(out.String()))
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
		Catalog: c.opts.Compile.DefaultCatalog, Schema: c.opts.Compile.DefaultSchema, AllowRead: c.allowRead, Resources: c.resources}
}

// openEngine builds the engine from the flags. Errors never quote the
// connection string. An in-process engine (DuckDB) is sandboxed at once
// (connect.Open; engine.Sandboxer) to the --allow-read files: the
// operator only describes sources and creates views, and a SemanticModel
// author's query source must not read the operator's files (its mounted
// Secrets, the service account token) through it; a model file source
// outside --allow-read is reported as unreadable (docs/operator.md).
func openEngine(ctx context.Context, c *config) (engine.Engine, error) {
	return connect.Open(ctx, c.engineOptions())
}

// run parses args and runs the manager until SIGTERM or SIGINT. Exit
// codes: 0 clean stop (or --help, --version), 1 start-up or manager
// failure, 2 bad usage.
func run(args []string) int {
	c := &config{}
	return cli.Run(command(c, func() error {
		if manage(c) != 0 {
			return cli.Failed
		}
		return nil
	}), args, os.Stdout, os.Stderr)
}

// command is the operator's command line over c; act runs once the flags
// parsed and passed check (not for --version).
func command(c *config, act func() error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Reconcile SemanticModel resources and publish their artifacts",
		Long: "operator validates and compiles every SemanticModel it watches with the rules of\n" +
			"ossiectl, checks each table and column the model uses on one SQL engine (missing\n" +
			"ones are drift), creates the governed views, and publishes the artifact to the\n" +
			"ConfigMap ossie-<name> that the server serves (docs/operator.md). Engine\n" +
			"credentials come from --dsn-env or --dsn-file, never from a flag value. The API\n" +
			"server is --kubeconfig, else in-cluster, else $KUBECONFIG or ~/.kube/config.\n" +
			"\n" +
			"Exit status:\n" +
			"  0  stopped cleanly (or --help, --version)\n" +
			"  1  start-up or manager failure (engine or API server unreachable)\n" +
			"  2  usage (unknown flag, bad value, missing or conflicting flags)",
		Example: "  operator --engine=postgres --dsn-file=/var/run/secrets/ossie/dsn --default-schema=public --namespaces=analytics\n" +
			"  operator --engine=duckdb --dsn-env=OSSIE_DUCKDB_PATH --leader-elect --metrics-bind-address=:8080 --health-probe-bind-address=:8081\n" +
			"  source <(operator completion bash)   # shell completion (also zsh, fish, powershell)",
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if c.version {
				fmt.Fprint(cmd.OutOrStdout(), buildinfo.Report("operator", buildinfo.String()))
				return nil
			}
			if err := c.check(); err != nil {
				return cli.Usagef("%v", err)
			}
			return act()
		},
	}
	c.register(cmd.Flags())
	cli.RegisterEnum(cmd, "engine", "duckdb", "postgres", "trino")
	return cmd
}

// manage runs the manager the checked config describes; 1 on a failure
// it has logged.
func manage(c *config) int {
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
	restCfg, err := kubeConfig(c.kubeconfig)
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

// kubeConfig is the API server connection: path when given, else
// controller-runtime's lookup (in-cluster, $KUBECONFIG, ~/.kube/config).
func kubeConfig(path string) (*rest.Config, error) {
	if path != "" {
		return clientcmd.BuildConfigFromFlags("", path)
	}
	return ctrl.GetConfig()
}
