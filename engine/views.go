package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Viewer is implemented by engines that can hold the governed views the
// operator creates (DESIGN.md section 4, issue 5): it lists what a view
// schema holds with the comments that prove ownership, and creates,
// replaces and drops views. Implementations run each change atomically
// where the engine has transactional DDL (DuckDB, PostgreSQL), so a reader
// sees the old view or the new one with its comment, never a view without
// its owner.
type Viewer interface {
	// Relations lists the tables and views of schema (a path: [schema] or
	// [catalog, schema]) by name, each with its comment ("" when it has
	// none). A schema that does not exist holds nothing (no error).
	Relations(ctx context.Context, schema []string) (map[string]Relation, error)
	// ApplyView creates schema when it is missing, then creates the view
	// (v.Replace false: plain CREATE VIEW, which fails when the name is
	// taken, so two writers racing for a name cannot both win) or
	// replaces it (v.Replace true: CREATE OR REPLACE VIEW, which keeps the
	// grants made on it), and sets its comment to v.Comment.
	ApplyView(ctx context.Context, v ViewDef) error
	// DropView drops the view schema.name if it exists.
	DropView(ctx context.Context, schema []string, name string) error
}

// Granter is implemented by engines whose logins the operator can grant
// governed views to (PostgreSQL): each governed role's configured engine
// login gets SELECT on exactly that role's views (docs/operator.md, "BI
// access"). Logins are named, never given credentials.
type Granter interface {
	// Grantees lists the roles other than the owner that hold SELECT on
	// the view schema.name.
	Grantees(ctx context.Context, schema []string, name string) ([]string, error)
	// SetGrants grants SELECT on the view schema.name (and USAGE on its
	// schema) to each login of grant and revokes SELECT from each login of
	// revoke, in one transaction. A login that does not exist is an error.
	SetGrants(ctx context.Context, schema []string, name string, grant, revoke []string) error
}

// Relation is a table or view found in a view schema.
type Relation struct {
	Name    string
	View    bool   // false: a table (or another kind of relation)
	Comment string // the relation's comment; "" when it has none
	// Unguarded is true for a view that lacks the engine's barrier
	// against its readers' predicates (PostgreSQL: a view without
	// security_barrier, as created before views were barriers); the
	// operator replaces such a view even when its definition is current.
	// Always false on engines without such an option.
	Unguarded bool
}

// ViewDef is a view to create or replace.
type ViewDef struct {
	Schema  []string // [schema] or [catalog, schema]
	Name    string
	Query   string // the SELECT the view holds, in the engine's dialect
	Comment string
	Replace bool
}

// ViewSchemaPath splits a configured view schema, `schema` or
// `catalog.schema`, into its parts. Errors: empty parts, or more than two.
func ViewSchemaPath(s string) ([]string, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 2 {
		return nil, fmt.Errorf("view schema %q: want schema or catalog.schema", s)
	}
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("view schema %q: empty name", s)
		}
	}
	return parts, nil
}

// ViewStatements are the statements that create or replace v, in order:
// CREATE SCHEMA IF NOT EXISTS, then CREATE VIEW (CREATE OR REPLACE VIEW
// when v.Replace), then COMMENT ON VIEW; every identifier quoted and the
// comment escaped by d. The caller decides whether they run in one
// transaction.
func ViewStatements(d dialect.Dialect, v ViewDef) []string {
	rel := QuotePath(d.QuoteIdent, append(append([]string(nil), v.Schema...), v.Name)...)
	create := "CREATE VIEW "
	if v.Replace {
		create = "CREATE OR REPLACE VIEW "
	}
	return []string{
		"CREATE SCHEMA IF NOT EXISTS " + QuotePath(d.QuoteIdent, v.Schema...),
		create + rel + " AS " + v.Query,
		"COMMENT ON VIEW " + rel + " IS " + d.QuoteString(v.Comment),
	}
}

// DropViewStatement is DROP VIEW IF EXISTS for the view name in schema
// ([schema] or [catalog, schema]), quoted by d.
func DropViewStatement(d dialect.Dialect, schema []string, name string) string {
	return "DROP VIEW IF EXISTS " + QuotePath(d.QuoteIdent, append(append([]string(nil), schema...), name)...)
}

// QuotePath quotes each part of path with quote and joins them with dots.
func QuotePath(quote func(string) string, path ...string) string {
	q := make([]string, len(path))
	for i, p := range path {
		q[i] = quote(p)
	}
	return strings.Join(q, ".")
}
