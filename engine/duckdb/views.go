package duckdb

import (
	"context"
	"database/sql"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Viewer = (*Engine)(nil)

// Relations lists the tables and views of schema ([schema] in the
// database in use, or [database, schema]) with their comments, read
// from duckdb_views() and duckdb_tables().
func (e *Engine) Relations(ctx context.Context, schema []string) (map[string]engine.Relation, error) {
	db, sch := schemaParts(schema)
	const q = `SELECT view_name, true, coalesce(comment, '') FROM duckdb_views()
WHERE NOT internal AND schema_name = $1 AND database_name = coalesce($2, current_database())
UNION ALL
SELECT table_name, false, coalesce(comment, '') FROM duckdb_tables()
WHERE schema_name = $1 AND database_name = coalesce($2, current_database())`
	rows, err := e.db.QueryContext(ctx, q, sch, db)
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer rows.Close()
	out := map[string]engine.Relation{}
	for rows.Next() {
		var r engine.Relation
		if err := rows.Scan(&r.Name, &r.View, &r.Comment); err != nil {
			return nil, classify(ctx, err)
		}
		out[r.Name] = r
	}
	if err := rows.Err(); err != nil {
		return nil, classify(ctx, err)
	}
	return out, nil
}

// ApplyView creates the schema if missing, creates or replaces the view
// and comments it, in one transaction.
func (e *Engine) ApplyView(ctx context.Context, v engine.ViewDef) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(ctx, err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, stmt := range engine.ViewStatements(dialect.DuckDB, v) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return classify(ctx, err)
		}
	}
	return classify(ctx, tx.Commit())
}

// DropView drops the view if it exists.
func (e *Engine) DropView(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, engine.DropViewStatement(dialect.DuckDB, schema, name))
}

// schemaParts splits [schema] or [database, schema]; a missing database
// is NULL (the database in use).
func schemaParts(schema []string) (sql.NullString, string) {
	if len(schema) == 2 {
		return sql.NullString{String: schema[0], Valid: true}, schema[1]
	}
	if len(schema) == 1 {
		return sql.NullString{}, schema[0]
	}
	return sql.NullString{}, ""
}
