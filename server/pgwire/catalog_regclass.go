package pgwire

import "strings"

// systemRelOIDs are the fixed OIDs of PostgreSQL's catalog relations
// (src/include/catalog/pg_*.h), the classoid of pg_description and
// pg_depend rows: clients write 'pg_catalog.pg_class'::regclass to read
// table comments (SQLAlchemy's get_table_comment).
var systemRelOIDs = map[string]int64{
	"pg_type":        1247,
	"pg_attribute":   1249,
	"pg_proc":        1255,
	"pg_class":       oidPgClass,
	"pg_namespace":   2615,
	"pg_constraint":  2606,
	"pg_description": 2609,
	"pg_index":       2610,
	"pg_database":    1262,
	"pg_authid":      1260,
}

// systemRelOID is the OID of the catalog relation schema.name ("" or
// pg_catalog), as a regclass cast resolves it.
func systemRelOID(schema, name string) (int64, bool) {
	if schema != "" && !strings.EqualFold(schema, "pg_catalog") {
		return 0, false
	}
	oid, ok := systemRelOIDs[strings.ToLower(name)]
	return oid, ok
}
