package ossiectl

import (
	"context"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/bindcheck"
)

// liveEngine holds validate's connection flags. With --engine and a
// connection (--duckdb, --dsn-env or --dsn-file) validate binds every
// model to that engine, as the operator does before it publishes.
type liveEngine struct {
	dbPath  string
	loads   []string
	ef      engineFlags
	timeout time.Duration
}

func (l *liveEngine) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&l.dbPath, "duckdb", "", "with --engine duckdb: bind the models to this DuckDB database file")
	fl.StringArrayVar(&l.loads, "load", nil, "with --engine duckdb: create `TABLE=FILE` in an in-memory DuckDB and bind to it (repeatable)")
	fl.StringVar(&l.ef.dsnEnv, "dsn-env", "", "with --engine postgres|trino: bind to the engine whose connection string is in this environment variable")
	fl.StringVar(&l.ef.dsnFile, "dsn-file", "", "with --engine postgres|trino: bind to the engine whose connection string is in this file")
	fl.StringVar(&l.ef.passwordFile, "password-file", "", "postgres: file whose content replaces the connection string's password")
	l.ef.registerAllowRead(cmd)
	fl.DurationVar(&l.timeout, "bind-timeout", 30*time.Second, "time limit of each look-up on the live engine")
}

// open returns the live engine, or nil when no connection was given.
func (l *liveEngine) open(target string, opts compiler.CompileOptions) (engine.Engine, func(), error) {
	none := func() {}
	if l.dbPath == "" && len(l.loads) == 0 && l.ef.dsnEnv == "" && l.ef.dsnFile == "" {
		return nil, none, nil
	}
	if target == "" {
		return nil, none, usagef("--duckdb, --load, --dsn-env and --dsn-file bind to a live engine: say which with --engine")
	}
	tables, err := parseLoads(l.loads)
	if err != nil {
		return nil, none, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	l.ef.engine = target
	eng, err := l.ef.open(ctx, l.dbPath, tables, opts)
	if err != nil {
		return nil, none, err
	}
	return timedEngine{eng, l.timeout}, func() { eng.Close() }, nil
}

// timedEngine carries the bind timeout to bindProblems.
type timedEngine struct {
	engine.Engine
	timeout time.Duration
}

// bindProblems binds arts to eng: missing tables and columns are OSS5001
// (drift), datatypes that disagree with the stored timestamp kind OSS5008,
// an engine that does not answer one OSS5001 naming the cause. It also
// returns arts with the engine's types applied to the fields that declare
// none (bindcheck.Result.Resolve), nil when the engine did not answer.
func bindProblems(eng engine.Engine, parsed *compiler.Parsed, arts []*compiler.Artifact) (compiler.Problems, []*compiler.Artifact) {
	timeout := 30 * time.Second
	if t, ok := eng.(timedEngine); ok {
		timeout = t.timeout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res := bindcheck.Check(ctx, eng, arts, timeout)
	probs := res.Problems
	if res.Unavailable != nil {
		probs = append(probs, compiler.Problem{Code: compiler.CodeEngine, Severity: compiler.SeverityError,
			Message: "the engine did not answer, so the bindings were not all checked (not drift): " + res.Unavailable.Error()})
	}
	for i := range probs {
		pos := parsed.Locate(probs[i].Path)
		probs[i].Line, probs[i].Column = pos.Line, pos.Column
	}
	if res.Unavailable != nil {
		return probs, nil
	}
	return probs, res.Resolve(arts)
}
