package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/engine"
)

// describeSQL lists the columns of the relation that a (quoted, possibly
// schema-qualified) name resolves to, exactly as a query naming it would
// resolve it (search_path for unqualified names). Tables, views,
// materialized views, foreign and partitioned tables all resolve. One row
// with a NULL name means the relation exists but has no columns; no row
// with found=true means it does not exist. readable is false when the
// connected role may SELECT no column of it (the catalog is readable by
// everyone, so the grant is checked explicitly).
const describeSQL = `SELECT r.oid IS NOT NULL AS found, a.attname, format_type(a.atttypid, a.atttypmod), t.typname,
  COALESCE(has_any_column_privilege(r.oid, 'SELECT'), false) AS readable
FROM (SELECT to_regclass($1) AS oid) r
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
ORDER BY a.attnum`

// Describe lists the columns of a table or view named by its path parts:
// [table] (resolved through search_path, normally schema public),
// [schema, table] or [database, schema, table], where database must be the
// connected one. Parts are exact names (case-sensitive, quoted). Types are
// reported like Query's column types, with modifiers: NUMERIC(10,2),
// VARCHAR(20), TIMESTAMPTZ. A missing table, view, schema or database is an
// *engine.Error wrapping engine.ErrNotFound, one the role may not SELECT
// from wraps engine.ErrPermissionDenied; a failure to reach the server
// wraps engine.ErrUnavailable.
func (e *Engine) Describe(ctx context.Context, table []string) ([]engine.Column, error) {
	if len(table) == 0 || len(table) > 3 {
		return nil, fmt.Errorf("postgres: a table path has 1 to 3 parts, got %d", len(table))
	}
	for _, p := range table {
		if p == "" {
			return nil, fmt.Errorf("postgres: empty part in table path %q", table)
		}
	}
	rel := table
	if len(table) == 3 {
		var db string
		if err := e.pool.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
			return nil, e.classify(ctx, err)
		}
		if db != table[0] {
			return nil, &engine.Error{Class: engine.ErrNotFound, Message: fmt.Sprintf("postgres: database %q is not the connected database %q (PostgreSQL cannot query across databases)", table[0], db)}
		}
		rel = table[1:]
	}
	rows, err := e.pool.Query(ctx, describeSQL, pgx.Identifier(rel).Sanitize())
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	defer rows.Close()
	cols := []engine.Column{}
	found, readable := false, false
	for rows.Next() {
		var name, format, typname *string
		if err := rows.Scan(&found, &name, &format, &typname, &readable); err != nil {
			return nil, e.classify(ctx, err)
		}
		if name != nil && format != nil && typname != nil {
			cols = append(cols, engine.Column{Name: *name, Type: columnType(*typname, *format)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, e.classify(ctx, err)
	}
	if !found {
		return nil, &engine.Error{Class: engine.ErrNotFound, Message: fmt.Sprintf("postgres: relation %s does not exist", pgx.Identifier(table).Sanitize())}
	}
	if !readable {
		return nil, &engine.Error{Class: engine.ErrPermissionDenied, Message: fmt.Sprintf("postgres: permission denied for relation %s: the connected role has no SELECT grant on it (SQLSTATE 42501)", pgx.Identifier(table).Sanitize())}
	}
	return cols, nil
}

// columnType names a catalog column type: the reported name of its
// pg_type plus the modifier format_type shows, e.g. numeric(10,2) →
// NUMERIC(10,2), character varying(20) → VARCHAR(20).
func columnType(typname, format string) string {
	t := typeName(typname)
	if strings.HasSuffix(t, "[]") {
		return t
	}
	if i := strings.IndexByte(format, '('); i >= 0 {
		if j := strings.IndexByte(format[i:], ')'); j >= 0 {
			return t + format[i:i+j+1]
		}
	}
	return t
}
