package pgwire

import (
	"maps"
	"slices"
	"strings"
)

// The catalog relations clients query when they connect and browse
// (pg_catalog and information_schema, PostgreSQL chapters 37 and 53),
// filled from the model metadata the caller may read: one namespace per
// model, one relation per model table (relkind 'r', so psql's \dt and
// the drivers' table listings show it), one attribute per column, and
// the descriptions as comments. Object ids are stable within a listing:
// model i is namespace 20000+2i and table 20001+2i.

const (
	oidNamespaceCatalog = 11
	oidNamespaceInfo    = 13000
	oidFirstModel       = 20000
	oidDatabase         = 16384
	oidOwner            = 10
	oidPgClass          = 1259
)

// relation is a virtual catalog table: column names and types, rows.
type relation struct {
	cols  []string
	types []uint32
	rows  [][]any
}

func (r *relation) index(col string) int {
	for i, c := range r.cols {
		if c == col {
			return i
		}
	}
	return -1
}

// rel builds a relation from "name:type" column specs (type: text,
// name, oid, int2, int4, int8, bool, char; default text).
func rel(spec string) *relation {
	r := &relation{}
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		r.cols = append(r.cols, name)
		r.types = append(r.types, map[string]uint32{"": oidText, "text": oidText, "name": oidName, "oid": oidOID, "int2": oidInt2,
			"int4": oidInt4, "int8": oidInt8, "bool": oidBool, "char": oidChar, "float8": oidFloat8}[typ])
	}
	return r
}

func (r *relation) add(vals ...any) { r.rows = append(r.rows, vals) }

func nsOID(i int) int64  { return int64(oidFirstModel + 2*i) }
func relOID(i int) int64 { return int64(oidFirstModel + 2*i + 1) }

// catalogRelation returns the relation schema.name for the caller's
// catalog; ok=false when it is not a catalog relation. Catalog relations
// this endpoint does not model (indexes, constraints, triggers...) are
// empty: a model table has none of them.
func (c *catalog) relation(schema, name, user, database string) (*relation, bool) {
	schema, name = strings.ToLower(schema), strings.ToLower(name)
	if schema == "information_schema" {
		return c.infoSchema(name, database)
	}
	if schema != "" && schema != "pg_catalog" {
		return nil, false
	}
	switch name {
	case "pg_namespace":
		r := rel("oid:oid nspname:name nspowner:oid nspacl")
		r.add(int64(oidNamespaceCatalog), "pg_catalog", int64(oidOwner), nil)
		r.add(int64(oidNamespaceInfo), "information_schema", int64(oidOwner), nil)
		for i, t := range c.tables {
			r.add(nsOID(i), t.Schema, int64(oidOwner), nil)
		}
		return r, true
	case "pg_class":
		r := rel("oid:oid relname:name relnamespace:oid relkind:char relowner:oid reltuples:float8 relpages:int4 relhasindex:bool relpersistence:char " +
			"relchecks:int2 relhasrules:bool relhastriggers:bool relrowsecurity:bool relforcerowsecurity:bool relispartition:bool " +
			"reltablespace:oid reloftype:oid relam:oid reloptions relpartbound relhassubclass:bool relnatts:int2 relreplident:char relacl reltoastrelid:oid")
		for i, t := range c.tables {
			r.add(relOID(i), t.Name, nsOID(i), "r", int64(oidOwner), float64(-1), int64(0), false, "p",
				int64(0), false, false, false, false, false, int64(0), int64(0), int64(2), nil, nil, false, int64(len(t.Columns)), "d", nil, int64(0))
		}
		return r, true
	case "pg_attribute":
		r := rel("attrelid:oid attname:name atttypid:oid attnum:int2 attnotnull:bool attisdropped:bool atttypmod:int4 atthasdef:bool " +
			"attidentity:char attgenerated:char attcollation:oid attlen:int2 attstattarget:int4 attndims:int4 attislocal:bool attinhcount:int4 attstorage:char attcompression:char attacl attoptions attfdwoptions")
		for i, t := range c.tables {
			for j, col := range t.Columns {
				oid := selItem{col: &t.Columns[j]}.oid()
				r.add(relOID(i), col.Name, int64(oid), int64(j+1), false, false, int64(-1), false, "", "", int64(0), int64(typeSize(oid)), int64(-1), int64(0), true, int64(0), "p", "", nil, nil, nil)
			}
		}
		return r, true
	case "pg_description":
		r := rel("objoid:oid classoid:oid objsubid:int4 description")
		for i, t := range c.tables {
			if t.Description != "" {
				r.add(relOID(i), int64(oidPgClass), int64(0), t.Description)
			}
			for j, col := range t.Columns {
				if col.Description != "" {
					r.add(relOID(i), int64(oidPgClass), int64(j+1), col.Description)
				}
			}
		}
		return r, true
	case "pg_type":
		r := rel("oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool typtype:char typcategory:char typisdefined:bool " +
			"typdelim:char typrelid:oid typelem:oid typarray:oid typbasetype:oid typtypmod:int4 typnotnull:bool typndims:int4 typcollation:oid typinput:oid typoutput:oid typdefault " +
			"typreceive:oid typsend:oid")
		for _, t := range []struct {
			oid uint32
			cat string
		}{{oidBool, "B"}, {oidInt8, "N"}, {oidInt4, "N"}, {oidInt2, "N"}, {oidText, "S"}, {oidOID, "N"}, {oidFloat8, "N"}, {oidVarchar, "S"},
			{oidDate, "D"}, {oidTime, "D"}, {oidTimestamp, "D"}, {oidTimestampTz, "D"}, {oidNumeric, "N"}, {oidName, "S"}, {oidChar, "Z"}} {
			r.add(int64(t.oid), pgTypname[t.oid], int64(oidNamespaceCatalog), int64(oidOwner), int64(typeSize(t.oid)), typeSize(t.oid) > 0 && typeSize(t.oid) <= 8,
				"b", t.cat, true, ",", int64(0), int64(0), int64(0), int64(0), int64(-1), false, int64(0), int64(0), int64(0), int64(0), nil,
				int64(typeReceive[t.oid].oid), int64(0))
		}
		return r, true
	case "pg_proc":
		// The receive functions of the types above: Npgsql 4 (Power BI)
		// inner-joins pg_type to pg_proc on typreceive to learn the types.
		r := rel("oid:oid proname:name pronamespace:oid proowner:oid prolang:oid prokind:char proretset:bool provolatile:char pronargs:int2 prorettype:oid proargtypes")
		for _, oid := range slices.Sorted(maps.Keys(typeReceive)) {
			f := typeReceive[oid]
			r.add(int64(f.oid), f.name, int64(oidNamespaceCatalog), int64(oidOwner), int64(12), "f", false, "i", int64(3), int64(oid), "2281 26 23")
		}
		return r, true
	case "pg_database":
		r := rel("oid:oid datname:name datdba:oid encoding:int4 datcollate:name datctype:name datistemplate:bool datallowconn:bool datconnlimit:int4 dattablespace:oid datacl")
		r.add(int64(oidDatabase), database, int64(oidOwner), int64(6), "C", "C", false, true, int64(-1), int64(1663), nil)
		return r, true
	case "pg_roles", "pg_user", "pg_authid":
		r := rel("oid:oid rolname:name usename:name rolsuper:bool usesuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolvaliduntil rolbypassrls:bool rolconfig usesysid:oid")
		r.add(int64(oidOwner), user, user, false, false, true, false, false, true, false, int64(-1), nil, false, nil, int64(oidOwner))
		return r, true
	case "pg_settings":
		r := rel("name setting unit category short_desc extra_desc context vartype source min_val max_val enumvals boot_val reset_val")
		return r, true
	case "pg_tables":
		r := rel("schemaname:name tablename:name tableowner:name tablespace:name hasindexes:bool hasrules:bool hastriggers:bool rowsecurity:bool")
		for _, t := range c.tables {
			r.add(t.Schema, t.Name, user, nil, false, false, false, false)
		}
		return r, true
	case "pg_views", "pg_matviews":
		return rel("schemaname:name viewname:name matviewname:name viewowner:name definition"), true
	case "pg_am":
		r := rel("oid:oid amname:name amtype:char")
		r.add(int64(2), "heap", "t")
		return r, true
	}
	if strings.HasPrefix(name, "pg_") {
		return &relation{}, true // a catalog of things model tables do not have
	}
	return nil, false
}

// typeReceive is each type's binary receive function, by the OIDs of
// PostgreSQL's pg_proc.dat.
var typeReceive = map[uint32]struct {
	oid  uint32
	name string
}{oidBool: {2436, "boolrecv"}, oidInt8: {2408, "int8recv"}, oidInt4: {2406, "int4recv"}, oidInt2: {2404, "int2recv"},
	oidText: {2414, "textrecv"}, oidOID: {2418, "oidrecv"}, oidFloat8: {2426, "float8recv"}, oidVarchar: {2432, "varcharrecv"},
	oidDate: {2468, "date_recv"}, oidTime: {2470, "time_recv"}, oidTimestamp: {2474, "timestamp_recv"},
	oidTimestampTz: {2476, "timestamptz_recv"}, oidNumeric: {2460, "numeric_recv"}, oidName: {2422, "namerecv"}, oidChar: {2434, "charrecv"}}

var pgTypname = map[uint32]string{oidBool: "bool", oidInt8: "int8", oidInt4: "int4", oidInt2: "int2", oidText: "text", oidOID: "oid",
	oidFloat8: "float8", oidVarchar: "varchar", oidDate: "date", oidTime: "time", oidTimestamp: "timestamp", oidTimestampTz: "timestamptz",
	oidNumeric: "numeric", oidName: "name", oidChar: "char"}

// infoSchema is the information_schema view name (SQL standard part 11).
func (c *catalog) infoSchema(name, database string) (*relation, bool) {
	switch name {
	case "schemata":
		r := rel("catalog_name schema_name schema_owner default_character_set_catalog default_character_set_schema default_character_set_name sql_path")
		for _, t := range c.tables {
			r.add(database, t.Schema, "ossie", nil, nil, nil, nil)
		}
		return r, true
	case "tables":
		r := rel("table_catalog table_schema table_name table_type self_referencing_column_name reference_generation user_defined_type_catalog user_defined_type_schema user_defined_type_name is_insertable_into is_typed commit_action")
		for _, t := range c.tables {
			r.add(database, t.Schema, t.Name, "BASE TABLE", nil, nil, nil, nil, nil, "NO", "NO", nil)
		}
		return r, true
	case "columns":
		r := rel("table_catalog table_schema table_name column_name ordinal_position:int4 column_default is_nullable data_type character_maximum_length:int4 " +
			"numeric_precision:int4 numeric_scale:int4 datetime_precision:int4 udt_catalog udt_schema udt_name is_identity is_generated is_updatable")
		for _, t := range c.tables {
			for j, col := range t.Columns {
				oid := selItem{col: &t.Columns[j]}.oid()
				var prec any
				if oid == oidTimestamp || oid == oidTimestampTz || oid == oidTime {
					prec = int64(6)
				}
				r.add(database, t.Schema, t.Name, col.Name, int64(j+1), nil, "YES", typeName(oid), nil, nil, nil, prec, database, "pg_catalog", pgTypname[oid], "NO", "NEVER", "NO")
			}
		}
		return r, true
	case "views", "routines", "parameters", "table_constraints", "key_column_usage", "referential_constraints", "constraint_column_usage", "check_constraints", "triggers", "sequences":
		return &relation{}, true
	}
	return nil, false
}
