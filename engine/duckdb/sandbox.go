package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Sandboxer = (*Engine)(nil)

// Sandbox disables DuckDB's external access except for files (exact data
// files; for a glob, the directory before its first wildcard), then locks
// the configuration (`enable_external_access=false`,
// `lock_configuration=true`; DuckDB docs, "Securing DuckDB"). Afterwards
// read_text, read_csv, glob, COPY, ATTACH, INSTALL and LOAD of anything
// else fail with a permission error (engine.ErrPermissionDenied), and SET
// or RESET of any option fails. The settings are global to the database
// instance, so every connection of the pool, and every other handle on
// the same file in this process, is sandboxed. Relative paths are made
// absolute against the working directory, which is how DuckDB resolves a
// relative path in a query. Remote files (a path with "://") cannot be
// read once external access is off and are refused here.
func (e *Engine) Sandbox(ctx context.Context, files []string) error {
	var paths, dirs []string
	for _, f := range files {
		if strings.Contains(f, "://") {
			return fmt.Errorf("duckdb: cannot sandbox the engine with the remote file %s as a source: remote files need external access", f)
		}
		if i := strings.IndexAny(f, "*?[{"); i >= 0 {
			dir, err := filepath.Abs(filepath.Dir(f[:i] + "x"))
			if err != nil {
				return fmt.Errorf("duckdb: sandbox: %w", err)
			}
			dirs = append(dirs, dir+string(filepath.Separator))
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("duckdb: sandbox: %w", err)
		}
		paths = append(paths, abs)
	}
	stmts := []string{}
	if len(paths) > 0 {
		stmts = append(stmts, "SET allowed_paths = "+stringList(paths))
	}
	if len(dirs) > 0 {
		stmts = append(stmts, "SET allowed_directories = "+stringList(dirs))
	}
	stmts = append(stmts, "SET enable_external_access = false", "SET lock_configuration = true")
	for _, s := range stmts {
		if err := e.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// stringList is a DuckDB list literal of escaped strings.
func stringList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = dialect.DuckDB.QuoteString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
