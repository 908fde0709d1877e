package ossiectl

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/compiler/sqlfmt"
	"github.com/ossie-dev/ossie/internal/cli"
)

// dialects are the SQL dialects `sql --dialect` can emit.
var dialects = map[string]dialect.Dialect{
	"duckdb":     dialect.DuckDB,
	"postgres":   dialect.Postgres,
	"postgresql": dialect.Postgres,
	"trino":      dialect.Trino,
}

func dialectNames() string {
	var names []string
	for n := range dialects {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (e *env) sqlCmd() *cobra.Command {
	var (
		sel     selection
		model   string
		dialect string
		format  string
		explain bool
		compact bool
		opts    compiler.CompileOptions
	)
	cmd := &cobra.Command{
		Use:   "sql FILE",
		Short: "Plan a metric query and print the SQL it runs",
		Long: "sql plans a metric query as the server does and prints the statement, laid out one clause a\n" +
			"line with subqueries indented (only whitespace differs from the one-line statement the engine\n" +
			"is sent, so either runs the same); --compact prints that one line.",
		Example: "  ossiectl sql flights.yaml --metrics flight_count,avg_delay --dimensions origin.state,flights.departure_time:month \\\n" +
			"      --filter 'origin.state:in:CA,NY' --order-by flight_count:desc --limit 10\n" +
			"  ossiectl sql flights.yaml --metrics flight_count --dimensions origin.state --explain",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, ok := dialects[strings.ToLower(dialect)]
			if !ok {
				return usagef("--dialect %q is not one of: %s", dialect, dialectNames())
			}
			if format != "sql" && format != "json" {
				return usagef("--format must be sql or json, not %q", format)
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
			p, err := planQuery(e, art, q, d)
			if err != nil {
				return err
			}
			if !compact {
				p.SQL = sqlfmt.Format(p.SQL) // whitespace only: it runs the same
			}
			if format == "json" {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if explain {
					return enc.Encode(explainedPlan{p, p.Explain()})
				}
				return enc.Encode(p)
			}
			if explain {
				fmt.Fprint(e.stdout, p.Explain())
				return nil
			}
			fmt.Fprintln(e.stdout, p.SQL)
			return nil
		},
	}
	sel.register(cmd)
	cmd.Flags().StringVar(&model, "model", "", "model name (required when the file defines several)")
	cmd.Flags().StringVar(&dialect, "dialect", "duckdb", "SQL dialect: "+dialectNames())
	cmd.Flags().StringVarP(&format, "format", "f", "sql", "output: sql (the statement) or json (statement, columns, model version)")
	cmd.Flags().BoolVar(&compact, "compact", false, "print the statement on one line, as the engine is sent it")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the logical plan (each node with the rewrite that made it and why) instead of the SQL; with --format json, add it as \"explain\"")
	compileFlags(cmd, &opts)
	e.gov.register(cmd, true)
	cli.RegisterEnum(cmd, "dialect", "duckdb", "postgres", "trino")
	cli.RegisterEnum(cmd, "format", "sql", "json")
	return cmd
}

// explainedPlan is the JSON of `sql --explain --format json`.
type explainedPlan struct {
	*plan.Plan
	Explain string `json:"explain"`
}

func planQuery(e *env, art *compiler.Artifact, q *plan.Query, d dialect.Dialect) (*plan.Plan, error) {
	pl, err := plan.New(art)
	if err != nil {
		return nil, failf("model %q: %v", art.Name, err)
	}
	c, err := e.gov.caller()
	if err != nil {
		return nil, err
	}
	p, probs := pl.PlanFor(q, d, c)
	if probs.HasErrors() || p == nil {
		printProblems(e.stderr, "query", probs)
		return nil, failed
	}
	printProblems(e.stderr, "query", probs)
	return p, nil
}
