package ossiectl

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/catalog"
	"github.com/ossie-dev/ossie/catalog/dbt"
	"github.com/ossie-dev/ossie/compiler"
)

const importDbtExample = `  ossiectl import dbt ./jaffle_shop -o model.yaml --schema analytics
  ossiectl import dbt target/semantic_manifest.json --strict -o model.yaml
  ossiectl import dbt . | ossiectl validate -`

func (e *env) importCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "import dbt PATH",
		Short:   "Write an Ossie document from another semantic layer (dbt MetricFlow)",
		Example: importDbtExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("import needs a source: `ossiectl import dbt PATH`")
		},
	}
	cmd.AddCommand(e.importDbtCmd())
	return cmd
}

func (e *env) importDbtCmd() *cobra.Command {
	var opts dbt.Options
	var output string
	var force, strict bool
	cmd := &cobra.Command{
		Use:   "dbt PATH",
		Short: "Write an Ossie document from a dbt project's semantic models and metrics",
		Long: "import dbt reads the MetricFlow semantic layer of a dbt project and writes one Ossie\n" +
			"semantic model (YAML): PATH is the project directory, whose *.yml/*.yaml files are read for\n" +
			"semantic_models: and metrics: (target/, dbt_packages/, logs/ and hidden directories are\n" +
			"skipped), or a compiled semantic_manifest.json (dbt parse writes it to target/).\n" +
			"\n" +
			"Semantic models become datasets (ref('x') becomes table x, prefixed by --database and\n" +
			"--schema), entities keys, fields and many-to-one relationships, dimensions fields, measures\n" +
			"and metrics Ossie metrics with their types; docs/dbt.md has the mapping table.\n" +
			"\n" +
			"Everything that cannot be mapped is listed on stderr as `dbt path: why` and left out; the\n" +
			"document written always validates (it is checked with the same code as `ossiectl validate`).\n" +
			"With --strict, anything unmapped is a failure and nothing is written.\n" +
			"\n" +
			"Exit status: 0 written (unmapped items, if any, listed on stderr); 1 the input cannot be\n" +
			"read, has no semantic models, or --strict and something was not mapped (nothing written);\n" +
			"2 usage.",
		Example: importDbtExample,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "-" && !force {
				if _, err := os.Stat(output); err == nil {
					return usagef("%s exists; pass --force to replace it, or choose another --output", output)
				}
			}
			return e.runImportDbt(args[0], output, strict, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&output, "output", "o", "-", "file to write; - for standard output")
	fl.BoolVar(&force, "force", false, "replace --output when it exists")
	fl.BoolVar(&strict, "strict", false, "fail, writing nothing, when any dbt item cannot be mapped")
	fl.StringVar(&opts.ModelName, "name", "", "semantic model name (default: the dbt project's name, else dbt)")
	fl.StringVar(&opts.Database, "database", "", "database (catalog) prepended to every ref('x') table; with a manifest, replaces node_relation.database")
	fl.StringVar(&opts.Schema, "schema", "", "schema prepended to every ref('x') table; with a manifest, replaces node_relation.schema_name")
	return cmd
}

func (e *env) runImportDbt(path, output string, strict bool, opts dbt.Options) error {
	proj, err := dbt.Read(path)
	if err != nil {
		return failf("%v", err)
	}
	doc, unmapped, err := dbt.Import(proj, opts)
	for _, u := range unmapped {
		fmt.Fprintf(e.stderr, "ossiectl: not mapped: %s\n", u)
	}
	if err != nil {
		return failf("%v", err)
	}
	if strict && len(unmapped) > 0 {
		return failf("%d dbt item(s) not mapped (listed above); nothing written (--strict)", len(unmapped))
	}
	header := []string{"Imported by `ossiectl import dbt` from " + path + "."}
	if len(unmapped) > 0 {
		header = append(header, fmt.Sprintf("%d dbt item(s) were not mapped: the import listed each with its dbt path and why.", len(unmapped)))
	}
	out, err := catalog.Render(doc, header)
	if err != nil {
		return failf("cannot write the document as YAML: %v", err)
	}
	if _, probs := compiler.Load(out, compiler.CompileOptions{}); probs.HasErrors() {
		printProblems(e.stderr, "<import>", probs)
		return failf("the imported document does not validate (a bug in ossiectl import dbt; please report it with the problems above)")
	}
	dest := "standard output"
	if output == "-" {
		if _, err := e.stdout.Write(out); err != nil {
			return failf("%v", err)
		}
	} else {
		if err := writeAtomic(output, out); err != nil {
			return failf("%v; check the directory exists and is writable", err)
		}
		dest = output
	}
	sm := doc.SemanticModel[0]
	fmt.Fprintf(e.stderr, "ossiectl: imported model %q: %d dataset(s), %d relationship(s), %d metric(s), %d item(s) not mapped, written to %s\n",
		sm.Name, len(sm.Datasets), len(sm.Relationships), len(sm.Metrics), len(unmapped), dest)
	return nil
}
