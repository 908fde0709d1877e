package ossiectl

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine/connect"
)

// targetDialects maps an engine name (engine/connect) to the dialect the
// compiler checks expressions against: the same dialect the operator sets
// from its --engine, so OSS3008 is found before deploying.
var targetDialects = map[string]dialect.Dialect{
	connect.DuckDB:   dialect.DuckDB,
	connect.Postgres: dialect.Postgres,
	connect.Trino:    dialect.Trino,
}

// targetEngineFlag adds --engine to commands that only compile (validate,
// compile); query, sql and serve take --engine from engineFlags instead.
func targetEngineFlag(cmd *cobra.Command, name *string) {
	cmd.Flags().StringVar(name, "engine", "", "also check that every expression runs on this engine ("+
		strings.Join(connect.Engines, ", ")+"); a call it cannot compute is OSS3008")
}

// setTargetDialect sets opts.Dialect from an --engine value ("" leaves it
// unset: no engine check); an unknown name is a usage error.
func setTargetDialect(name string, opts *compiler.CompileOptions) error {
	if name == "" {
		return nil
	}
	d, ok := targetDialects[strings.ToLower(name)]
	if !ok {
		return usagef("--engine must be one of %s, not %q", strings.Join(connect.Engines, ", "), name)
	}
	opts.Dialect = d
	return nil
}
