package duckdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// LoadFile creates (or replaces) table in the default schema from a
// Parquet, CSV or JSON file, reading every row; column names and types come
// from the file (CSV types are sniffed from the rows, so a CSV with a
// header and no rows gives all-VARCHAR columns). The table name is one
// identifier, always quoted; the path is an escaped string literal. Used by
// the demo, `ossiectl query --load` and tests.
//
// Errors are *engine.Error naming the file: a local file that does not
// exist is engine.ErrNotFound, one the process may not read
// engine.ErrPermissionDenied (both checked before DuckDB runs, so the
// message is the file system's, with the absolute path); a file DuckDB
// cannot parse carries DuckDB's diagnostic without the statement excerpt.
func (e *Engine) LoadFile(ctx context.Context, table, file string) error {
	if table == "" {
		return fmt.Errorf("duckdb: LoadFile needs a table name")
	}
	scan, err := ScanFile(file)
	if err != nil {
		return err
	}
	if err := checkLocalFile(file); err != nil {
		return err
	}
	err = e.Exec(ctx, "CREATE OR REPLACE TABLE "+dialect.DuckDB.QuoteIdent(table)+" AS SELECT * FROM "+scan)
	var ee *engine.Error
	if errors.As(err, &ee) {
		fn, _ := fileReader(file)
		return &engine.Error{Class: ee.Class, Err: ee.Err,
			Message: fmt.Sprintf("duckdb: cannot load %s with %s: %s", file, fn, firstParagraph(strings.TrimPrefix(ee.Message, "duckdb: ")))}
	}
	return err
}

// checkLocalFile stats a plain local path. Globs and URLs (s3://, https://)
// are left to DuckDB, which resolves them itself.
func checkLocalFile(file string) error {
	if strings.Contains(file, "://") || strings.ContainsAny(file, "*?[") {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &engine.Error{Class: engine.ErrNotFound, Err: err, Message: fmt.Sprintf("duckdb: no file %s (%s)", file, abs)}
	case errors.Is(err, fs.ErrPermission):
		return &engine.Error{Class: engine.ErrPermissionDenied, Err: err, Message: fmt.Sprintf("duckdb: may not read %s (%s): permission denied", file, abs)}
	case err != nil:
		return &engine.Error{Err: err, Message: "duckdb: cannot read " + file + ": " + err.Error()}
	case st.IsDir():
		return &engine.Error{Message: fmt.Sprintf("duckdb: %s (%s) is a directory, not a data file", file, abs)}
	}
	return nil
}

// firstParagraph drops the statement excerpt ("LINE 1: ...") DuckDB
// appends after a blank line: it quotes the generated SQL, not the file.
func firstParagraph(msg string) string {
	head, _, _ := strings.Cut(msg, "\n\n")
	return strings.TrimSpace(head)
}
