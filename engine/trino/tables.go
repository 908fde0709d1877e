package trino

import (
	"context"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Materializer = (*Engine)(nil)

// BuildTable runs engine.BuildStatements one by one (Trino has no
// transaction across DDL): the new rows are complete and commented in the
// build table before the old table is dropped and the build table renamed
// in its place, so a failed query leaves the old table as it was. Between
// the DROP and the rename a reader finds no table; a failure there leaves
// the build table, which the next build replaces. A failed build table is
// dropped.
func (e *Engine) BuildTable(ctx context.Context, t engine.TableDef) (int64, error) {
	d := dialect.Trino
	if err := e.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+engine.QuotePath(d.QuoteIdent, e.qualify(t.Schema)...)); err != nil {
		return 0, err
	}
	t.Schema = e.qualify(t.Schema)
	stmts := engine.BuildStatements(d, t, engine.TablePath(d, t.Schema, t.Name))
	for i, s := range stmts {
		if err := e.Exec(ctx, s); err != nil {
			if i > 0 && i < 3 {
				_ = e.Exec(context.WithoutCancel(ctx), stmts[0])
			}
			return 0, err
		}
	}
	return e.count(ctx, t)
}

// RefreshTable builds, like BuildTable, a new table from the rows it keeps
// (engine.KeptRowsQuery) and the fresh rows, then puts it in place: the
// memory connector deletes no rows, and a rebuild keeps the old table
// whole until the new one is complete.
func (e *Engine) RefreshTable(ctx context.Context, t engine.TableDef, r engine.Refresh) (int64, error) {
	t.Schema = e.qualify(t.Schema)
	t.Query = engine.KeptRowsQuery(dialect.Trino, t, r)
	return e.BuildTable(ctx, t)
}

func (e *Engine) count(ctx context.Context, t engine.TableDef) (int64, error) {
	var n int64
	if err := e.db.QueryRowContext(ctx, engine.CountStatement(dialect.Trino, t.Schema, t.Name)).Scan(&n); err != nil {
		return 0, e.classify(ctx, err)
	}
	return n, nil
}

// qualify prefixes [schema] with the session catalog: Trino's rename
// target is spelled in full.
func (e *Engine) qualify(schema []string) []string {
	if len(schema) == 1 && e.catalog != "" {
		return []string{e.catalog, schema[0]}
	}
	return schema
}

// DropTable drops the table if it exists.
func (e *Engine) DropTable(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, "DROP TABLE IF EXISTS "+engine.TablePath(dialect.Trino, schema, name))
}
