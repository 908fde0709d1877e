package ossiectl

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// engineFlags select the engine of query and serve (engine/connect):
// DuckDB by default (--duckdb, --load), or PostgreSQL or Trino with the
// connection string in a variable or a file, never in a flag value.
// allowRead is --allow-read: the host files DuckDB may read besides its
// database (engine.Sandboxer).
type engineFlags struct {
	engine, dsnEnv, dsnFile, passwordFile string
	allowRead                             []string
	// resources are --engine-memory-limit and --engine-threads, nil for
	// a command without them (a one-shot query keeps DuckDB's defaults).
	resources *duckdb.Resources
}

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.engine, "engine", connect.DuckDB, "SQL engine: "+strings.Join(connect.Engines, ", "))
	fl.StringVar(&f.dsnEnv, "dsn-env", "", "postgres, trino: name of the environment variable holding the connection string")
	fl.StringVar(&f.dsnFile, "dsn-file", "", "postgres, trino: file holding the connection string (e.g. a mounted Secret key)")
	fl.StringVar(&f.passwordFile, "password-file", "", "postgres: file whose content replaces the connection string's password")
	f.registerAllowRead(cmd)
}

func (f *engineFlags) registerAllowRead(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.allowRead, "allow-read", nil, connect.AllowReadUsage)
}

// registerResources adds --engine-memory-limit and --engine-threads, for
// the commands that keep DuckDB running (serve, mcp).
func (f *engineFlags) registerResources(cmd *cobra.Command) {
	f.resources = &duckdb.Resources{}
	cmd.Flags().StringVar(&f.resources.MemoryLimit, "engine-memory-limit", "", connect.MemoryLimitUsage)
	cmd.Flags().IntVar(&f.resources.Threads, "engine-threads", 0, connect.ThreadsUsage)
}

// options are the connect.Options the flags select.
func (f *engineFlags) options(dbPath string, opts compiler.CompileOptions) connect.Options {
	var res duckdb.Resources
	if f.resources != nil {
		res = *f.resources
	}
	return connect.Options{Engine: f.engine, DuckDBPath: dbPath, DSNEnv: f.dsnEnv, DSNFile: f.dsnFile,
		PasswordFile: f.passwordFile, Catalog: opts.DefaultCatalog, Schema: opts.DefaultSchema, AllowRead: f.allowRead,
		Resources: res}
}

// embedded reports whether the flags select the embedded DuckDB.
func (f *engineFlags) embedded() bool {
	return (f.engine == "" || f.engine == connect.DuckDB) && f.dsnEnv == "" && f.dsnFile == ""
}

// check refuses a contradictory or incomplete engine command line (a
// usage error, exit 2) before anything is opened or logged.
func (f *engineFlags) check(dbPath string, loads []tableLoad, opts compiler.CompileOptions) error {
	if err := f.options(dbPath, opts).Check(); err != nil {
		return usagef("%v", err)
	}
	if err := checkDSNEnv(f.dsnEnv); err != nil {
		return err
	}
	if len(loads) > 0 && !f.embedded() {
		return usagef("--load needs the embedded DuckDB (--engine duckdb with --duckdb or no database)")
	}
	return nil
}

// open opens the selected engine after check. DuckDB opens dbPath, loads
// the files and is then sandboxed to --allow-read (openDuckDB); the
// networked engines take no --duckdb, --load or --allow-read and use the
// compile defaults as their session catalog and schema.
func (f *engineFlags) open(ctx context.Context, dbPath string, loads []tableLoad, opts compiler.CompileOptions) (engine.Engine, error) {
	if err := f.check(dbPath, loads, opts); err != nil {
		return nil, err
	}
	if f.embedded() {
		return openDuckDB(ctx, dbPath, loads, f.allowRead, f.resources)
	}
	if err := preflight(ctx, f.engine, f.dsnEnv, f.dsnFile); err != nil {
		return nil, err
	}
	eng, err := connect.Open(ctx, f.options(dbPath, opts))
	if err != nil {
		return nil, engineOpenError(err, "check "+dsnWhere(f.dsnEnv, f.dsnFile))
	}
	return eng, nil
}

// checkDSNEnv refuses --dsn-env naming an unset or empty variable before
// anything is opened: that is a mistake in the command line (exit 2), not
// a problem of the engine.
func checkDSNEnv(name string) error {
	if name == "" {
		return nil
	}
	if v, ok := os.LookupEnv(name); !ok || strings.TrimSpace(v) == "" {
		return usagef("--dsn-env %s: the environment variable %s is not set (or empty); export it with the connection string (export %s='postgres://user@host:5432/db'), or pass --dsn-file FILE", name, name, name)
	}
	return nil
}

// dsnWhere names where the connection string came from, for next steps.
func dsnWhere(env, file string) string {
	if env != "" {
		return "the DSN in $" + env
	}
	return "the DSN in " + file
}

// inMemory reports whether open gives an empty in-memory DuckDB (no
// --duckdb file and no connection string).
func (f *engineFlags) inMemory(dbPath string) bool {
	return (f.engine == "" || f.engine == connect.DuckDB) && dbPath == "" && f.dsnEnv == "" && f.dsnFile == ""
}
