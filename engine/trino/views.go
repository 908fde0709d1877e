package trino

import (
	"context"
	"database/sql"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Viewer = (*Engine)(nil)

// Relations lists the tables and views of schema ([schema] in the
// session catalog, or [catalog, schema]) from the catalog's
// information_schema.tables, with view comments from
// system.metadata.table_comments (which covers views on the connectors
// that store view comments).
func (e *Engine) Relations(ctx context.Context, schema []string) (map[string]engine.Relation, error) {
	catalog, sch := e.catalog, schema[len(schema)-1]
	if len(schema) == 2 {
		catalog = schema[0]
	}
	q := dialect.Trino.QuoteString
	stmt := "SELECT t.table_name, t.table_type = 'VIEW', COALESCE(c.comment, '') FROM " +
		dialect.Trino.QuoteIdent(catalog) + ".information_schema.tables t " +
		"LEFT JOIN system.metadata.table_comments c ON c.catalog_name = " + q(catalog) +
		" AND c.schema_name = t.table_schema AND c.table_name = t.table_name " +
		"WHERE t.table_schema = " + q(sch)
	rows, err := e.db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	defer rows.Close()
	out := map[string]engine.Relation{}
	for rows.Next() {
		var r engine.Relation
		var comment sql.NullString
		if err := rows.Scan(&r.Name, &r.View, &comment); err != nil {
			return nil, e.classify(ctx, err)
		}
		r.Comment = comment.String
		out[r.Name] = r
	}
	if err := rows.Err(); err != nil {
		return nil, e.classify(ctx, err)
	}
	return out, nil
}

// ViewStatements are the statements ApplyView runs, in order. Trino has no
// transactional DDL across these statements: a failure part-way leaves
// the schema or an uncommented view, which the next reconcile replaces.
func ViewStatements(v engine.ViewDef) []string {
	return engine.ViewStatements(dialect.Trino, v)
}

// ApplyView runs ViewStatements(v) one by one.
func (e *Engine) ApplyView(ctx context.Context, v engine.ViewDef) error {
	for _, s := range ViewStatements(v) {
		if err := e.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// DropView drops the view if it exists.
func (e *Engine) DropView(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, engine.DropViewStatement(dialect.Trino, schema, name))
}
