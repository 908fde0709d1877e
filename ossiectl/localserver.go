package ossiectl

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// localServerFlags are the flags of the commands that answer for model
// files on this machine (serve, mcp): the files, the engine and the
// answer limits.
type localServerFlags struct {
	models      []string
	dbPath      string
	loads       []string
	gov         string
	maxRows     int
	timeout     time.Duration
	opts        compiler.CompileOptions
	ef          engineFlags
	auditValues bool
	rollups     bool
	limits      server.Limits
	cacheBytes  int64
	cacheTTL    time.Duration
}

func (l *localServerFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVar(&l.models, "models", nil, "model files (comma-separated or repeated); watched and reloaded when they change or on SIGHUP")
	f.StringVar(&l.dbPath, "duckdb", "", "DuckDB database file (default: in-memory)")
	f.StringArrayVar(&l.loads, "load", nil, "create `TABLE=FILE` from a Parquet/CSV file at start (repeatable)")
	f.StringVar(&l.gov, "governance", "", "governance file (roles, row filters, masks; docs/governance.md) applied to every model file; watched too")
	f.IntVar(&l.maxRows, "max-rows", server.DefaultMaxRows, "row cap per answer")
	f.DurationVar(&l.timeout, "query-timeout", server.DefaultQueryTimeout, "time limit per query")
	f.BoolVar(&l.rollups, "rollups", false, "build the models' rollups in the engine's schema ossie_rollups at start and on reload, refresh them on their schedule, and answer from them when the planner proves it the same")
	f.Int64Var(&l.cacheBytes, "cache-bytes", server.DefaultCacheBytes, "result cache size bound in bytes (identical questions answered from memory, as bin/server); 0 turns the cache off")
	f.DurationVar(&l.cacheTTL, "cache-ttl", server.DefaultCacheTTL, "how long a cached answer is served")
	f.BoolVar(&l.auditValues, "audit-filter-values", false, "write filter values into the per-query audit log line (off: only the filtered members)")
	limitFlags := flag.NewFlagSet("limits", flag.ContinueOnError)
	l.limits.Register(limitFlags)
	f.AddGoFlagSet(limitFlags)
	compileFlags(cmd, &l.opts)
	l.ef.register(cmd)
	l.ef.registerResources(cmd)
}

// check refuses a wrong command line (a usage error, exit 2) before
// anything is opened or logged, and returns the --load tables.
func (l *localServerFlags) check() ([]tableLoad, error) {
	if len(l.models) == 0 {
		return nil, usagef("needs --models FILE")
	}
	if err := l.limits.Check(); err != nil {
		return nil, usagef("%v", err)
	}
	if l.cacheBytes < 0 {
		return nil, usagef("--cache-bytes must not be negative (0 turns the cache off)")
	}
	if l.cacheTTL < 0 {
		return nil, usagef("--cache-ttl must not be negative")
	}
	tables, err := parseLoads(l.loads)
	if err != nil {
		return nil, err
	}
	return tables, l.ef.check(l.dbPath, tables, l.opts)
}

// open compiles the model files (printing every problem), opens the
// engine and builds the server with cfg's other settings; the server
// reloads the files when they change and on SIGHUP until ctx is done.
// The caller closes the engine.
func (l *localServerFlags) open(ctx context.Context, e *env, log *slog.Logger, cfg server.Config) (*server.Server, engine.Engine, error) {
	tables, err := l.check()
	if err != nil {
		return nil, nil, err
	}
	files := load.ModelFiles{Paths: l.models, Governance: l.gov, Options: l.opts}
	if _, err := files.Load(ctx); err != nil {
		fmt.Fprintln(e.stderr, err)
		return nil, nil, failed
	}
	eng, err := l.ef.open(ctx, l.dbPath, tables, l.opts)
	if err != nil {
		return nil, nil, err
	}
	// Bound at load, as the server does (load.BindModels): engine types
	// for fields without datatype, OSS5008 for a contradicted time zone kind.
	files.Engine = eng
	arts, err := files.Load(ctx)
	if err != nil {
		eng.Close()
		fmt.Fprintln(e.stderr, err)
		return nil, nil, failed
	}
	cfg.Engine, cfg.Models, cfg.MaxRows, cfg.QueryTimeout, cfg.Logger = eng, arts, l.maxRows, l.timeout, log
	cfg.Audit = &server.AuditOptions{FilterValues: l.auditValues}
	cfg.Limits = l.limits
	cfg.CacheBytes, cfg.CacheTTL = l.cacheBytes, l.cacheTTL
	srv, err := server.New(cfg)
	if err != nil {
		eng.Close()
		return nil, nil, failf("%v", err)
	}
	srv.WatchModelFiles(ctx, files, 0).ReloadOn(ctx, syscall.SIGHUP)
	if l.rollups {
		if err := srv.RunRollups(ctx); err != nil {
			eng.Close()
			return nil, nil, failf("%v", err)
		}
	}
	return srv, eng, nil
}
