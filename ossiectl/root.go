// Package ossiectl is the authoring CLI for Ossie documents: validate,
// compile, plan (sql), run (query) and serve models locally, and report the
// document versions this build reads. cmd/ossiectl is its thin main; tests
// drive it through Do.
//
// Exit codes: 0 success; 1 problems in the input (invalid documents, bad
// queries, engine failures); 2 usage errors (unknown command or flag,
// wrong number of arguments); 3 a service could not be reached (DataHub,
// a catalog or an engine), so retrying later may succeed.
package ossiectl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/internal/buildinfo"
	"github.com/ossie-dev/ossie/server/load"
)

// Exit codes returned by Do.
const (
	ExitOK       = 0
	ExitProblems = 1
	ExitUsage    = 2
	// ExitUnreachable: a remote service (DataHub, a catalog, an engine)
	// did not answer; nothing was written.
	ExitUnreachable = 3
)

// exitError ends a command with a code. Message (when not empty) is printed
// to stderr by Do; commands that already reported their problems leave it
// empty.
type exitError struct {
	code    int
	message string
}

func (e *exitError) Error() string { return e.message }

func failf(format string, args ...any) error {
	return &exitError{code: ExitProblems, message: fmt.Sprintf(format, args...)}
}

// failed ends with exit 1 after the command printed its own report.
var failed = &exitError{code: ExitProblems}

func usagef(format string, args ...any) error {
	return &exitError{code: ExitUsage, message: fmt.Sprintf(format, args...)}
}

// env carries the streams of one Do call, so commands never touch os.Std*.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	gov            governanceFlags // --governance, --role, --attr (governance.go)
}

// Do runs ossiectl with args (without the program name) and returns the
// exit code. It keeps no global state, so tests may call it repeatedly.
func Do(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := e.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	// Usage errors point at the help of the command that refused them.
	help := "Run 'ossiectl --help' for usage."
	if cmd != nil && cmd != root {
		help = "Run '" + cmd.CommandPath() + " --help' for usage and examples."
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.message != "" {
			fmt.Fprintln(stderr, "ossiectl: "+xe.message)
		}
		if xe.code == ExitUsage {
			fmt.Fprintln(stderr, help)
		}
		return xe.code
	}
	// Anything else comes from cobra itself: unknown command or flag.
	fmt.Fprintln(stderr, "ossiectl: "+err.Error())
	fmt.Fprintln(stderr, help)
	return ExitUsage
}

func (e *env) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ossiectl",
		Short: "Validate, compile, plan, query and serve Ossie semantic models",
		Long: "ossiectl works with Ossie (Apache Ossie, formerly OSI) semantic model documents:\n" +
			"it validates them, compiles them into versioned artifacts, plans metric queries\n" +
			"into SQL, runs them on DuckDB, PostgreSQL or Trino and serves the semantic HTTP API\n" +
			"locally; list shows a model's (or a server's) models, metrics and dimensions; init, import dbt,\n" +
			"enrich, migrate, diff and manifest author documents (docs/authoring.md, docs/dbt.md).\n" +
			"completion bash|zsh|fish|powershell prints a shell completion script.\n" +
			"\n" +
			"Exit status, for every command:\n" +
			"  0  done\n" +
			"  1  problems found (invalid document, bad query, engine error, a change needing a human,\n" +
			"     diff --fail-on matched, credentials refused)\n" +
			"  2  usage (unknown command or flag, missing argument, bad flag value)\n" +
			"  3  a service could not be reached (engine, catalog, DataHub); nothing was written,\n" +
			"     retrying later may succeed",
		Example: "  ossiectl validate model.yaml\n" +
			"  ossiectl query model.yaml --load orders=orders.parquet --metrics revenue --dimensions orders.date:month\n" +
			"  ossiectl init --from engine --engine duckdb --duckdb shop.duckdb -o model.yaml\n" +
			"  ossiectl <command> --help",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			_ = cmd.Help()
			return &exitError{code: ExitUsage}
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef("%v", err) })
	// --version prints what `ossiectl version` prints.
	root.Version = BinaryVersion()
	root.SetVersionTemplate(buildinfo.Report("ossiectl", BinaryVersion()))
	root.AddCommand(e.validateCmd(), e.compileCmd(), e.sqlCmd(), e.queryCmd(), e.serveCmd(), e.mcpCmd(), e.versionCmd())
	root.AddCommand(e.enrichCmd(), e.migrateCmd(), e.diffCmd(), e.manifestCmd())
	root.AddCommand(e.initCmd(), e.importCmd(), e.listCmd())
	return root
}

// Argument validators that report usage errors (exit 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q", cmd.CommandPath(), args[0])
	}
	return nil
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s needs at least %d FILE argument(s)", cmd.CommandPath(), n)
		}
		return nil
	}
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes exactly %d FILE argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// readInput reads a file, or stdin when name is "-".
func (e *env) readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.stdin)
	}
	return readNamedFile(name)
}

// displayName is how a file is named in problem lines.
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// compileFlags adds the install defaults applied to table sources.
func compileFlags(cmd *cobra.Command, opts *compiler.CompileOptions) {
	cmd.Flags().StringVar(&opts.DefaultCatalog, "default-catalog", "", "catalog prepended to table sources that name none")
	cmd.Flags().StringVar(&opts.DefaultSchema, "default-schema", "", "schema prepended to table sources that name none")
	cmd.Flags().StringVar(&opts.StoredTimezone, "stored-timezone", "", "IANA zone of the instants in naive DateTime columns whose model, dataset and field declare none (default UTC)")
}

// loadFile reads and compiles one document; on problems it prints them
// (errors and warnings) to stderr and returns failed.
func (e *env) loadFile(name string, opts compiler.CompileOptions) ([]*compiler.Artifact, error) {
	if err := compiler.CheckTimezone(opts.StoredTimezone); err != nil {
		return nil, usagef("--stored-timezone %v", err)
	}
	data, err := e.readInput(name)
	if err != nil {
		return nil, failf("%v", err)
	}
	in, probs := readOssieInput(data) // plain document or SemanticModel manifest
	if err := e.gov.attach(e, in); err != nil {
		return nil, err
	}
	var arts []*compiler.Artifact
	if in != nil {
		arts, probs = in.load(opts)
	}
	if probs.HasErrors() {
		e.gov.printProblems(e.stderr, displayName(name), probs)
		return nil, failed
	}
	e.gov.printProblems(e.stderr, displayName(name), probs) // warnings
	return arts, nil
}

func printProblems(w io.Writer, file string, probs compiler.Problems) {
	sorted := append(compiler.Problems(nil), probs...)
	sorted.Sort()
	for _, p := range sorted {
		fmt.Fprintln(w, load.FormatProblem(file, p))
	}
}

// pickModel selects the model named name, or the only model when name is
// empty.
func pickModel(arts []*compiler.Artifact, name string) (*compiler.Artifact, error) {
	var names []string
	for _, a := range arts {
		if a.Name == name || (name == "" && len(arts) == 1) {
			return a, nil
		}
		names = append(names, a.Name)
	}
	if name == "" {
		return nil, usagef("the file defines %d models (%s): choose one with --model", len(arts), strings.Join(names, ", "))
	}
	return nil, failf("no model named %q; the file defines: %s", name, strings.Join(names, ", "))
}
