package engine

import (
	"context"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Materializer is implemented by engines that can hold the rollup tables
// the operator builds in its write schema (issue 18, docs/rollups.md). A
// build never leaves a reader without the last good table: the new rows
// go to a table of another name (BuildName) that replaces the old one only
// once it is complete, in the same transaction on engines with
// transactional DDL (DuckDB, PostgreSQL). Relations (of Viewer) lists the
// tables with their comments, which carry the ownership marks.
type Materializer interface {
	Viewer
	// BuildTable creates schema when it is missing, runs t.Query into the
	// table BuildName(t.Name), comments it with t.Comment, replaces t.Name
	// with it and returns the rows the new table holds. On any failure the
	// table t.Name, if it existed, is unchanged.
	BuildTable(ctx context.Context, t TableDef) (rows int64, err error)
	// RefreshTable replaces the rows of the existing table t.Name that r
	// names with the rows of t.Query
	// (which must select only such rows, with the table's columns in
	// order), sets its comment to t.Comment and returns the rows the table
	// holds. On any failure the table is unchanged.
	RefreshTable(ctx context.Context, t TableDef, r Refresh) (rows int64, err error)
	// DropTable drops the table schema.name if it exists.
	DropTable(ctx context.Context, schema []string, name string) error
}

// TableDef is a table to build from a SELECT.
type TableDef struct {
	Schema  []string // [schema] or [catalog, schema]
	Name    string
	Query   string // the SELECT whose rows the table holds, in the engine's dialect
	Comment string
}

// Refresh names the rows an incremental refresh replaces: those whose
// Column (a time column of the table) is at or after Since and, when
// Until is set, before Until (the partitions [Since, Until)).
type Refresh struct {
	Column string
	Since  time.Time
	Until  time.Time
}

// predicate is the SQL condition of the rows r replaces.
func (r Refresh) predicate(d dialect.Dialect) string {
	col := d.QuoteIdent(r.Column)
	p := col + " >= " + SinceLiteral(d, r.Since)
	if !r.Until.IsZero() {
		p += " AND " + col + " < " + SinceLiteral(d, r.Until)
	}
	return p
}

// buildSuffix marks the table a build writes before it replaces the
// rollup table; a leftover one (a Trino build stopped half-way) is
// dropped by the next build of the same name.
const buildSuffix = "__ossie_build"

// BuildName is the name of the table a build of name writes first.
func BuildName(name string) string { return name + buildSuffix }

// IsBuildName reports whether name is a BuildName.
func IsBuildName(name string) bool {
	return len(name) > len(buildSuffix) && name[len(name)-len(buildSuffix):] == buildSuffix
}

// TablePath is the quoted, qualified name of table name in schema.
func TablePath(d dialect.Dialect, schema []string, name string) string {
	return QuotePath(d.QuoteIdent, append(append([]string(nil), schema...), name)...)
}

// BuildStatements are the statements that build t under BuildName(t.Name)
// and then put it in the place of t.Name, in order: drop a leftover build
// table, CREATE TABLE AS, COMMENT ON TABLE, DROP TABLE IF EXISTS of the old
// table and the rename. rename is how the engine spells the rename of the
// build table to t.Name. The schema is not created here.
func BuildStatements(d dialect.Dialect, t TableDef, rename string) []string {
	tmp := TablePath(d, t.Schema, BuildName(t.Name))
	return []string{
		"DROP TABLE IF EXISTS " + tmp,
		"CREATE TABLE " + tmp + " AS " + t.Query,
		"COMMENT ON TABLE " + tmp + " IS " + d.QuoteString(t.Comment),
		"DROP TABLE IF EXISTS " + TablePath(d, t.Schema, t.Name),
		"ALTER TABLE " + tmp + " RENAME TO " + rename,
	}
}

// RefreshStatements are the statements of an incremental refresh on an
// engine with transactional DML: DELETE of the rows r names,
// INSERT of t.Query, COMMENT ON TABLE. The caller runs them in one
// transaction.
func RefreshStatements(d dialect.Dialect, t TableDef, r Refresh) []string {
	rel := TablePath(d, t.Schema, t.Name)
	return []string{
		"DELETE FROM " + rel + " WHERE " + r.predicate(d),
		"INSERT INTO " + rel + " " + t.Query,
		"COMMENT ON TABLE " + rel + " IS " + d.QuoteString(t.Comment),
	}
}

// KeptRowsQuery is the SELECT of the rows of t.Name an incremental refresh
// keeps (those r does not name, rows without a time included) followed by
// the fresh rows of t.Query: the whole new table, for engines that rebuild
// instead of deleting.
func KeptRowsQuery(d dialect.Dialect, t TableDef, r Refresh) string {
	return "SELECT * FROM " + TablePath(d, t.Schema, t.Name) + " WHERE " + d.QuoteIdent(r.Column) + " IS NULL OR NOT (" + r.predicate(d) + ")" +
		" UNION ALL (" + t.Query + ")"
}

// SinceLiteral renders t as a TIMESTAMP literal (UTC wall time, microseconds).
func SinceLiteral(d dialect.Dialect, t time.Time) string {
	return "CAST(" + d.QuoteString(t.UTC().Format("2006-01-02 15:04:05.999999")) + " AS " + d.TypeName("TIMESTAMP") + ")"
}

// CountStatement counts the rows of table name in schema.
func CountStatement(d dialect.Dialect, schema []string, name string) string {
	return "SELECT count(*) FROM " + TablePath(d, schema, name)
}
