package pgwire

import (
	"context"
	"fmt"
	"testing"
)

// What SQLAlchemy's first connect and inspector needed beyond psql and
// pgx (TestPsycopgAndSQLAlchemy drives the real client; these pin each
// piece through pgx).

// psycopg's nested transaction (conn.transaction() inside SQLAlchemy's
// implicit BEGIN) sends SAVEPOINT and RELEASE: accepted inside a
// transaction block, refused outside it as PostgreSQL does.
func TestSavepoints(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	ctx := context.Background()
	for _, sql := range []string{"BEGIN", "SAVEPOINT a", "RELEASE SAVEPOINT a", "SAVEPOINT b", "ROLLBACK TO SAVEPOINT b", "RELEASE b", "COMMIT"} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if _, err := c.Exec(ctx, "SAVEPOINT a"); sqlState(err) != codeNoTransaction {
		t.Errorf("SAVEPOINT outside a transaction: %v, want %s", err, codeNoTransaction)
	}
	if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
		t.Errorf("after savepoints: %v", rows)
	}
}

// A number parameter of a catalog query is a number: cast to smallint
// and compared numerically (SQLAlchemy binds attnum > 0 as an int2 in
// text format; 10 compared as text would sort before 2).
func TestCatalogNumberParameters(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	ctx := context.Background()
	sql := `SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		WHERE c.relname = 'shop' AND a.attnum > $1::smallint AND a.attnum < $2 ORDER BY a.attnum`
	if _, err := c.PgConn().Prepare(ctx, "cols", sql, []uint32{oidInt2, oidInt8}); err != nil {
		t.Fatal(err)
	}
	res := c.PgConn().ExecPrepared(ctx, "cols", [][]byte{[]byte("0"), []byte("10")}, nil, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, string(r[0]))
	}
	if len(got) != 9 || got[0] != "orders_order_id" || got[8] != "revenue" {
		t.Errorf("columns 1..9: %v", got)
	}
}

// 'pg_catalog.pg_class'::regclass is pg_class's OID, the classoid of
// table comments: SQLAlchemy's get_table_comment joins on it. A
// parameter cast to integer is described as one, so pgx sends the Go int
// it is given (it failed to encode it as text before).
func TestRegclassOfCatalogRelations(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	_, rows := sqlRows(t, c, `SELECT 'pg_catalog.pg_class'::regclass::oid, CAST('pg_namespace' AS REGCLASS)::oid`)
	if got := fmt.Sprint(rows); got != "[[1259 2615]]" {
		t.Errorf("OIDs %s, want [[1259 2615]]", got)
	}
	_, rows = sqlRows(t, c, `SELECT c.relname, d.description FROM pg_catalog.pg_class c
		LEFT OUTER JOIN pg_catalog.pg_description d ON c.oid = d.objoid AND d.objsubid = $1::INTEGER AND d.classoid = CAST($2 AS REGCLASS)
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $3 AND c.relname IN ($4)`, 0, "pg_catalog.pg_class", "shop", "shop")
	if err := sameRows(rows, [][]any{{"shop", "Orders of a small shop and the customers who placed them."}}); err != nil {
		t.Error(err)
	}
	if _, err := c.Exec(context.Background(), `SELECT 'pg_catalog.nothing'::regclass`); sqlState(err) != codeUndefinedTable {
		t.Errorf("an unknown relation: %v", err)
	}
}

// LIKE ... ESCAPE (like_escape): SQLAlchemy's get_schema_names filters
// nspname NOT LIKE 'pg/_' || '%' ESCAPE '/'.
func TestCatalogLikeEscape(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	_, rows := sqlRows(t, c, `SELECT 'pg_x' LIKE 'pg/_%' ESCAPE '/', 'pgax' LIKE 'pg/_%' ESCAPE '/', 'a%b' LIKE 'a#%b' ESCAPE '#', 'a\b' LIKE 'a\b' ESCAPE '', 'a/b' LIKE 'a//b' ESCAPE '/'`)
	if err := sameRows(rows, [][]any{{true, false, true, true, true}}); err != nil {
		t.Error(err)
	}
	_, rows = sqlRows(t, c, `SELECT nspname FROM pg_catalog.pg_namespace WHERE NOT (nspname LIKE $1 || '%' ESCAPE '/') ORDER BY 1`, "pg/_")
	if err := sameRows(rows, [][]any{{"information_schema"}, {"missing"}, {"shop"}, {"slow"}}); err != nil {
		t.Error(err)
	}
}
