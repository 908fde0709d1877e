package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

var _ engine.Viewer = (*Engine)(nil)

// relationsSQL lists the relations of one schema of the connected
// database ($2, when given, must be its name) with each relation's comment and
// whether a view lacks security_barrier (any spelling of a true boolean
// reloption counts as set).
const relationsSQL = `SELECT c.relname, c.relkind = 'v', COALESCE(obj_description(c.oid, 'pg_class'), ''),
  c.relkind = 'v' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_options_to_table(c.reloptions) o
    WHERE o.option_name = 'security_barrier' AND lower(o.option_value) IN ('true', 'on', 'yes', '1', 't', 'y'))
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND ($2::text IS NULL OR $2::text = current_database())
  AND c.relkind IN ('r', 'v', 'm', 'f', 'p')`

// Relations lists the tables, views, materialized views, foreign and
// partitioned tables of schema ([schema] or [database, schema] naming the
// connected database) with each relation's comment.
func (e *Engine) Relations(ctx context.Context, schema []string) (map[string]engine.Relation, error) {
	var db *string
	name := schema[len(schema)-1]
	if len(schema) == 2 {
		db = &schema[0]
	}
	rows, err := e.pool.Query(ctx, relationsSQL, name, db)
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	out := map[string]engine.Relation{}
	var r engine.Relation
	_, err = pgx.ForEachRow(rows, []any{&r.Name, &r.View, &r.Comment, &r.Unguarded}, func() error {
		out[r.Name] = r
		return nil
	})
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	return out, nil
}

// ApplyView creates the schema when it does not exist (checked first:
// CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the database
// even when the schema exists), creates or replaces the view and comments
// it, in one transaction. PostgreSQL's CREATE OR REPLACE VIEW refuses a
// change of the view's columns (names, types, a dropped column: SQLSTATE
// 42P16); the view is then dropped and created again in one transaction,
// which loses the grants made on the view itself (the operator grants
// them again with SetGrants, docs/operator.md).
//
// Every view is a security barrier (WITH (security_barrier), in the
// CREATE and in every CREATE OR REPLACE, which otherwise resets the
// view's options): PostgreSQL then applies the view's row filter before
// any predicate of its reader that is not leakproof, so a reader's own
// function (a temporary function raising a notice per row) sees only the
// rows the filter admits (PostgreSQL docs, "Rules and Privileges").
func (e *Engine) ApplyView(ctx context.Context, v engine.ViewDef) error {
	err := e.applyView(ctx, v, false)
	var pe *pgconn.PgError
	if v.Replace && errors.As(err, &pe) && pe.Code == "42P16" {
		err = e.applyView(ctx, v, true)
	}
	return e.classify(ctx, err)
}

// barrier is the view clause between the view's name and its query.
const barrier = " WITH (security_barrier) AS "

func (e *Engine) applyView(ctx context.Context, v engine.ViewDef, recreate bool) error {
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)", v.Schema[len(v.Schema)-1]).Scan(&exists); err != nil {
		return err
	}
	q := dialect.Postgres.QuoteIdent
	rel := engine.QuotePath(q, append(append([]string(nil), v.Schema...), v.Name)...)
	var stmts []string
	if !exists {
		stmts = append(stmts, "CREATE SCHEMA IF NOT EXISTS "+engine.QuotePath(q, v.Schema...))
	}
	switch {
	case recreate:
		stmts = append(stmts, "DROP VIEW IF EXISTS "+rel, "CREATE VIEW "+rel+barrier+v.Query)
	case v.Replace:
		stmts = append(stmts, "CREATE OR REPLACE VIEW "+rel+barrier+v.Query)
	default:
		stmts = append(stmts, "CREATE VIEW "+rel+barrier+v.Query)
	}
	stmts = append(stmts, "COMMENT ON VIEW "+rel+" IS "+dialect.Postgres.QuoteString(v.Comment))
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// DropView drops the view if it exists.
func (e *Engine) DropView(ctx context.Context, schema []string, name string) error {
	return e.Exec(ctx, engine.DropViewStatement(dialect.Postgres, schema, name))
}

var _ engine.Granter = (*Engine)(nil)

// granteesSQL lists the roles holding SELECT on one relation, from its
// access control list, leaving out its owner.
const granteesSQL = `SELECT pg_catalog.pg_get_userbyid(a.grantee)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace,
  LATERAL pg_catalog.aclexplode(c.relacl) a
WHERE n.nspname = $1 AND c.relname = $2 AND a.privilege_type = 'SELECT' AND a.grantee <> c.relowner AND a.grantee <> 0
ORDER BY 1`

// Grantees lists the logins with SELECT on the view (PUBLIC left out).
func (e *Engine) Grantees(ctx context.Context, schema []string, name string) ([]string, error) {
	rows, err := e.pool.Query(ctx, granteesSQL, schema[len(schema)-1], name)
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, e.classify(ctx, err)
	}
	return out, nil
}

// SetGrants grants SELECT on the view, and USAGE on its schema, to each
// login of grant, and revokes SELECT on the view from each login of
// revoke, in one transaction; every name is quoted.
func (e *Engine) SetGrants(ctx context.Context, schema []string, name string, grant, revoke []string) error {
	q := dialect.Postgres.QuoteIdent
	rel := engine.QuotePath(q, append(append([]string(nil), schema...), name)...)
	var stmts []string
	for _, g := range grant {
		stmts = append(stmts, "GRANT USAGE ON SCHEMA "+engine.QuotePath(q, schema...)+" TO "+q(g), "GRANT SELECT ON "+rel+" TO "+q(g))
	}
	for _, r := range revoke {
		stmts = append(stmts, "REVOKE SELECT ON "+rel+" FROM "+q(r))
	}
	if len(stmts) == 0 {
		return nil
	}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return e.classify(ctx, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st); err != nil {
			return e.classify(ctx, err)
		}
	}
	return e.classify(ctx, tx.Commit(ctx))
}
