// Package catalog drafts Ossie documents from table metadata: it reads
// tables and columns from AWS Glue (glue.go) or from a query engine's own
// catalog (engine.go: DuckDB, PostgreSQL, Trino — including Trino catalogs
// backed by Polaris/Iceberg REST or Glue), maps engine and Hive types to
// Ossie datatypes (types.go) and turns the tables into a valid Ossie
// document (draft.go). It is authoring code for ossiectl (issue 6): the
// operator never reads catalogs and needs no catalog credentials.
package catalog

// Table is one table or view as a catalog describes it.
type Table struct {
	// Catalog, Schema and Name locate the table as the query engine names
	// it; Catalog is empty when the source path should omit it (the
	// engine's default catalog applies).
	Catalog, Schema, Name string
	// Comment is the table's description in the catalog ("" when none).
	Comment string
	// Columns in the catalog's order; Glue partition keys come last.
	Columns []Column
	// PrimaryKey lists column names (physical, not field names); empty
	// when the catalog declares none or cannot know (Glue, Trino).
	PrimaryKey []string
	// UniqueKeys lists declared unique constraints, each a column list.
	UniqueKeys [][]string
	// ForeignKeys are declared references to other tables.
	ForeignKeys []ForeignKey
}

// Column is one column of a Table.
type Column struct {
	Name string
	// Type is the type as the catalog spells it: a Hive type string for
	// Glue ("decimal(10,2)", "array<string>"), the engine's type name
	// otherwise ("TIMESTAMP WITH TIME ZONE", "numeric(12,2)", "row(a integer)").
	Type    string
	Comment string
	// Partition marks a Glue/Hive partition key.
	Partition bool
}

// ForeignKey is a declared reference from Columns of the owning table to
// RefColumns of the table RefSchema.RefTable (same catalog).
type ForeignKey struct {
	Name                string
	Columns             []string
	RefSchema, RefTable string
	RefColumns          []string
}
