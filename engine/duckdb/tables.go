package duckdb

import (
	"context"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Materializer = (*Engine)(nil)

// BuildTable builds t in one transaction (CREATE SCHEMA IF NOT EXISTS and
// engine.BuildStatements): a failed query rolls everything back and the
// old table stays as it was.
func (e *Engine) BuildTable(ctx context.Context, t engine.TableDef) (int64, error) {
	stmts := append([]string{"CREATE SCHEMA IF NOT EXISTS " + engine.QuotePath(dialect.DuckDB.QuoteIdent, t.Schema...)},
		engine.BuildStatements(dialect.DuckDB, t, dialect.DuckDB.QuoteIdent(t.Name))...)
	return e.inTx(ctx, t, stmts)
}

// RefreshTable deletes and inserts the refreshed rows in one transaction.
func (e *Engine) RefreshTable(ctx context.Context, t engine.TableDef, r engine.Refresh) (int64, error) {
	return e.inTx(ctx, t, engine.RefreshStatements(dialect.DuckDB, t, r))
}

// inTx runs stmts in one transaction and counts the rows of t.Name before
// committing.
func (e *Engine) inTx(ctx context.Context, t engine.TableDef, stmts []string) (int64, error) {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, classify(ctx, err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return 0, classify(ctx, err)
		}
	}
	var n int64
	if err := tx.QueryRowContext(ctx, engine.CountStatement(dialect.DuckDB, t.Schema, t.Name)).Scan(&n); err != nil {
		return 0, classify(ctx, err)
	}
	return n, classify(ctx, tx.Commit())
}

// DropTable drops the table if it exists.
func (e *Engine) DropTable(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, "DROP TABLE IF EXISTS "+engine.TablePath(dialect.DuckDB, schema, name))
}
