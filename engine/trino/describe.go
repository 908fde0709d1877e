package trino

import (
	"context"
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Describe lists the columns of a table or view named by its path parts:
// [table] or [schema, table] in the configured catalog (and schema), or
// [catalog, schema, table]. It reads <catalog>.information_schema.columns
// (Trino documentation, "System connector"/"information_schema"), which
// holds names as the connector stores them (lower case for most). Types
// are Trino's spelling upper-cased: BIGINT, VARCHAR, DECIMAL(10,2),
// TIMESTAMP(3). A missing table, schema or catalog is an *engine.Error
// wrapping engine.ErrNotFound, one the user may not read wraps
// engine.ErrPermissionDenied; an unreachable cluster wraps
// engine.ErrUnavailable.
func (e *Engine) Describe(ctx context.Context, table []string) ([]engine.Column, error) {
	if len(table) == 0 || len(table) > 3 {
		return nil, fmt.Errorf("trino: a table path has 1 to 3 parts, got %d", len(table))
	}
	for _, p := range table {
		if p == "" {
			return nil, fmt.Errorf("trino: empty part in table path %q", table)
		}
	}
	parts := append([]string{e.catalog, e.schema}[:3-len(table)], table...)
	if len(table) == 1 && e.schema == "" || len(table) < 3 && e.catalog == "" {
		return nil, fmt.Errorf("trino: table path %q needs a default catalog and schema; set Catalog and Schema in the configuration or name all three parts", table)
	}
	d := dialect.Trino
	q := "SELECT column_name, data_type FROM " + d.QuoteIdent(parts[0]) + ".information_schema.columns" +
		" WHERE table_schema = " + d.QuoteString(parts[1]) + " AND table_name = " + d.QuoteString(parts[2]) +
		" ORDER BY ordinal_position"
	res, err := e.Query(ctx, q, 0)
	if err != nil {
		return nil, err
	}
	// information_schema answers no rows, not an error, both for a missing
	// table and for one access control hides from this user; reading it
	// tells the two apart (TABLE_NOT_FOUND vs PERMISSION_DENIED).
	if len(res.Rows) == 0 {
		return e.probe(ctx, parts)
	}
	cols := make([]engine.Column, 0, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		typ, _ := r[1].(string)
		cols = append(cols, engine.Column{Name: name, Type: typeName(typ)})
	}
	return cols, nil
}

// typeName upper-cases a Trino type, keeping quoted ROW field names as
// they are.
func typeName(t string) string {
	if strings.Contains(t, `"`) {
		return t
	}
	return strings.ToUpper(t)
}

// probe reads no rows of a table information_schema does not list: Trino
// then reports why (TABLE_NOT_FOUND, SCHEMA_NOT_FOUND or
// PERMISSION_DENIED), classified by Query. A table that answers after all
// is described by its result columns (types without parameters).
func (e *Engine) probe(ctx context.Context, parts []string) ([]engine.Column, error) {
	d := dialect.Trino
	name := d.QuoteIdent(parts[0]) + "." + d.QuoteIdent(parts[1]) + "." + d.QuoteIdent(parts[2])
	res, err := e.Query(ctx, "SELECT * FROM "+name+" LIMIT 0", 0)
	if err != nil {
		return nil, err
	}
	return res.Columns, nil
}
