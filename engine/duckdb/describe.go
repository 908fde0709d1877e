package duckdb

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Describe lists the columns of a table or view (path parts: [catalog,]
// [schema,] table) or, when given one part that names a data file
// (see IsFilePath), of that Parquet/CSV/JSON file. A missing table, view
// or file is an *engine.Error wrapping engine.ErrNotFound.
func (e *Engine) Describe(ctx context.Context, table []string) ([]engine.Column, error) {
	var from string
	if len(table) == 1 && IsFilePath(table[0]) {
		scan, err := ScanFile(table[0])
		if err != nil {
			return nil, err
		}
		from = scan
	} else {
		q, err := quotePath(table)
		if err != nil {
			return nil, err
		}
		from = q
	}
	return e.describe(ctx, from)
}

// DescribeFile lists the columns of a Parquet, CSV or JSON file (by
// extension, see ScanFile).
func (e *Engine) DescribeFile(ctx context.Context, file string) ([]engine.Column, error) {
	scan, err := ScanFile(file)
	if err != nil {
		return nil, err
	}
	return e.describe(ctx, scan)
}

func (e *Engine) describe(ctx context.Context, from string) ([]engine.Column, error) {
	res, err := e.Query(ctx, "DESCRIBE SELECT * FROM "+from, 0)
	if err != nil {
		return nil, err
	}
	// DESCRIBE returns column_name, column_type, null, key, default, extra.
	cols := make([]engine.Column, 0, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		typ, _ := r[1].(string)
		cols = append(cols, engine.Column{Name: name, Type: typ})
	}
	return cols, nil
}

// fileFormats maps a data file extension to the DuckDB table function that
// reads it. Compression suffixes (.gz, .zst) are looked through.
var fileFormats = map[string]string{
	".parquet": "read_parquet",
	".pq":      "read_parquet",
	".csv":     "read_csv",
	".tsv":     "read_csv",
	".txt":     "read_csv",
	".json":    "read_json",
	".jsonl":   "read_json",
	".ndjson":  "read_json",
}

func fileReader(file string) (string, bool) {
	name := strings.ToLower(file)
	for _, c := range []string{".gz", ".zst"} {
		name = strings.TrimSuffix(name, c)
	}
	fn, ok := fileFormats[path.Ext(name)]
	return fn, ok
}

// IsFilePath reports whether s names a data file DuckDB can scan (by its
// extension: .parquet, .pq, .csv, .tsv, .txt, .json, .jsonl, .ndjson,
// optionally compressed with .gz or .zst) rather than a table.
func IsFilePath(s string) bool {
	_, ok := fileReader(s)
	return ok
}

// ScanFile returns the SQL table expression that reads file, e.g.
// read_parquet('data/flights.parquet'). The path is a quoted string literal
// (quotes doubled), so no path can inject SQL. Globs are passed through as
// DuckDB reads them. An unknown extension is an error.
func ScanFile(file string) (string, error) {
	fn, ok := fileReader(file)
	if !ok {
		return "", fmt.Errorf("duckdb: cannot tell the format of %q: use a .parquet, .csv, .tsv or .json file", file)
	}
	return fn + "(" + dialect.DuckDB.QuoteString(file) + ")", nil
}
