package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Engine kinds ListEngine reads.
const (
	KindDuckDB   = "duckdb"
	KindPostgres = "postgres"
	KindTrino    = "trino"
)

// EngineOptions say what ListEngine reads.
type EngineOptions struct {
	// Kind is KindDuckDB, KindPostgres or KindTrino.
	Kind string
	// Catalog is the Trino catalog to read (required for Trino, e.g. an
	// Iceberg catalog backed by Polaris); it becomes the first part of each
	// source. Ignored for DuckDB and PostgreSQL, whose sources are
	// schema.table in the connected database.
	Catalog string
	// Schemas and Tables are glob patterns as in GlueOptions; empty: all
	// schemas but the engine's system schemas, all tables.
	Schemas, Tables []string
}

// TypeSystem names the engine's type spelling for MapType notes.
func (o EngineOptions) TypeSystem() string {
	switch o.Kind {
	case KindPostgres:
		return "PostgreSQL"
	case KindTrino:
		return "Trino"
	}
	return "DuckDB"
}

// ListEngine reads the selected tables and views of the database eng is
// connected to, sorted by schema and name, with columns in table order:
//   - DuckDB: duckdb_columns(), duckdb_tables()/duckdb_views() (comments)
//     and duckdb_constraints() (primary, unique and foreign keys) of the
//     current database;
//   - PostgreSQL: pg_catalog (format_type for exact types such as
//     numeric(12,2), col_description/obj_description for comments,
//     pg_constraint for keys). information_schema would hide the
//     constraints of tables the user may only SELECT from, which is the
//     usual authoring role. Partitions are left out (their parent is listed);
//   - Trino: <catalog>.information_schema.columns (names and types; Trino
//     exposes no keys) and, when readable, system.metadata.table_comments
//     (table comments) and system.jdbc.columns (column comments).
//
// Failures are *Error: Unreachable when eng wraps engine.ErrUnavailable,
// NotFound when nothing matched, Problem otherwise.
func ListEngine(ctx context.Context, eng engine.Engine, opts EngineOptions) ([]Table, error) {
	var (
		tables []*Table
		err    error
	)
	switch opts.Kind {
	case KindDuckDB:
		tables, err = listDuckDB(ctx, eng)
	case KindPostgres:
		tables, err = listPostgres(ctx, eng)
	case KindTrino:
		if opts.Catalog == "" {
			return nil, &Error{Kind: Problem, Message: "no Trino catalog to read", Next: "pass --catalog or put ?catalog=NAME in the DSN"}
		}
		tables, err = listTrino(ctx, eng, opts.Catalog)
	default:
		return nil, &Error{Kind: Problem, Message: fmt.Sprintf("unknown engine kind %q", opts.Kind), Next: "use duckdb, postgres or trino"}
	}
	if err != nil {
		return nil, engineError(err, opts.Kind)
	}
	var out []Table
	schemas := map[string]bool{}
	for _, t := range tables {
		schemas[t.Schema] = true
		if len(opts.Schemas) > 0 && !matchAny(opts.Schemas, t.Schema) || !matchTable(opts.Tables, t.Schema, t.Name) {
			continue
		}
		// Foreign keys in column order, so that of two keys to one table
		// (origin, destination) the same one becomes the relationship on
		// every engine.
		pos := map[string]int{}
		for i, c := range t.Columns {
			pos[c.Name] = i
		}
		slices.SortStableFunc(t.ForeignKeys, func(a, b ForeignKey) int {
			return cmp.Compare(firstPos(pos, a.Columns), firstPos(pos, b.Columns))
		})
		out = append(out, *t)
	}
	slices.SortStableFunc(out, func(a, b Table) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	if len(out) == 0 {
		var names []string
		for s := range schemas {
			names = append(names, s)
		}
		slices.Sort(names)
		have := "it has no tables"
		if len(names) > 0 {
			have = "its schemas: " + listSome(names, 10)
		}
		return nil, &Error{Kind: NotFound, Message: fmt.Sprintf("no table matched on %s (%s)", opts.TypeSystem(), have), Next: "check --schema and --tables (glob patterns such as 'sales' or 'sales.fact_*')"}
	}
	return out, nil
}

func firstPos(pos map[string]int, cols []string) int {
	if len(cols) == 0 {
		return -1
	}
	return pos[cols[0]]
}

func engineError(err error, kind string) error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Unreachable, Message: fmt.Sprintf("no answer from the %s engine in time: %s", kind, firstLine(err.Error())), Next: "check that the server is running and reachable, or raise --timeout", Err: err}
	}
	if errors.Is(err, engine.ErrUnavailable) {
		return &Error{Kind: Unreachable, Message: fmt.Sprintf("cannot reach the %s engine: %s", kind, firstLine(err.Error())), Next: "check the DSN (host, port, credentials) and that the server is running, then retry", Err: err}
	}
	return &Error{Kind: Problem, Message: fmt.Sprintf("reading the %s catalog failed: %s", kind, firstLine(err.Error())), Next: "check that the user may read the catalog tables", Err: err}
}

// collector groups column rows into tables in first-seen order.
type collector struct {
	byKey map[[2]string]*Table
	list  []*Table
}

func (c *collector) table(catalog, schema, name string) *Table {
	if c.byKey == nil {
		c.byKey = map[[2]string]*Table{}
	}
	k := [2]string{schema, name}
	t, ok := c.byKey[k]
	if !ok {
		t = &Table{Catalog: catalog, Schema: schema, Name: name}
		c.byKey[k] = t
		c.list = append(c.list, t)
	}
	return t
}

func (c *collector) lookup(schema, name string) *Table { return c.byKey[[2]string{schema, name}] }

const duckdbColumns = `SELECT c.schema_name, c.table_name, c.column_name, c.data_type, c.comment, t.comment
FROM duckdb_columns() c
JOIN (SELECT database_name, schema_name, table_name, comment FROM duckdb_tables() WHERE NOT internal
      UNION ALL
      SELECT database_name, schema_name, view_name, comment FROM duckdb_views() WHERE NOT internal) t
  ON t.database_name = c.database_name AND t.schema_name = c.schema_name AND t.table_name = c.table_name
WHERE c.database_name = current_database()
ORDER BY c.schema_name, c.table_name, c.column_index`

// DuckDB foreign keys reference a table of the same schema.
const duckdbConstraints = `SELECT schema_name, table_name, constraint_type, constraint_column_names, schema_name, referenced_table, referenced_column_names, constraint_name
FROM duckdb_constraints()
WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')
ORDER BY schema_name, table_name, constraint_index`

func listDuckDB(ctx context.Context, eng engine.Engine) ([]*Table, error) {
	var c collector
	if err := readColumns(ctx, eng, duckdbColumns, "", &c); err != nil {
		return nil, err
	}
	return c.list, readConstraints(ctx, eng, duckdbConstraints, &c, map[string]string{"PRIMARY KEY": "p", "UNIQUE": "u", "FOREIGN KEY": "f"})
}

const postgresColumns = `SELECT n.nspname::text, c.relname::text, a.attname::text,
       pg_catalog.format_type(a.atttypid, a.atttypmod),
       pg_catalog.col_description(c.oid, a.attnum),
       pg_catalog.obj_description(c.oid, 'pg_class')
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
ORDER BY n.nspname, c.relname, a.attnum`

const postgresConstraints = `SELECT n.nspname::text, c.relname::text, con.contype::text,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(num, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord),
       rn.nspname::text, rc.relname::text,
       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(num, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord),
       con.conname::text
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
WHERE con.contype IN ('p', 'u', 'f') AND con.conparentid = 0
ORDER BY n.nspname, c.relname, con.contype, con.conname`

func listPostgres(ctx context.Context, eng engine.Engine) ([]*Table, error) {
	var c collector
	if err := readColumns(ctx, eng, postgresColumns, "", &c); err != nil {
		return nil, err
	}
	return c.list, readConstraints(ctx, eng, postgresConstraints, &c, map[string]string{"p": "p", "u": "u", "f": "f"})
}

func listTrino(ctx context.Context, eng engine.Engine, catalog string) ([]*Table, error) {
	d := dialect.Trino
	q := "SELECT table_schema, table_name, column_name, data_type FROM " + d.QuoteIdent(catalog) +
		".information_schema.columns WHERE table_schema <> 'information_schema' ORDER BY table_schema, table_name, ordinal_position"
	var c collector
	if err := readColumns(ctx, eng, q, catalog, &c); err != nil {
		return nil, err
	}
	// Comments are Trino extensions some connectors and access controls
	// do not serve (information_schema.columns has none); without them the
	// draft is still complete. Table comments: system.metadata.table_comments;
	// column comments: the JDBC metadata table's remarks (what DESCRIBE
	// shows as Comment).
	res, err := eng.Query(ctx, "SELECT schema_name, table_name, comment FROM system.metadata.table_comments WHERE catalog_name = "+d.QuoteString(catalog)+" AND comment IS NOT NULL", 0)
	if err == nil {
		for _, r := range res.Rows {
			if t := c.lookup(str(r[0]), str(r[1])); t != nil {
				t.Comment = str(r[2])
			}
		}
	}
	res, err = eng.Query(ctx, "SELECT table_schem, table_name, column_name, remarks FROM system.jdbc.columns WHERE table_cat = "+d.QuoteString(catalog)+" AND remarks IS NOT NULL AND remarks <> ''", 0)
	if err == nil {
		for _, r := range res.Rows {
			t := c.lookup(str(r[0]), str(r[1]))
			if t == nil {
				continue
			}
			for i := range t.Columns {
				if t.Columns[i].Name == str(r[2]) {
					t.Columns[i].Comment = str(r[3])
				}
			}
		}
	}
	return c.list, nil
}

// readColumns runs a query answering (schema, table, column, type[,
// column comment, table comment]) rows in table and column order.
func readColumns(ctx context.Context, eng engine.Engine, q, catalog string, c *collector) error {
	res, err := eng.Query(ctx, q, 0)
	if err != nil {
		return err
	}
	for _, r := range res.Rows {
		t := c.table(catalog, str(r[0]), str(r[1]))
		col := Column{Name: str(r[2]), Type: str(r[3])}
		if len(r) >= 6 {
			col.Comment = str(r[4])
			t.Comment = str(r[5])
		}
		t.Columns = append(t.Columns, col)
	}
	return nil
}

// readConstraints runs a query answering (schema, table, type, columns,
// referenced schema, referenced table, referenced columns, name) rows;
// kinds maps the engine's type spelling to p (primary), u (unique) or f
// (foreign key).
func readConstraints(ctx context.Context, eng engine.Engine, q string, c *collector, kinds map[string]string) error {
	res, err := eng.Query(ctx, q, 0)
	if err != nil {
		return err
	}
	for _, r := range res.Rows {
		t := c.lookup(str(r[0]), str(r[1]))
		if t == nil {
			continue
		}
		cols := strs(r[3])
		switch kinds[str(r[2])] {
		case "p":
			t.PrimaryKey = cols
		case "u":
			t.UniqueKeys = append(t.UniqueKeys, cols)
		case "f":
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Name: str(r[7]), Columns: cols, RefSchema: str(r[4]), RefTable: str(r[5]), RefColumns: strs(r[6])})
		}
	}
	return nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, str(x))
	}
	return out
}

// SchemaNames lists the distinct schemas of tables in order, for a
// default model name.
func SchemaNames(tables []Table) []string {
	var out []string
	for _, t := range tables {
		if !slices.Contains(out, t.Schema) {
			out = append(out, t.Schema)
		}
	}
	return out
}

// DefaultModelName picks a model name for tables: the one schema or Glue
// database they come from unless it is a generic one (main, public,
// default), else fallback (a database or catalog name), else "model".
func DefaultModelName(tables []Table, fallback string) string {
	if s := SchemaNames(tables); len(s) == 1 && !slices.Contains([]string{"main", "public", "default", "dbo"}, strings.ToLower(s[0])) {
		return s[0]
	}
	if fallback != "" {
		return fallback
	}
	return "model"
}
