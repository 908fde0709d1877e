package ossiectl

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/problem"
)

func (e *env) queryCmd() *cobra.Command {
	var (
		sel     selection
		model   string
		dbPath  string
		loads   []string
		format  string
		maxRows int
		timeout time.Duration
		opts    compiler.CompileOptions
		ef      engineFlags
		rollups bool
		explain bool
	)
	cmd := &cobra.Command{
		Use:   "query FILE",
		Short: "Run a metric query (on DuckDB unless --engine says otherwise) and print the answer",
		Long: "query plans and runs a metric query through the same code path as the semantic server.\n" +
			"--duckdb opens a database file (default: in-memory); --load TABLE=FILE first creates a table\n" +
			"from a Parquet, CSV or JSON file (format from the extension). Column types come from the file;\n" +
			"CSV types are guessed from its rows, so a CSV with a header and no rows loads every column\n" +
			"as VARCHAR (filters and sums on them then fail): use Parquet, or a CSV with rows.\n" +
			"With --duckdb, a loaded table is added to that file and --load\n" +
			"refuses to replace a table or view the file already has. A result cut by --max-rows is\n" +
			"reported as truncated.\n" +
			"DuckDB reads its database, the --load files and the --allow-read paths only: a model\n" +
			"source reading any other file of this machine is refused (OSS5014, exit 1).\n" +
			"--engine postgres|trino runs on that engine instead, with the connection string in\n" +
			"--dsn-env or --dsn-file (never a flag value).\n" +
			"--rollups first builds every rollup the model declares in the schema ossie_rollups of the\n" +
			"engine, as the operator does, so the answer comes from a rollup whenever the planner\n" +
			"proves it the same; --explain prints the plan (which rollup answered, or why none could)\n" +
			"to stderr.",
		Example: "  ossiectl query flights.yaml --load flights=flights.parquet --load airports=airports.csv \\\n" +
			"      --metrics flight_count --dimensions origin.state --order-by flight_count:desc --limit 5",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "json" && format != "csv" {
				return usagef("--format must be table, json or csv, not %q", format)
			}
			tables, err := parseLoads(loads)
			if err != nil {
				return err
			}
			q, err := sel.build(e)
			if err != nil {
				return err
			}
			arts, err := e.loadFile(args[0], opts)
			if err != nil {
				return err
			}
			art, err := pickModel(arts, model)
			if err != nil {
				return err
			}
			c, err := e.gov.caller()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if c != nil { // answer as that caller, as the server does for a token
				ctx = auth.WithIdentity(ctx, &auth.Identity{Name: "ossiectl", Roles: c.Roles, Attributes: c.Attributes})
			}
			eng, err := ef.open(ctx, dbPath, tables, opts)
			if err != nil {
				return err
			}
			defer eng.Close()
			// Bound as the server binds at load (load.BindModels): engine
			// types for fields without datatype, OSS5008 for a declared time
			// zone kind the engine contradicts.
			if arts, err = load.BindModels(ctx, eng, arts, args[0], 0); err != nil {
				return e.reportBindError(err)
			}
			if art, err = pickModel(arts, model); err != nil {
				return err
			}
			// DebugErrors: the local user owns the engine, so an engine failure
			// shows the engine's message (never under --role, which is governed).
			var states []v1alpha1.RollupState
			if rollups {
				if states, err = buildLocalRollups(ctx, eng, art); err != nil {
					return failf("%v", err)
				}
			}
			store, err := localStore(arts, states)
			if err != nil {
				return failf("%v", err)
			}
			srv, err := server.New(server.Config{Engine: eng, Store: store, MaxRows: maxRows, QueryTimeout: timeout, DebugErrors: true})
			if err != nil {
				return failf("%v", err)
			}
			if explain {
				eq := *q
				eq.Explain = true
				// The plan as --role's caller, rules and all: the
				// user holds the model and governance files.
				pr, err := srv.PlanSQLForOwner(ctx, art.Name, &eq)
				if err != nil {
					return e.reportAnswerError(err, ef.inMemory(dbPath) && len(tables) == 0)
				}
				fmt.Fprint(e.stderr, pr.Explain)
			}
			resp, err := srv.Answer(ctx, art.Name, q)
			if err != nil {
				return e.reportAnswerError(err, ef.inMemory(dbPath) && len(tables) == 0)
			}
			if err := writeAnswer(e.stdout, format, resp); err != nil {
				return failf("writing the answer: %v", err)
			}
			if resp.Truncated && format != "table" {
				e.warnTruncated(maxRows)
			}
			return nil
		},
	}
	sel.register(cmd)
	cmd.Flags().StringVar(&model, "model", "", "model name (required when the file defines several)")
	cmd.Flags().StringVar(&dbPath, "duckdb", "", "DuckDB database file (default: in-memory)")
	cmd.Flags().StringArrayVar(&loads, "load", nil, "create `TABLE=FILE` from a Parquet/CSV/JSON file before querying (repeatable; a header-only CSV loads as VARCHAR)")
	cmd.Flags().StringVarP(&format, "format", "f", "table", "output: table, json or csv")
	cmd.Flags().IntVar(&maxRows, "max-rows", server.DefaultMaxRows, "row cap; more rows are reported as truncated")
	cmd.Flags().DurationVar(&timeout, "timeout", server.DefaultQueryTimeout, "query time limit")
	cmd.Flags().BoolVar(&rollups, "rollups", false, "build the model's rollups in the engine (schema ossie_rollups) first, so the planner may answer from them")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the logical plan to stderr (the rollup used, or each rollup's first reason not)")
	compileFlags(cmd, &opts)
	ef.register(cmd)
	e.gov.register(cmd, true)
	return cmd
}

type tableLoad struct{ table, file string }

func parseLoads(specs []string) ([]tableLoad, error) {
	var out []tableLoad
	for _, s := range specs {
		table, file, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(table) == "" || file == "" {
			return nil, usagef("--load %q: want TABLE=FILE", s)
		}
		out = append(out, tableLoad{strings.TrimSpace(table), file})
	}
	return out, nil
}

// openDuckDB opens path (in-memory when "") and loads the files, then
// sandboxes the engine to allow (--allow-read; engine.Sandboxer): the
// model file may come from someone else (CI runs query and validate on
// contributors' models), so its SQL reads the loaded tables, the
// database's relations and the files the user named, nothing else of the
// host. A path that does not exist is refused unless there is something
// to load into it, so a mistyped --duckdb never silently answers from an
// empty database. res (nil: DuckDB's defaults) bounds its memory and
// threads, for the commands that keep it running.
func openDuckDB(ctx context.Context, path string, loads []tableLoad, allow []string, res *duckdb.Resources) (*duckdb.Engine, error) {
	if path != "" && len(loads) == 0 {
		file, _, _ := strings.Cut(path, "?")
		if _, err := os.Stat(file); err != nil {
			return nil, failf("--duckdb %s: %v (omit --duckdb for an in-memory database)", path, err)
		}
	}
	eng, err := duckdb.Open(path)
	if err != nil {
		return nil, failf("%v", err)
	}
	if path != "" {
		if err := refuseReplace(ctx, eng, path, loads); err != nil {
			eng.Close()
			return nil, err
		}
	}
	for _, l := range loads {
		if err := eng.LoadFile(ctx, l.table, l.file); err != nil {
			eng.Close()
			return nil, loadError(l, err)
		}
	}
	// --load files are named by the user, so the model may read them too.
	allow = slices.Clip(allow)
	for _, l := range loads {
		allow = append(allow, l.file)
	}
	if res != nil {
		if err := eng.Bound(ctx, *res); err != nil {
			eng.Close()
			return nil, failf("%v", err)
		}
	}
	if err := eng.Sandbox(ctx, allow); err != nil {
		eng.Close()
		return nil, usagef("--allow-read: %v", err)
	}
	return eng, nil
}

// loadError reports a --load that failed as an OSS5001 problem line naming
// the table, the file and the next step for the cause (engine/duckdb
// LoadFile classifies it).
func loadError(l tableLoad, err error) error {
	next := "check that it is a valid Parquet, CSV or JSON file (the format comes from the extension)"
	switch {
	case errors.Is(err, engine.ErrNotFound):
		next = "check the path: a relative FILE is read from the current directory"
	case errors.Is(err, engine.ErrPermissionDenied):
		next = "make the file readable by this user"
	}
	return failf("error %s: --load %s=%s: %v; %s", compiler.CodeEngine, l.table, l.file, err, next)
}

// refuseReplace stops --load from replacing a table or view the database
// file already holds: LoadFile runs CREATE OR REPLACE TABLE, which inside
// a user's file would silently destroy real data. New tables are added to
// the file (that is what --duckdb FILE --load asks for).
func refuseReplace(ctx context.Context, eng *duckdb.Engine, path string, loads []tableLoad) error {
	for _, l := range loads {
		var kind string
		err := eng.DB().QueryRowContext(ctx,
			"SELECT table_type FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?", l.table).Scan(&kind)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return failf("--load %s: cannot inspect --duckdb %s: %v", l.table, path, err)
		}
		what := "table"
		if strings.Contains(strings.ToUpper(kind), "VIEW") {
			what = "view"
		}
		return failf("--load %s=%s: --duckdb %s already has a %s %q and --load never replaces it; "+
			"query that %s without --load, load under another name (and point the model's source at it), or omit --duckdb to load into an in-memory database",
			l.table, l.file, path, what, l.table, what)
	}
	return nil
}

// reportAnswerError prints a server problem the way validate prints
// document problems.
func (e *env) reportAnswerError(err error, inMemory bool) error {
	var se *problem.Error
	if errors.As(err, &se) {
		if len(se.Problems) > 0 {
			printProblems(e.stderr, "query", se.Problems)
			return failed
		}
		// One shape for every engine problem, as problem lines are
		// printed: "error OSS5001: engine unavailable: <detail>".
		msg := fmt.Sprintf("error %s: %s: %s", se.Code, strings.ToLower(se.Title), se.Detail)
		switch {
		case errors.Is(err, postgres.ErrAuthFailed):
			// Unavailable too, but the server answered: the next step is
			// the password, not the server. The engine's message names the
			// user and holds no SQL, so it is shown in place of the
			// generic detail.
			return &exitError{code: ExitUnreachable, message: fmt.Sprintf("error %s: %s; fix the credentials (--password-file, --dsn-file or --dsn-env), then retry", se.Code, se.EngineMessage)}
		case errors.Is(err, engine.ErrUnavailable):
			return &exitError{code: ExitUnreachable, message: msg + "; check that the engine is running and reachable (and the connection string), then retry"}
		case se.Code == compiler.CodeEngine && inMemory && missingRelation(se.Detail):
			return failf("%s; the in-memory database is empty: load the model's tables with --load TABLE=FILE (Parquet/CSV), or open a database file with --duckdb FILE", msg)
		case se.Code == compiler.CodeSandboxed:
			return failf("%s; if you trust the model with that file, name it (or its directory or a glob) with --allow-read", msg)
		case se.Code == compiler.CodeEngine && missingRelation(se.Detail):
			return failf("%s; the model's source names a table the database does not have: check the dataset's source (and --default-catalog/--default-schema)", msg)
		}
		return failf("%s", msg)
	}
	return failf("%v", err)
}

// reportBindError reports a model that did not bind (load.BindModels):
// its problems (exit 1), or an engine that did not answer, with the same
// next step as a query it did not answer.
func (e *env) reportBindError(err error) error {
	var le *load.Error
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(e.stderr, err)
		return failed
	case errors.Is(err, postgres.ErrAuthFailed):
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("error %s: %v; fix the credentials (--password-file, --dsn-file or --dsn-env), then retry", compiler.CodeEngine, err)}
	case errors.Is(err, engine.ErrUnavailable):
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("error %s: %v; check that the engine is running and reachable (and the connection string), then retry", compiler.CodeEngine, err)}
	}
	return failf("error %s: %v", compiler.CodeEngine, err)
}

// missingRelation reports whether an engine message says a table or view
// does not exist (DuckDB: "Table with name x does not exist"; PostgreSQL:
// "relation x does not exist"; Trino: "Table x does not exist").
func missingRelation(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "does not exist") && (strings.Contains(m, "table") || strings.Contains(m, "relation"))
}

func (e *env) warnTruncated(maxRows int) {
	fmt.Fprintf(e.stderr, "ossiectl: warning: the answer was truncated at %d rows (--max-rows)\n", maxRows)
}
