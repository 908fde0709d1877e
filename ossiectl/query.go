package ossiectl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
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
	)
	cmd := &cobra.Command{
		Use:   "query FILE",
		Short: "Run a metric query on DuckDB and print the answer",
		Long: "query plans and runs a metric query through the same code path as the semantic server.\n" +
			"--duckdb opens a database file (default: in-memory); --load TABLE=FILE first creates a table\n" +
			"from a Parquet or CSV file. A result cut by --max-rows is reported as truncated.",
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
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			eng, err := openDuckDB(ctx, dbPath, tables)
			if err != nil {
				return err
			}
			defer eng.Close()
			srv, err := server.New(server.Config{Engine: eng, Models: arts, MaxRows: maxRows, QueryTimeout: timeout})
			if err != nil {
				return failf("%v", err)
			}
			resp, err := srv.Answer(ctx, art.Name, q)
			if err != nil {
				return e.reportAnswerError(err)
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
	cmd.Flags().StringArrayVar(&loads, "load", nil, "create `TABLE=FILE` from a Parquet/CSV file before querying (repeatable)")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, json or csv")
	cmd.Flags().IntVar(&maxRows, "max-rows", server.DefaultMaxRows, "row cap; more rows are reported as truncated")
	cmd.Flags().DurationVar(&timeout, "timeout", server.DefaultQueryTimeout, "query time limit")
	compileFlags(cmd, &opts)
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

// openDuckDB opens path (in-memory when "") and loads the files. A path
// that does not exist is refused unless there is something to load into
// it, so a mistyped --duckdb never silently answers from an empty database.
func openDuckDB(ctx context.Context, path string, loads []tableLoad) (*duckdb.Engine, error) {
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
	for _, l := range loads {
		if err := eng.LoadFile(ctx, l.table, l.file); err != nil {
			eng.Close()
			return nil, failf("--load %s=%s: %v", l.table, l.file, err)
		}
	}
	return eng, nil
}

// reportAnswerError prints a server problem the way validate prints
// document problems.
func (e *env) reportAnswerError(err error) error {
	var se *server.Error
	if errors.As(err, &se) {
		if len(se.Problems) > 0 {
			printProblems(e.stderr, "query", se.Problems)
			return failed
		}
		return failf("%s %s: %s", se.Code, se.Title, se.Detail)
	}
	return failf("%v", err)
}

func (e *env) warnTruncated(maxRows int) {
	fmt.Fprintf(e.stderr, "ossiectl: warning: the answer was truncated at %d rows (--max-rows)\n", maxRows)
}
