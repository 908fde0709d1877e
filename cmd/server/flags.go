package main

import (
	"flag"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/pgwire"
)

// options are the command line of cmd/server. Every flag is defined in
// register and every usage rule in check, so a new flag touches these two
// functions only.
type options struct {
	models, namespaces              listFlag
	kube, createDB, debugErrors     bool
	auditValues, rollups            bool
	kubeconfig                      string
	maxArtifact, maxBody            int64
	cacheBytes                      int64
	cacheTTL                        time.Duration
	engine, dbPath, dsnEnv, dsnFile string
	passwordFile, catalog, schema   string
	storedTimezone                  string
	allowRead                       []string
	resources                       duckdb.Resources
	governance, addr                string
	maxRows                         int
	timeout                         time.Duration
	auth                            auth.Flags
	pg                              pgwire.Flags
	limits                          server.Limits
	version                         bool
}

func (o *options) register(f *pflag.FlagSet) {
	f.Var(&o.models, "models", "local mode: model files (repeatable or comma-separated)")
	f.BoolVar(&o.kube, "kube", false, "Kubernetes mode: serve the artifact ConfigMaps published by the operator")
	f.BoolVar(&o.rollups, "rollups", false, "local mode: build the models' rollups in the engine's schema ossie_rollups at start and on reload, refresh them on their schedule, and answer from them when the planner proves it the same (duckdb, postgres)")
	f.Var(&o.namespaces, "namespaces", "Kubernetes mode: namespaces to watch (repeatable or comma-separated; default all)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "Kubernetes mode: kubeconfig file (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	f.Int64Var(&o.maxArtifact, "max-artifact-bytes", 64<<20, "Kubernetes mode: limit of one artifact bundle, uncompressed, in bytes")
	f.StringVar(&o.engine, "engine", "duckdb", "SQL engine: duckdb, postgres or trino")
	f.StringVar(&o.dbPath, "duckdb", "", "DuckDB database file; it must exist unless --create-duckdb (default: in-memory)")
	f.BoolVar(&o.createDB, "create-duckdb", false, "create the --duckdb file when it does not exist (an empty database)")
	f.StringVar(&o.dsnEnv, "dsn-env", "", "postgres, trino: name of the environment variable holding the connection string")
	f.StringVar(&o.dsnFile, "dsn-file", "", "postgres, trino: file holding the connection string (e.g. a mounted Secret key)")
	f.StringArrayVar(&o.allowRead, "allow-read", nil, connect.AllowReadUsage)
	f.StringVar(&o.resources.MemoryLimit, "engine-memory-limit", "", connect.MemoryLimitUsage)
	f.IntVar(&o.resources.Threads, "engine-threads", 0, connect.ThreadsUsage)
	f.StringVar(&o.passwordFile, "password-file", "", "postgres: file whose content (trailing newline removed) replaces the connection string's password, if any (e.g. a mounted Secret key)")
	f.StringVar(&o.addr, "addr", auth.DefaultAddr, "listen address (host:port; :PORT listens on every interface and needs authentication or --no-auth)")
	f.IntVar(&o.maxRows, "max-rows", server.DefaultMaxRows, "row cap per answer")
	f.DurationVar(&o.timeout, "query-timeout", server.DefaultQueryTimeout, "time limit per query")
	f.Int64Var(&o.maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "request body limit in bytes")
	f.Int64Var(&o.cacheBytes, "cache-bytes", server.DefaultCacheBytes, "result cache size bound in bytes (identical questions answered from memory); 0 turns the cache off")
	f.DurationVar(&o.cacheTTL, "cache-ttl", server.DefaultCacheTTL, "how long a cached answer is served")
	f.StringVar(&o.catalog, "default-catalog", "", "catalog prepended to table sources that name none (local mode); trino: the session catalog")
	f.StringVar(&o.schema, "default-schema", "", "schema prepended to table sources that name none (local mode); trino: the session schema")
	f.StringVar(&o.storedTimezone, "stored-timezone", "", "local mode: IANA zone of the instants in naive DateTime columns whose model, dataset and field declare none (default UTC; in Kubernetes mode the operator's flag applies)")
	f.StringVar(&o.governance, "governance", "", "local mode: governance file (roles, row filters, masks; docs/governance.md) applied to every model file")
	f.BoolVar(&o.auditValues, "audit-filter-values", false, "write filter values into the per-query audit log line (off: only the filtered members)")
	f.BoolVar(&o.debugErrors, "debug-errors", false, "local mode without authentication only: add the engine's own message (planned SQL, physical names) to engine problem details; never for shared servers")
	authFlags := flag.NewFlagSet("auth", flag.ContinueOnError)
	o.auth.Register(authFlags)
	f.AddGoFlagSet(authFlags)
	pgFlags := flag.NewFlagSet("pgwire", flag.ContinueOnError)
	o.pg.Register(pgFlags)
	f.AddGoFlagSet(pgFlags)
	limitFlags := flag.NewFlagSet("limits", flag.ContinueOnError)
	o.limits.Register(limitFlags)
	f.AddGoFlagSet(limitFlags)
	f.BoolVar(&o.version, "version", false, "print the version, the Ossie document versions read and the artifact format, and exit")
}

// engineOptions are the engine flags for engine/connect.
func (o *options) engineOptions() connect.Options {
	return connect.Options{Engine: o.engine, DuckDBPath: o.dbPath, DSNEnv: o.dsnEnv, DSNFile: o.dsnFile,
		PasswordFile: o.passwordFile, Catalog: o.catalog, Schema: o.schema, AllowRead: o.allowRead, Resources: o.resources}
}

// check returns the usage rule the flags break, or "".
func (o *options) check() string {
	switch {
	case o.kube && (len(o.models) > 0 || o.governance != ""):
		return "--models and --governance (local mode) and --kube (Kubernetes mode) are exclusive"
	case !o.kube && len(o.models) == 0:
		return "--models FILE (local mode) or --kube (Kubernetes mode) is required"
	case o.kube && o.rollups:
		return "--rollups is for local mode; with --kube the operator builds the rollups"
	case !o.kube && (len(o.namespaces) > 0 || o.kubeconfig != ""):
		return "--namespaces and --kubeconfig need --kube"
	case o.debugErrors && (o.kube || o.auth.Configured()):
		return "--debug-errors is for ungoverned local mode only: not with --kube or authentication flags"
	case o.createDB && o.dbPath == "":
		return "--create-duckdb needs --duckdb FILE"
	case o.kube && o.storedTimezone != "":
		return "--stored-timezone is for local mode; with --kube the operator's --stored-timezone compiles the artifacts"
	}
	if err := compiler.CheckTimezone(o.storedTimezone); err != nil {
		return "--stored-timezone: " + err.Error()
	}
	if err := o.engineOptions().Check(); err != nil {
		// Never a DSN flag: it would show the password in ps and logs.
		return err.Error()
	}
	if err := o.auth.Check(o.addr); err != nil {
		return err.Error()
	}
	if err := o.pg.Check(&o.auth); err != nil {
		return err.Error()
	}
	if err := o.limits.Check(); err != nil {
		return err.Error()
	}
	return ""
}

// listFlag collects a flag given several times and/or comma-separated,
// spaces around items trimmed.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Type() string { return "strings" }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}
