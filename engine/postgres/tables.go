package postgres

import (
	"context"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Materializer = (*Engine)(nil)

// BuildTable builds t in one transaction: the schema when it does not
// exist (checked first, as ApplyView does), then engine.BuildStatements. A
// failed query rolls everything back, the old table untouched. Readers of
// the old table block on the final DROP and rename for the rest of the
// transaction only; grants made on the table itself are lost with it
// (grant by default privileges on the schema, docs/operator.md).
func (e *Engine) BuildTable(ctx context.Context, t engine.TableDef) (int64, error) {
	return e.inTx(ctx, t, true, engine.BuildStatements(dialect.Postgres, t, dialect.Postgres.QuoteIdent(t.Name)))
}

// RefreshTable deletes and inserts the refreshed rows in one transaction.
func (e *Engine) RefreshTable(ctx context.Context, t engine.TableDef, r engine.Refresh) (int64, error) {
	return e.inTx(ctx, t, false, engine.RefreshStatements(dialect.Postgres, t, r))
}

// inTx runs stmts in one transaction, creating the schema first when
// schema is set and it is missing, and counts the rows of t.Name before
// committing.
func (e *Engine) inTx(ctx context.Context, t engine.TableDef, schema bool, stmts []string) (int64, error) {
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return 0, e.classify(ctx, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if schema {
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)", t.Schema[len(t.Schema)-1]).Scan(&exists); err != nil {
			return 0, e.classify(ctx, err)
		}
		if !exists {
			stmts = append([]string{"CREATE SCHEMA IF NOT EXISTS " + engine.QuotePath(dialect.Postgres.QuoteIdent, t.Schema...)}, stmts...)
		}
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return 0, e.classify(ctx, err)
		}
	}
	var n int64
	if err := tx.QueryRow(ctx, engine.CountStatement(dialect.Postgres, t.Schema, t.Name)).Scan(&n); err != nil {
		return 0, e.classify(ctx, err)
	}
	return n, e.classify(ctx, tx.Commit(ctx))
}

// DropTable drops the table if it exists.
func (e *Engine) DropTable(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, "DROP TABLE IF EXISTS "+engine.TablePath(dialect.Postgres, schema, name))
}
