package pgwire

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The catalog statements BI tools send when they connect, sync a
// database or open a table, in the form each sends them: Npgsql (Power
// BI's driver) in one simple-protocol batch, Metabase and DBeaver through
// pgjdbc's extended protocol with parameters, Power BI's navigator and
// Superset's table inspection. Neither Metabase, DBeaver, Power BI nor a
// .NET runtime installs here, so the statements are replayed through pgx;
// the drivers they run on (pgjdbc, SQLAlchemy) are driven for real in
// jdbc_test.go and clients_python_test.go. Each statement must succeed,
// and the rows a tool reads its metadata from are checked.

// npgsqlTypesBatch has the shape of the batch Npgsql 8-10 sends on its
// first connection to load the server's types: version(), the types
// with their array element, range subtype and domain base type (nested
// FROM subqueries over pg_type, pg_class, pg_proc and pg_range), the
// fields of free-standing composites and the enum labels. Npgsql reads
// nspname, oid, typname, typtype and typnotnull as non-null text.
const npgsqlTypesBatch = `SELECT version();

SELECT ns.nspname, t.oid, t.typname, t.typtype, t.typnotnull, t.elemtypoid
FROM (
    -- the type and its element type, arrays told apart by their receive function
    SELECT typ.oid, typ.typnamespace, typ.typname, typ.typtype, typ.typrelid, typ.typnotnull, typ.relkind,
        elemtyp.oid AS elemtypoid, elemtyp.typname AS elemtypname, elemcls.relkind AS elemrelkind,
        CASE WHEN elemproc.proname = 'array_recv' THEN 'a' ELSE elemtyp.typtype END AS elemtyptype
    FROM (
        SELECT typ.oid, typnamespace, typname, typrelid, typnotnull, relkind, typelem AS elemoid,
            CASE WHEN proc.proname = 'array_recv' THEN 'a' ELSE typ.typtype END AS typtype,
            CASE
                WHEN proc.proname = 'array_recv' THEN typ.typelem
                WHEN typ.typtype = 'r' THEN rngsubtype
                WHEN typ.typtype = 'm' THEN (SELECT rngtypid FROM pg_range WHERE rngmultitypid = typ.oid)
                WHEN typ.typtype = 'd' THEN typ.typbasetype
            END AS elemtypoid
        FROM pg_type AS typ
        LEFT JOIN pg_class AS cls ON (cls.oid = typ.typrelid)
        LEFT JOIN pg_proc AS proc ON proc.oid = typ.typreceive
        LEFT JOIN pg_range ON (pg_range.rngtypid = typ.oid)
    ) AS typ
    LEFT JOIN pg_type AS elemtyp ON elemtyp.oid = elemtypoid
    LEFT JOIN pg_class AS elemcls ON (elemcls.oid = elemtyp.typrelid)
    LEFT JOIN pg_proc AS elemproc ON elemproc.oid = elemtyp.typreceive
) AS t
JOIN pg_namespace AS ns ON (ns.oid = typnamespace)
WHERE
    typtype IN ('b', 'r', 'm', 'e', 'd') OR
    (typtype = 'c' AND relkind = 'c') OR
    (typtype = 'p' AND typname IN ('record', 'void')) OR
    (typtype = 'a' AND (
        elemtyptype IN ('b', 'r', 'm', 'e', 'd') OR
        (elemtyptype = 'p' AND elemtypname IN ('record', 'void')) OR
        (elemtyptype = 'c' AND elemrelkind = 'c')
    ))
ORDER BY CASE
    WHEN typtype IN ('b', 'e', 'p') THEN 0
    WHEN typtype = 'r' THEN 1
    WHEN typtype = 'm' THEN 2
    WHEN typtype = 'c' THEN 3
    WHEN typtype = 'd' AND elemtyptype <> 'a' THEN 4
    WHEN typtype = 'a' THEN 5
    WHEN typtype = 'd' AND elemtyptype = 'a' THEN 6
END;

-- fields of free-standing composite types
SELECT typ.oid, att.attname, att.atttypid
FROM pg_type AS typ
JOIN pg_namespace AS ns ON (ns.oid = typ.typnamespace)
JOIN pg_class AS cls ON (cls.oid = typ.typrelid)
JOIN pg_attribute AS att ON (att.attrelid = typ.typrelid)
WHERE (typ.typtype = 'c' AND cls.relkind = 'c') AND attnum > 0 AND NOT attisdropped
ORDER BY typ.oid, att.attnum;

-- enum labels
SELECT pg_type.oid, enumlabel
FROM pg_enum
JOIN pg_type ON pg_type.oid = enumtypid
ORDER BY oid, enumsortorder;
`

// TestNpgsqlTypeLoading: the batch answers four results, and the types
// result has every type a model column can have, by its PostgreSQL OID,
// with no NULL where Npgsql reads a non-null string.
func TestNpgsqlTypeLoading(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	res, err := c.PgConn().Exec(context.Background(), npgsqlTypesBatch).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	if len(res[0].Rows) != 1 || !strings.HasPrefix(string(res[0].Rows[0][0]), "PostgreSQL ") {
		t.Errorf("version(): %q", res[0].Rows)
	}
	byOID := map[string]string{}
	for _, r := range res[1].Rows {
		for i := 0; i < 5; i++ {
			if r[i] == nil {
				t.Fatalf("a NULL in column %d of type row %q", i, r)
			}
		}
		if string(r[3]) == "a" && r[5] == nil {
			t.Errorf("array type %s without its element type", r[2])
		}
		byOID[string(r[1])] = string(r[0]) + "." + string(r[2]) + ":" + string(r[3]) + ":" + string(r[4])
	}
	for oid, want := range map[string]string{"16": "pg_catalog.bool:b:f", "20": "pg_catalog.int8:b:f", "23": "pg_catalog.int4:b:f",
		"25": "pg_catalog.text:b:f", "701": "pg_catalog.float8:b:f", "1082": "pg_catalog.date:b:f", "1114": "pg_catalog.timestamp:b:f",
		"1184": "pg_catalog.timestamptz:b:f", "1700": "pg_catalog.numeric:b:f", "1043": "pg_catalog.varchar:b:f"} {
		if byOID[oid] != want {
			t.Errorf("type %s: %q, want %q", oid, byOID[oid], want)
		}
	}
	if len(res[2].Rows) != 0 || len(res[3].Rows) != 0 {
		t.Errorf("composite fields %q, enum labels %q: want none", res[2].Rows, res[3].Rows)
	}
}

// biStatement is one statement a tool sends; check, when set, looks at
// its rows.
type biStatement struct {
	name  string
	sql   string
	args  []any
	check func(t *testing.T, cols []string, rows [][]any)
}

// runBI runs each statement through the extended protocol and reports
// every failure, not only the first.
func runBI(t *testing.T, c *pgx.Conn, stmts []biStatement) {
	t.Helper()
	for _, s := range stmts {
		t.Run(s.name, func(t *testing.T) {
			rows, err := c.Query(context.Background(), s.sql, s.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, s.sql)
			}
			var cols []string
			for _, fd := range rows.FieldDescriptions() {
				cols = append(cols, fd.Name)
			}
			got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
			if err != nil {
				t.Fatalf("%v\n%s", err, s.sql)
			}
			if s.check != nil {
				s.check(t, cols, normRows(got))
			}
		})
	}
}

// wantRows checks the rows as text.
func wantRows(want ...string) func(t *testing.T, cols []string, rows [][]any) {
	return func(t *testing.T, cols []string, rows [][]any) {
		t.Helper()
		var got []string
		for _, r := range rows {
			var vals []string
			for _, v := range r {
				vals = append(vals, fmt.Sprint(v))
			}
			got = append(got, strings.Join(vals, " "))
		}
		if !slices.Equal(got, want) {
			t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// wantColumn checks that column col of the rows, in order, is want.
func wantColumn(col string, want ...string) func(t *testing.T, cols []string, rows [][]any) {
	return func(t *testing.T, cols []string, rows [][]any) {
		t.Helper()
		i := slices.Index(cols, col)
		if i < 0 {
			t.Fatalf("no column %q in %v", col, cols)
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprint(r[i]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", col, got, want)
		}
	}
}

const shopDescription = "Orders of a small shop and the customers who placed them."

// Power BI Desktop connects through Npgsql 4, whose type query joins
// pg_proc on each type's receive function (an inner join: without
// pg_proc rows Npgsql 4 knows no types and reads every column as text),
// then its navigator lists tables and columns from information_schema.
func TestPowerBICatalog(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	runBI(t, c, []biStatement{
		{name: "types", sql: `/*** Load all supported types ***/
SELECT ns.nspname, a.typname, a.oid, a.typrelid, a.typbasetype,
  CASE WHEN pg_proc.proname = 'array_recv' THEN 'a' ELSE a.typtype END AS type,
  CASE WHEN pg_proc.proname = 'array_recv' THEN a.typelem WHEN a.typtype = 'r' THEN rngsubtype ELSE 0 END AS elemoid,
  CASE WHEN pg_proc.proname IN ('array_recv', 'oidvectorrecv') THEN 3 WHEN a.typtype = 'r' THEN 2 WHEN a.typtype = 'd' THEN 1 ELSE 0 END AS ord
FROM pg_type AS a
JOIN pg_namespace AS ns ON (ns.oid = a.typnamespace)
JOIN pg_proc ON pg_proc.oid = a.typreceive
LEFT OUTER JOIN pg_class AS cls ON (cls.oid = a.typrelid)
LEFT OUTER JOIN pg_type AS b ON (b.oid = a.typelem)
LEFT OUTER JOIN pg_class AS elemcls ON (elemcls.oid = b.typrelid)
LEFT OUTER JOIN pg_range ON (pg_range.rngtypid = a.oid)
WHERE a.typtype IN ('b', 'r', 'e', 'd') OR (a.typtype = 'c' AND cls.relkind = 'c')
  OR (pg_proc.proname = 'array_recv' AND (b.typtype IN ('b', 'r', 'e', 'd') OR (b.typtype = 'p' AND b.typname IN ('record', 'void')) OR (b.typtype = 'c' AND elemcls.relkind = 'c')))
  OR (a.typtype = 'p' AND a.typname IN ('record', 'void'))
ORDER BY ord, a.typname`, check: func(t *testing.T, cols []string, rows [][]any) {
			var base []string
			for _, r := range rows {
				if fmt.Sprint(r[5]) == "b" {
					base = append(base, fmt.Sprint(r[1]))
				}
			}
			for _, want := range []string{"bool", "date", "float8", "int4", "int8", "numeric", "text", "timestamp", "timestamptz", "varchar"} {
				if !slices.Contains(base, want) {
					t.Errorf("base type %s missing from %v", want, base)
				}
			}
		}},
		{name: "schemas", sql: `select TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE from INFORMATION_SCHEMA.tables
where TABLE_SCHEMA not in ('information_schema', 'pg_catalog') order by TABLE_SCHEMA, TABLE_NAME`,
			check: wantRows("missing missing BASE TABLE", "shop shop BASE TABLE", "slow slow BASE TABLE")},
		{name: "columns", sql: `select COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE,
  case when (data_type like '%unsigned%') then DATA_TYPE || ' unsigned' else DATA_TYPE end as DATA_TYPE
from INFORMATION_SCHEMA.columns where TABLE_SCHEMA = 'shop' and TABLE_NAME = 'shop'
order by TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
			check: wantColumn("data_type", "bigint", "bigint", "text", "date", "numeric", "text", "text", "bigint", "numeric", "numeric")},
		{name: "foreign keys", sql: `select pkcol.COLUMN_NAME as PK_COLUMN_NAME, fkcol.TABLE_SCHEMA AS FK_TABLE_SCHEMA, fkcol.TABLE_NAME AS FK_TABLE_NAME,
  fkcol.COLUMN_NAME as FK_COLUMN_NAME, fkcol.ORDINAL_POSITION as ORDINAL,
  fkcon.CONSTRAINT_SCHEMA || '_' || fkcol.TABLE_NAME || '_' || 'shop' || '_' || fkcon.CONSTRAINT_NAME as FK_NAME
from (select distinct constraint_catalog, constraint_schema, unique_constraint_schema, constraint_name, unique_constraint_name
      from INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS) fkcon
  inner join INFORMATION_SCHEMA.KEY_COLUMN_USAGE fkcol on fkcon.CONSTRAINT_SCHEMA = fkcol.CONSTRAINT_SCHEMA and fkcon.CONSTRAINT_NAME = fkcol.CONSTRAINT_NAME
  inner join INFORMATION_SCHEMA.KEY_COLUMN_USAGE pkcol on fkcon.UNIQUE_CONSTRAINT_SCHEMA = pkcol.CONSTRAINT_SCHEMA and fkcon.UNIQUE_CONSTRAINT_NAME = pkcol.CONSTRAINT_NAME
where pkcol.TABLE_SCHEMA = 'shop' and pkcol.TABLE_NAME = 'shop' and pkcol.ORDINAL_POSITION = fkcol.ORDINAL_POSITION
order by FK_NAME, fkcol.ORDINAL_POSITION`, check: wantRows()},
		{name: "keys", sql: `select i.CONSTRAINT_SCHEMA || '_' || i.CONSTRAINT_NAME as INDEX_NAME, ii.COLUMN_NAME, ii.ORDINAL_POSITION,
  case when i.CONSTRAINT_TYPE = 'PRIMARY KEY' then 'Y' else 'N' end as PRIMARY_KEY
from INFORMATION_SCHEMA.table_constraints i
inner join INFORMATION_SCHEMA.key_column_usage ii on i.CONSTRAINT_SCHEMA = ii.CONSTRAINT_SCHEMA and i.CONSTRAINT_NAME = ii.CONSTRAINT_NAME
  and i.TABLE_SCHEMA = ii.TABLE_SCHEMA and i.TABLE_NAME = ii.TABLE_NAME
where i.TABLE_SCHEMA = 'shop' and i.TABLE_NAME = 'shop' and i.CONSTRAINT_TYPE in ('PRIMARY KEY', 'UNIQUE')
order by i.CONSTRAINT_SCHEMA || '_' || i.CONSTRAINT_NAME, ii.TABLE_SCHEMA, ii.TABLE_NAME, ii.ORDINAL_POSITION`, check: wantRows()},
	})
}

// Metabase's sync (its PostgreSQL driver over pgjdbc): the time zone,
// the tables with their comments, the caller's table privileges, the
// fields of each table (information_schema.columns with the comments
// by regclass, and the materialized views' columns from pg_attribute),
// foreign keys and enum types.
func TestMetabaseSync(t *testing.T) {
	f := newFixture(t, false, Options{})
	runBI(t, f.connect(t, ""), metabaseStatements())
}

func metabaseStatements() []biStatement {
	return []biStatement{
		{name: "connect", sql: `SELECT 1`},
		// The session's zone: the server's default, or the client's
		// (pgjdbc sends the JVM's as the TimeZone startup parameter).
		{name: "timezone", sql: `show timezone;`, check: func(t *testing.T, cols []string, rows [][]any) {
			if len(rows) != 1 {
				t.Fatalf("rows %v", rows)
			}
			if _, err := time.LoadLocation(fmt.Sprint(rows[0][0])); err != nil || rows[0][0] == "" {
				t.Errorf("time zone %v: %v", rows[0][0], err)
			}
		}},
		{name: "tables", sql: `SELECT n.nspname AS schema, c.relname AS name,
  CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END AS type,
  d.description AS description, stat.n_live_tup AS estimated_row_count
FROM pg_catalog.pg_class AS c
INNER JOIN pg_catalog.pg_namespace AS n ON c.relnamespace = n.oid
LEFT JOIN pg_catalog.pg_description AS d ON (c.oid = d.objoid) AND (d.objsubid = 0) AND (d.classoid = 'pg_class'::regclass)
LEFT JOIN pg_stat_user_tables AS stat ON (n.nspname = stat.schemaname) AND (c.relname = stat.relname)
WHERE (c.relnamespace = n.oid) AND (n.nspname !~ '^pg_') AND (n.nspname <> 'information_schema') AND c.relkind in ('r', 'p', 'v', 'f', 'm')
  AND (n.nspname IN ($1, $2))
ORDER BY type ASC, schema ASC, name ASC`, args: []any{"shop", "slow"},
			check: func(t *testing.T, cols []string, rows [][]any) {
				wantColumn("name", "shop", "slow")(t, cols, rows)
				wantColumn("description", shopDescription, "<nil>")(t, cols, rows)
			}},
		{name: "privileges", sql: `with table_privileges as (
 select
   NULL as role,
   t.schemaname as schema,
   t.objectname as table,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'update') as update,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'select') as select,
   pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'insert') as insert,
   pg_catalog.has_table_privilege(     current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'delete') as delete
 from (
   select schemaname, tablename as objectname from pg_catalog.pg_tables
   union
   select schemaname, viewname as objectname from pg_catalog.pg_views
   union
   select schemaname, matviewname as objectname from pg_catalog.pg_matviews
 ) t
 where t.schemaname !~ '^pg_'
   and t.schemaname <> 'information_schema'
   and pg_catalog.has_schema_privilege(current_user, t.schemaname, 'usage')
)
select t.*
from table_privileges t`, check: wantRows("<nil> missing missing false true false false", "<nil> shop shop false true false false", "<nil> slow slow false true false false")},
		{name: "fields", sql: `SELECT "c"."column_name" AS "name",
  CASE WHEN "c"."udt_schema" IN ('public', 'pg_catalog') THEN FORMAT('%s', "c"."udt_name") ELSE FORMAT('"%s"."%s"', "c"."udt_schema", "c"."udt_name") END AS "database-type",
  "c"."ordinal_position" - 1 AS "database-position", "c"."table_schema" AS "table-schema", "c"."table_name" AS "table-name",
  "pk"."column_name" IS NOT NULL AS "pk?",
  COL_DESCRIPTION(CAST(CAST(FORMAT('%I.%I', CAST("c"."table_schema" AS TEXT), CAST("c"."table_name" AS TEXT)) AS REGCLASS) AS OID), "c"."ordinal_position") AS "field-comment",
  (("column_default" IS NULL) OR (LOWER("column_default") = 'null')) AND ("is_nullable" = 'NO') AND NOT ((("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO')) AS "database-required",
  (("column_default" IS NOT NULL) AND ("column_default" LIKE '%nextval(%')) OR ("is_identity" <> 'NO') AS "database-is-auto-increment"
FROM "information_schema"."columns" AS "c"
LEFT JOIN (SELECT "tc"."table_schema", "tc"."table_name", "kc"."column_name" FROM "information_schema"."table_constraints" AS "tc"
  INNER JOIN "information_schema"."key_column_usage" AS "kc" ON ("tc"."constraint_name" = "kc"."constraint_name") AND ("tc"."table_schema" = "kc"."table_schema") AND ("tc"."table_name" = "kc"."table_name")
  WHERE "tc"."constraint_type" = 'PRIMARY KEY') AS "pk"
  ON ("c"."table_schema" = "pk"."table_schema") AND ("c"."table_name" = "pk"."table_name") AND ("c"."column_name" = "pk"."column_name")
WHERE c.table_schema !~ '^information_schema|catalog_history|pg_' AND ("c"."table_schema" IN ($1)) AND ("c"."table_name" IN ($2))
UNION ALL
SELECT "pa"."attname" AS "name",
  CASE WHEN "ptn"."nspname" IN ('public', 'pg_catalog') THEN FORMAT('%s', "pt"."typname") ELSE FORMAT('"%s"."%s"', "ptn"."nspname", "pt"."typname") END AS "database-type",
  "pa"."attnum" - 1 AS "database-position", "pn"."nspname" AS "table-schema", "pc"."relname" AS "table-name",
  FALSE AS "pk?", NULL AS "field-comment", FALSE AS "database-required", FALSE AS "database-is-auto-increment"
FROM "pg_catalog"."pg_class" AS "pc"
INNER JOIN "pg_catalog"."pg_namespace" AS "pn" ON "pn"."oid" = "pc"."relnamespace"
INNER JOIN "pg_catalog"."pg_attribute" AS "pa" ON "pa"."attrelid" = "pc"."oid"
INNER JOIN "pg_catalog"."pg_type" AS "pt" ON "pt"."oid" = "pa"."atttypid"
INNER JOIN "pg_catalog"."pg_namespace" AS "ptn" ON "ptn"."oid" = "pt"."typnamespace"
WHERE ("pc"."relkind" = 'm') AND ("pa"."attnum" >= 1) AND ("pn"."nspname" IN ($3)) AND ("pc"."relname" IN ($4))
ORDER BY "table-schema" ASC, "table-name" ASC, "database-position" ASC`, args: []any{"shop", "shop", "shop", "shop"},
			check: func(t *testing.T, cols []string, rows [][]any) {
				wantColumn("name", "orders_order_id", "orders_customer_id", "orders_status", "orders_order_date", "orders_amount",
					"customers_customer_id", "customers_state", "order_count", "revenue", "avg_amount")(t, cols, rows)
				wantColumn("database-type", "int8", "int8", "text", "date", "numeric", "text", "text", "int8", "numeric", "numeric")(t, cols, rows)
				wantColumn("database-position", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")(t, cols, rows)
				wantColumn("field-comment", "<nil>", "<nil>", "placed, shipped or returned", "<nil>", "<nil>", "<nil>", "<nil>",
					"Number of orders.", "Total order amount.", "<nil>")(t, cols, rows)
			}},
		{name: "foreign keys", sql: `SELECT "fk_ns"."nspname" AS "fk-table-schema", "fk_table"."relname" AS "fk-table-name", "fk_column"."attname" AS "fk-column-name",
  "pk_ns"."nspname" AS "pk-table-schema", "pk_table"."relname" AS "pk-table-name", "pk_column"."attname" AS "pk-column-name"
FROM "pg_constraint" AS "c"
INNER JOIN "pg_class" AS "fk_table" ON "c"."conrelid" = "fk_table"."oid"
INNER JOIN "pg_namespace" AS "fk_ns" ON "c"."connamespace" = "fk_ns"."oid"
INNER JOIN "pg_attribute" AS "fk_column" ON "c"."conrelid" = "fk_column"."attrelid"
INNER JOIN "pg_class" AS "pk_table" ON "c"."confrelid" = "pk_table"."oid"
INNER JOIN "pg_namespace" AS "pk_ns" ON "pk_table"."relnamespace" = "pk_ns"."oid"
INNER JOIN "pg_attribute" AS "pk_column" ON "c"."confrelid" = "pk_column"."attrelid"
WHERE fk_ns.nspname !~ '^information_schema|catalog_history|pg_' AND ("c"."contype" = 'f'::char) AND ("fk_column"."attnum" = ANY(c.conkey))
  AND ("pk_column"."attnum" = ANY(c.confkey)) AND ("fk_table"."relname" IN ($1)) AND ("fk_ns"."nspname" IN ($2))
ORDER BY "fk-table-schema" ASC, "fk-table-name" ASC`, args: []any{"shop", "shop"}, check: wantRows()},
		{name: "enum types", sql: `SELECT nspname, typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid IN (SELECT DISTINCT enumtypid FROM pg_enum e)`,
			check: wantRows()},
	}
}

// DBeaver's PostgreSQL navigator (over pgjdbc): the session, the
// database, the schemas with their comments, each schema's tables by
// its OID, a table's columns, and the data types.
func TestDBeaverNavigator(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	runBI(t, c, dbeaverStatements(shopOIDs(t, c)))
}

// shopOIDs are the OIDs of the shop model's namespace and table, which
// DBeaver sends back as parameters.
func shopOIDs(t *testing.T, c *pgx.Conn) (ns, rel int64) {
	t.Helper()
	var n, r uint32
	if err := c.QueryRow(context.Background(), `SELECT n.oid, c.oid FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid WHERE n.nspname = 'shop'`).Scan(&n, &r); err != nil {
		t.Fatal(err)
	}
	return int64(n), int64(r)
}

// dbeaverStatements: pgjdbc declares a long parameter int8 in its Parse
// message, as pgx's exec mode does for an int64.
func dbeaverStatements(shopNS, shopRel int64) []biStatement {
	return []biStatement{
		{name: "session", sql: `SELECT current_schema(),session_user`},
		{name: "database", sql: `SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=$1`, args: []any{"ossie"}, check: wantColumn("datname", "ossie")},
		{name: "schemas", sql: `SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
ORDER BY nspname`, check: wantColumn("nspname", "information_schema", "missing", "pg_catalog", "shop", "slow")},
		{name: "tables", sql: `SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=$1 AND c.relkind not in ('i','I','c')`, args: []any{pgx.QueryExecModeExec, shopNS},
			check: func(t *testing.T, cols []string, rows [][]any) {
				wantColumn("relname", "shop")(t, cols, rows)
				wantColumn("description", shopDescription)(t, cols, rows)
			}},
		{name: "columns", sql: `SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid=$1
ORDER BY a.attnum`, args: []any{pgx.QueryExecModeExec, shopRel},
			check: wantColumn("attname", "orders_order_id", "orders_customer_id", "orders_status", "orders_order_date", "orders_amount",
				"customers_customer_id", "customers_state", "order_count", "revenue", "avg_amount")},
		{name: "types", sql: `SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description
FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem
LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname IS NOT NULL AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C')`,
			check: func(t *testing.T, cols []string, rows [][]any) {
				if len(rows) < 10 {
					t.Errorf("%d types", len(rows))
				}
			}},
		{name: "roles", sql: `SELECT a.oid,a.* FROM pg_catalog.pg_roles a ORDER BY a.oid`},
		{name: "search path", sql: `SHOW search_path`},
	}
}

// TestJDBCBITools sends Metabase's and DBeaver's statements through the
// real pgjdbc, as those tools do: parameters as ? bound with setString
// and setLong, the rows checked as through pgx.
func TestJDBCBITools(t *testing.T) {
	f := newFixture(t, false, Options{})
	stmts := append(metabaseStatements(), dbeaverStatements(shopOIDs(t, f.connect(t, "")))...)
	cmds := [][]string{f.connectCmd("", "")}
	for _, s := range stmts {
		cmd := []string{"prepared", "1", jdbcSQL(s.sql)}
		for _, a := range s.args {
			switch v := a.(type) {
			case string:
				cmd = append(cmd, "s:"+v)
			case int64:
				cmd = append(cmd, "l:"+strconv.FormatInt(v, 10))
			}
		}
		cmds = append(cmds, cmd)
	}
	out := f.jdbc(t, cmds...)
	for i, s := range stmts {
		t.Run(s.name, func(t *testing.T) {
			var run struct {
				Runs []struct {
					Answer jdbcAnswer `json:"answer"`
				} `json:"runs"`
				Error *struct {
					SQLState string `json:"sqlstate"`
					Message  string `json:"message"`
				} `json:"error"`
			}
			decodeJDBC(t, out[i+1], &run)
			if run.Error != nil || len(run.Runs) != 1 || run.Runs[0].Answer.Error != nil {
				t.Fatalf("pgjdbc: %s\n%s", out[i+1], s.sql)
			}
			a := run.Runs[0].Answer
			var cols []string
			for _, c := range a.Columns {
				cols = append(cols, c.Name)
			}
			if s.check != nil {
				s.check(t, cols, a.Rows)
			}
		})
	}
}

// jdbcSQL is sql on one line (JdbcProbe reads a command a line) with
// pgjdbc's ? placeholders for $1, $2, ... in order.
func jdbcSQL(sql string) string {
	return regexp.MustCompile(`\$[0-9]+`).ReplaceAllString(strings.Join(strings.Fields(sql), " "), "?")
}

// What the tools list follows the caller's roles: the state analyst's
// Metabase sync and DBeaver column list lack the columns its role
// denies (avg_amount, both customer_id fields).
func TestBIToolsGovernedCaller(t *testing.T) {
	f := newFixture(t, true, Options{})
	c := f.connect(t, tokenState)
	want := []string{"orders_order_id", "orders_status", "orders_order_date", "orders_amount", "customers_state", "order_count", "revenue"}
	runBI(t, c, []biStatement{
		{name: "metabase fields", sql: `SELECT "c"."column_name" AS "name", "c"."ordinal_position" - 1 AS "database-position",
  COL_DESCRIPTION(CAST(CAST(FORMAT('%I.%I', CAST("c"."table_schema" AS TEXT), CAST("c"."table_name" AS TEXT)) AS REGCLASS) AS OID), "c"."ordinal_position") AS "field-comment"
FROM "information_schema"."columns" AS "c" WHERE ("c"."table_schema" IN ($1)) AND ("c"."table_name" IN ($2))
ORDER BY "database-position" ASC`, args: []any{"shop", "shop"}, check: func(t *testing.T, cols []string, rows [][]any) {
			wantColumn("name", want...)(t, cols, rows)
			wantColumn("field-comment", "<nil>", "placed, shipped or returned", "<nil>", "<nil>", "<nil>", "Number of orders.", "Total order amount.")(t, cols, rows)
		}},
		{name: "grouped columns", sql: `SELECT c.relname, count(*) AS n, array_agg(a.attname ORDER BY a.attnum DESC) AS names, string_agg(a.attname, '|' ORDER BY a.attnum) AS joined
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid
WHERE c.relname IN ('shop', 'slow') GROUP BY c.relname ORDER BY 1`,
			check: wantRows("shop 7 {revenue,order_count,customers_state,orders_amount,orders_order_date,orders_status,orders_order_id} "+strings.Join(want, "|"),
				"slow 2 {rows,big_k} big_k|rows")},
	})
}

// format() and quote_ident() quote an identifier only when it needs it,
// as PostgreSQL does (9.4, String Functions): Metabase builds the
// regclass of each table with format('%I.%I', ...).
func TestCatalogFormatAndQuoteIdent(t *testing.T) {
	f := newFixture(t, false, Options{})
	_, rows := sqlRows(t, f.connect(t, ""), `SELECT quote_ident('shop'), quote_ident('Shop'), format('%I.%I|%L|%s|%%', 'a b', 'x', 'it''s', NULL)`)
	if err := sameRows(rows, [][]any{{"shop", `"Shop"`, `"a b".x|'it''s'||%`}}); err != nil {
		t.Error(err)
	}
}
