package duckdb

import (
	"context"
	"fmt"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// LoadFile creates (or replaces) table in the default schema from a
// Parquet, CSV or JSON file, reading every row; column names and types come
// from the file (CSV types are sniffed). The table name is one identifier,
// always quoted; the path is an escaped string literal. Used by the demo,
// `ossiectl query --load` and tests.
func (e *Engine) LoadFile(ctx context.Context, table, file string) error {
	if table == "" {
		return fmt.Errorf("duckdb: LoadFile needs a table name")
	}
	scan, err := ScanFile(file)
	if err != nil {
		return err
	}
	return e.Exec(ctx, "CREATE OR REPLACE TABLE "+dialect.DuckDB.QuoteIdent(table)+" AS SELECT * FROM "+scan)
}
