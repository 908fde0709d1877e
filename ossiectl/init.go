package ossiectl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ossie-dev/ossie/catalog"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/connect"
)

// initFlags are the options of `ossiectl init`.
type initFlags struct {
	from, output, name string
	force, verbose     bool
	tables             []string
	catalog            string
	timeout            time.Duration
	// glue
	databases                            []string
	catalogID, region, profile, endpoint string
	// engine
	engineKind, duckdbFile, dsnEnv, dsnFile, passwordFile string
	schemas                                               []string
	allowRead                                             []string
}

const initExample = `  # every table of two Glue databases, in the engine catalog "awsdatacatalog"
  ossiectl init --from glue --database sales,crm --catalog awsdatacatalog -o model.yaml

  # only some tables; region/profile/endpoint from the AWS configuration chain
  AWS_PROFILE=analytics ossiectl init --from glue --database sales --tables 'fact_*,dim_*'

  # from an engine: keys and foreign keys of PostgreSQL become primary_key and relationships
  ossiectl init --from engine --engine postgres --dsn-env PG_DSN --schema shop -o shop.yaml
  ossiectl init --from engine --engine duckdb --duckdb shop.duckdb
  ossiectl init --from engine --engine trino --dsn-file /run/secrets/trino-dsn --catalog iceberg --schema sales`

func (e *env) initCmd() *cobra.Command {
	var f initFlags
	cmd := &cobra.Command{
		Use:   "init --from glue|engine [flags]",
		Short: "Draft an Ossie document from AWS Glue or from a query engine's catalog",
		Long: "init reads table metadata and writes a draft Ossie document (YAML) for a human to\n" +
			"review and commit: one dataset per table (source catalog.schema.table), one field per\n" +
			"column with its datatype (date/time types become time dimensions; nested and binary\n" +
			"types are Opaque with a note), comments as descriptions. Names that are not plain\n" +
			"identifiers become snake_case fields whose expression quotes the exact column name.\n" +
			"\n" +
			"--from glue reads the AWS Glue Data Catalog (GetDatabases/GetTables); region, profile,\n" +
			"credentials and endpoint come from the standard AWS configuration chain, --region,\n" +
			"--profile and --endpoint override it. Glue declares no keys: primary_key and\n" +
			"relationships are left for you to add.\n" +
			"--from engine reads a DuckDB file, a PostgreSQL database or a Trino catalog (e.g. an\n" +
			"Iceberg catalog served by Polaris); PostgreSQL and DuckDB primary, unique and foreign\n" +
			"keys become primary_key, unique_keys and relationships. Connection strings come from\n" +
			"an environment variable or a file, never from a flag value.\n" +
			"\n" +
			"The document is checked with the same code as `ossiectl validate` before it is\n" +
			"written; what you must add next is printed to stderr. Patterns are globs (*, ?, [..]);\n" +
			"a --tables pattern with a dot matches schema.table.\n" +
			"Exit status: 0 written, 1 problems (no AWS credentials found, access denied, nothing\n" +
			"matched: the message says what to set or fix), 2 usage, 3 the catalog or engine cannot be\n" +
			"reached (a connection is given " + dialTimeout.String() + " to open, separately from --timeout).",
		Example: initExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.runInit(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "where to read tables: glue or engine (required)")
	fl.StringVarP(&f.output, "output", "o", "-", "file to write; - for standard output")
	fl.BoolVar(&f.force, "force", false, "replace --output when it exists")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "glue: show the AWS SDK's own log lines (credential chain, retries) on stderr")
	fl.StringVar(&f.name, "name", "", "semantic model name (default: the one schema/database read, else the database file or catalog name)")
	fl.StringSliceVar(&f.tables, "tables", nil, "table name patterns, comma-separated (default: all)")
	fl.StringVar(&f.catalog, "catalog", "", "catalog name as the query engine sees it: first part of every source (glue: e.g. awsdatacatalog; trino: the catalog to read, default the DSN's)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "give up reading the catalog after this long")
	fl.StringSliceVar(&f.databases, "database", nil, "glue: database name patterns, comma-separated (default: all)")
	fl.StringVar(&f.catalogID, "catalog-id", "", "glue: Data Catalog id (AWS account) to read (default: your account's)")
	fl.StringVar(&f.region, "region", "", "glue: AWS region (default: AWS_REGION or the profile's)")
	fl.StringVar(&f.profile, "profile", "", "glue: AWS shared-config profile (default: AWS_PROFILE or default)")
	fl.StringVar(&f.endpoint, "endpoint", "", "glue: Glue endpoint URL (default: AWS_ENDPOINT_URL_GLUE or the region's)")
	fl.StringVar(&f.engineKind, "engine", "", "engine: duckdb, postgres or trino")
	fl.StringVar(&f.duckdbFile, "duckdb", "", "engine duckdb: database file (opened read-only)")
	fl.StringVar(&f.dsnEnv, "dsn-env", "", "engine postgres/trino: environment variable holding the DSN")
	fl.StringVar(&f.dsnFile, "dsn-file", "", "engine postgres/trino: file holding the DSN (e.g. a mounted Secret)")
	fl.StringVar(&f.passwordFile, "password-file", "", "engine postgres: file whose content replaces the DSN's password")
	fl.StringArrayVar(&f.allowRead, "allow-read", nil, connect.AllowReadUsage)
	fl.StringSliceVar(&f.schemas, "schema", nil, "engine: schema name patterns, comma-separated (default: all but system schemas)")
	return cmd
}

func (e *env) runInit(ctx context.Context, f initFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	if f.output != "-" && !f.force {
		if _, err := os.Stat(f.output); err == nil {
			return usagef("%s exists; pass --force to replace it, or choose another --output", f.output)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()

	var (
		src *initSource
		err error
	)
	if f.from == "glue" {
		src, err = e.readGlue(ctx, f)
	} else {
		src, err = e.readEngine(ctx, f)
	}
	if err != nil {
		return initFailure(err)
	}
	name := f.name
	if name == "" {
		name = catalog.DefaultModelName(src.tables, src.fallbackName)
	}
	doc, rep := catalog.Draft(src.tables, catalog.Options{ModelName: name, TypeSystem: src.typeSystem})
	out, err := catalog.Render(doc, []string{
		"Drafted by `ossiectl init --from " + f.from + "` from " + src.origin + ".",
		rep.ReviewLine(),
	})
	if err != nil {
		return failf("cannot write the draft as YAML: %v", err)
	}
	// The same check as `ossiectl validate`: a draft that does not pass
	// is a bug here, never something to hand to the author.
	if _, probs := compiler.Load(out, compiler.CompileOptions{}); probs.HasErrors() {
		printProblems(e.stderr, "<draft>", probs)
		return failf("the drafted document does not validate (a bug in ossiectl init; please report it with the problems above)")
	}
	dest := "standard output"
	if f.output == "-" {
		if _, err := e.stdout.Write(out); err != nil {
			return failf("%v", err)
		}
	} else {
		if err := writeAtomic(f.output, out); err != nil {
			return failf("%v; check the directory exists and is writable", err)
		}
		dest = f.output
	}
	fmt.Fprintf(e.stderr, "ossiectl: drafted model %q from %s: %d dataset(s), %d field(s), %d relationship(s), written to %s\n",
		doc.SemanticModel[0].Name, src.origin, rep.Datasets, rep.Fields, rep.Relationships, dest)
	if rep.Renamed > 0 {
		fmt.Fprintf(e.stderr, "  %d name(s) were not plain identifiers: their fields are snake_case, the label keeps the original and the expression quotes it exactly\n", rep.Renamed)
	}
	if rep.Metrics == 0 {
		fmt.Fprintln(e.stderr, "ossiectl: warning: the draft has no metrics, so it cannot answer any query yet (every query asks for at least one metric); step "+
			fmt.Sprint(len(rep.NextSteps()))+" below says how to add one")
	}
	fmt.Fprintln(e.stderr, "Next steps:")
	for i, s := range rep.NextSteps() {
		fmt.Fprintf(e.stderr, "  %d. %s\n", i+1, s)
	}
	return nil
}

// check refuses flag combinations that cannot work, before any I/O.
func (f initFlags) check() error {
	glueOnly := map[string]bool{"--database": len(f.databases) > 0, "--catalog-id": f.catalogID != "", "--region": f.region != "", "--profile": f.profile != "", "--endpoint": f.endpoint != ""}
	engineOnly := map[string]bool{"--engine": f.engineKind != "", "--duckdb": f.duckdbFile != "", "--dsn-env": f.dsnEnv != "", "--dsn-file": f.dsnFile != "", "--password-file": f.passwordFile != "", "--schema": len(f.schemas) > 0}
	misplaced := func(flags map[string]bool, from string) error {
		for _, name := range slices.Sorted(maps.Keys(flags)) {
			if flags[name] {
				return usagef("%s does not apply to --from %s", name, from)
			}
		}
		return nil
	}
	switch f.from {
	case "glue":
		if err := misplaced(engineOnly, "glue"); err != nil {
			return err
		}
	case "engine":
		if err := misplaced(glueOnly, "engine"); err != nil {
			return err
		}
		switch f.engineKind {
		case catalog.KindDuckDB:
			if f.duckdbFile == "" || f.dsnEnv != "" || f.dsnFile != "" {
				return usagef("--engine duckdb needs --duckdb FILE (and no --dsn-env/--dsn-file)")
			}
		case catalog.KindPostgres, catalog.KindTrino:
			if f.duckdbFile != "" || (f.dsnEnv == "") == (f.dsnFile == "") {
				return usagef("--engine %s needs exactly one of --dsn-env VAR and --dsn-file FILE", f.engineKind)
			}
			if err := checkDSNEnv(f.dsnEnv); err != nil {
				return err
			}
		case "":
			return usagef("--from engine needs --engine duckdb, postgres or trino")
		default:
			return usagef("--engine must be duckdb, postgres or trino, not %q", f.engineKind)
		}
	case "":
		return usagef("init needs --from glue or --from engine")
	default:
		return usagef("--from must be glue or engine, not %q", f.from)
	}
	for _, list := range [][]string{f.tables, f.databases, f.schemas} {
		if err := catalog.ValidPatterns(list); err != nil {
			return usagef("%v", err)
		}
	}
	if f.timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	return nil
}

// initFailure maps a catalog error to its exit code.
func initFailure(err error) error {
	var ce *catalog.Error
	if errors.As(err, &ce) && ce.Kind == catalog.Unreachable {
		return &exitError{code: ExitUnreachable, message: err.Error()}
	}
	var xe *exitError
	if errors.As(err, &xe) {
		return xe
	}
	return failf("%v", err)
}

// initSource is what a reader found.
type initSource struct {
	tables       []catalog.Table
	typeSystem   string
	origin       string // for messages and the document header
	fallbackName string // model name when the tables span several schemas
}

// progress returns a callback that shows a one-line counter on stderr when
// it is a terminal, and a func that ends that line; both are no-ops
// otherwise, so logs and pipes stay clean.
func (e *env) progress() (func(what string, n int), func()) {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func(string, int) {}, func() {}
	}
	shown := false
	return func(what string, n int) {
			shown = true
			fmt.Fprintf(f, "\r\033[Kreading %s: %d tables", what, n)
		}, func() {
			if shown {
				fmt.Fprint(f, "\r\033[K")
			}
		}
}

func joinNames(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}
