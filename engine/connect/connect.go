// Package connect opens the engine a command was told to use (--engine
// duckdb|postgres|trino), so cmd/operator, cmd/server and ossiectl take
// the same flags the same way. Credentials come only from an environment
// variable or a file (a mounted Secret key); there is deliberately no
// option holding the connection string itself, since flags show in
// process listings. No error quotes a connection string or a password.
package connect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/engine/trino"
)

// Engine names accepted by Options.Engine.
const (
	DuckDB   = "duckdb"
	Postgres = "postgres"
	Trino    = "trino"
)

// Engines lists the accepted engine names, the default first.
var Engines = []string{DuckDB, Postgres, Trino}

// Options say which engine to open and where its connection string is.
type Options struct {
	// Engine is duckdb (default when empty), postgres or trino.
	Engine string
	// DuckDBPath is the DuckDB database file ("" or ":memory:": a private
	// in-memory database). DuckDB only; exclusive with DSNEnv/DSNFile,
	// which may name the path instead.
	DuckDBPath string
	// DSNEnv names an environment variable, DSNFile a file, holding the
	// connection string: a libpq URL or key=value list for postgres, a
	// trino-go-client DSN (https://user:password@host:443?catalog=c&schema=s)
	// for trino, a database file path for duckdb. postgres and trino need
	// exactly one of them.
	DSNEnv, DSNFile string
	// PasswordFile (postgres only) replaces the DSN's password with the
	// file's content.
	PasswordFile string
	// Catalog and Schema (trino only) are the session defaults for table
	// names with fewer than three parts; each, when set, overrides the
	// DSN's catalog/schema parameter. Commands pass their
	// --default-catalog/--default-schema, the defaults models compile with.
	Catalog, Schema string
	// AllowRead (duckdb only) lists the local files, directories and
	// globs the in-process engine may read besides its database
	// (engine.Sandboxer): Open sandboxes DuckDB with it before it returns,
	// so no statement a model sends can read the host's other files.
	// Commands fill it from --allow-read (AllowReadUsage), never from a
	// model.
	AllowRead []string
	// Resources (duckdb only) bound the in-process engine's memory and
	// threads; Open applies them before the sandbox locks the
	// configuration. The zero value is duckdb.DefaultMemoryLimit and
	// DuckDB's default threads. A networked engine is bounded by its own
	// configuration (PostgreSQL's work_mem, Trino's query.max-memory), so
	// setting them for one is a usage error.
	Resources duckdb.Resources
}

// MemoryLimitUsage and ThreadsUsage are the help texts of the
// --engine-memory-limit and --engine-threads flags of every command that
// embeds DuckDB.
const (
	MemoryLimitUsage = "duckdb: the engine's memory_limit (`SIZE` such as 512MiB or 2GB; default " + duckdb.DefaultMemoryLimit + "): the buffer pool of cached table blocks, hash tables and sorts stays under it, spilling to disk beyond it; PostgreSQL and Trino are bounded by their own configuration"
	ThreadsUsage     = "duckdb: the engine's worker threads per query (default 0: one per CPU core)"
)

// AllowReadUsage is the help text of the --allow-read flag every command
// that opens DuckDB takes.
const AllowReadUsage = "duckdb: let the engine read this local `PATH` besides its database (repeatable): a file, a directory (every file below it) or a glob (exactly the files it matches at start); every other host file is refused (OSS5014)"

// Check reports a usage error: an unknown engine, a missing or doubled
// DSN source, or an option the engine does not take. Open calls it.
func (o Options) Check() error {
	name := o.name()
	if !slices.Contains(Engines, name) {
		return fmt.Errorf("--engine=%q: want one of %s", o.Engine, strings.Join(Engines, ", "))
	}
	if o.DSNEnv != "" && o.DSNFile != "" {
		return errors.New("give at most one of --dsn-env and --dsn-file")
	}
	hasDSN := o.DSNEnv != "" || o.DSNFile != ""
	switch name {
	case DuckDB:
		if hasDSN && o.DuckDBPath != "" {
			return errors.New("--duckdb and --dsn-env/--dsn-file both name the DuckDB database; give one")
		}
	default:
		if !hasDSN {
			return fmt.Errorf("--engine=%s needs --dsn-env or --dsn-file (the connection string is never a flag value)", name)
		}
		if o.DuckDBPath != "" {
			return fmt.Errorf("--duckdb does not apply to --engine=%s", name)
		}
	}
	if len(o.AllowRead) > 0 && name != DuckDB {
		return fmt.Errorf("--allow-read applies to --engine=duckdb only (a networked engine reads what its login may)")
	}
	if o.PasswordFile != "" && name != Postgres {
		return fmt.Errorf("--password-file applies to --engine=postgres only")
	}
	if o.Resources != (duckdb.Resources{}) && name != DuckDB {
		return fmt.Errorf("--engine-memory-limit and --engine-threads apply to --engine=duckdb only (a networked engine's memory is its own configuration)")
	}
	return o.Resources.Check()
}

func (o Options) name() string {
	if o.Engine == "" {
		return DuckDB
	}
	return o.Engine
}

// Open checks o and opens the engine, DuckDB bounded by o.Resources and
// sandboxed to o.AllowRead.
// A configuration error is a plain
// error; an engine that cannot be reached or opened is an *engine.Error
// wrapping engine.ErrUnavailable (from the engine packages).
func Open(ctx context.Context, o Options) (engine.Engine, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	switch o.name() {
	case Postgres:
		return postgres.Open(ctx, postgres.Config{DSNEnv: o.DSNEnv, DSNFile: o.DSNFile, PasswordFile: o.PasswordFile})
	case Trino:
		return trino.Open(ctx, trino.Config{DSNEnv: o.DSNEnv, DSNFile: o.DSNFile, Catalog: o.Catalog, Schema: o.Schema})
	}
	path := o.DuckDBPath
	if o.DSNEnv != "" || o.DSNFile != "" {
		var err error
		if path, err = engine.ResolveDSN("", o.DSNEnv, o.DSNFile); err != nil {
			return nil, fmt.Errorf("duckdb: %w", err)
		}
	}
	eng, err := duckdb.Open(path)
	if err != nil {
		return nil, err
	}
	if err := eng.Bound(ctx, o.Resources); err != nil {
		eng.Close()
		return nil, err
	}
	if err := eng.Sandbox(ctx, o.AllowRead); err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}
