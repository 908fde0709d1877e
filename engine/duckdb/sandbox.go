package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Sandboxer = (*Engine)(nil)

// Sandbox disables DuckDB's external access except for allow (see
// engine.Sandboxer for the three kinds of entry), then locks the
// configuration (`enable_external_access=false`, `lock_configuration=true`;
// DuckDB docs, "Securing DuckDB"). Afterwards read_text, read_csv, glob,
// COPY, ATTACH, INSTALL and LOAD of anything else fail with a permission
// error (engine.ErrSandboxed), and SET or RESET of any option fails. The
// settings are global to the database instance, so every connection of
// the pool, and every other handle on the same file in this process, is
// sandboxed.
//
// A glob is put in `allowed_paths` as the pattern itself (DuckDB checks a
// pattern's own path before it lists it) together with each file it
// matches now; DuckDB checks every listed file again, so a file that
// appears later, or any other file of the directory, stays unreadable.
// Directories go to `allowed_directories`. Remote paths (with "://")
// cannot be read once external access is off and are refused, as are an
// entry that is not an absolute-able path and a glob that matches no
// file (a typo would otherwise show up only as a refused query).
func (e *Engine) Sandbox(ctx context.Context, allow []string) error {
	paths, dirs, err := sandboxPaths(allow)
	if err != nil {
		return err
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

// sandboxPaths sorts allow into DuckDB's allowed_paths and
// allowed_directories, absolute and cleaned (DuckDB cleans `..` in a
// queried path before it compares).
func sandboxPaths(allow []string) (paths, dirs []string, err error) {
	for _, a := range allow {
		if strings.Contains(a, "://") {
			return nil, nil, fmt.Errorf("duckdb: sandbox: cannot allow the remote file %s: remote files need external access", a)
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, nil, fmt.Errorf("duckdb: sandbox: %s: %w", a, err)
		}
		if strings.ContainsAny(a, "*?[") {
			if strings.Contains(a, "**") {
				return nil, nil, fmt.Errorf("duckdb: sandbox: %s: a recursive glob (**) is not allowed; name the directory to allow every file below it", a)
			}
			matches, err := filepath.Glob(abs)
			if err != nil {
				return nil, nil, fmt.Errorf("duckdb: sandbox: %s: %w", a, err)
			}
			files := 0
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					paths = append(paths, m)
					files++
				}
			}
			if files == 0 {
				return nil, nil, fmt.Errorf("duckdb: sandbox: %s matches no file", a)
			}
			paths = append(paths, abs)
			continue
		}
		if st, err := os.Stat(abs); (err == nil && st.IsDir()) || strings.HasSuffix(a, string(filepath.Separator)) {
			dirs = append(dirs, strings.TrimSuffix(abs, string(filepath.Separator))+string(filepath.Separator))
			continue
		}
		paths = append(paths, abs)
	}
	return paths, dirs, nil
}

// stringList is a DuckDB list literal of escaped strings.
func stringList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = dialect.DuckDB.QuoteString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
