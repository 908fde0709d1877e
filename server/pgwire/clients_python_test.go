package pgwire

import (
	"slices"
	"testing"
)

// pythonReport adds SQLAlchemy's inspector to a client report.
type pythonReport struct {
	clientReport
	ServerVersion int    `json:"server_version"`
	NamedCursor   string `json:"named_cursor"`
	SQLAlchemy    struct {
		Schemas      []string `json:"schemas"`
		Tables       []string `json:"tables"`
		Columns      [][]any  `json:"columns"`
		TableComment string   `json:"table_comment"`
		PK           []string `json:"pk"`
		ForeignKeys  []any    `json:"foreign_keys"`
		Indexes      []any    `json:"indexes"`
		Unique       []any    `json:"unique"`
		Views        []string `json:"views"`
		HasTable     bool     `json:"has_table"`
		Ping         int      `json:"ping"`
	} `json:"sqlalchemy"`
}

// TestPsycopgAndSQLAlchemy drives the endpoint with psycopg 3 and
// SQLAlchemy 2 (testdata/pg_python.py, in the venv scripts/pg-python.sh
// installs; OSSIE_PG_PYTHON_HOME names it) with tokens as passwords:
// information_schema and SQLAlchemy's inspector list the models, metric
// queries run as simple queries, with server-side parameters, as named
// prepared statements and with client-side binding, a slow query is
// cancelled, and the state analyst sees fewer columns and rows. Answers
// equal the HTTP API's and hand-written SQL. Skipped without the venv
// unless OSSIE_REQUIRE_PG_PYTHON=1 (make test).
func TestPsycopgAndSQLAlchemy(t *testing.T) {
	python := clientInstall(t, "OSSIE_PG_PYTHON_HOME", "OSSIE_REQUIRE_PG_PYTHON", "venv/bin/python", "scripts/pg-python.sh")
	f := newFixture(t, true, Options{})
	var r pythonReport
	f.runClient(t, nil, &r, python, "testdata/pg_python.py")
	f.checkReport(t, "psycopg", &r.clientReport)
	if r.ServerVersion < 150000 {
		t.Errorf("server_version %d", r.ServerVersion)
	}
	if r.NamedCursor != codeFeature {
		t.Errorf("psycopg's named cursor (DECLARE): %q, want %s", r.NamedCursor, codeFeature)
	}
	f.checkAnswer(t, "psycopg client-side binding", r.Queries["params_client_side"], "params")
	f.checkAnswer(t, "SQLAlchemy text()", r.Queries["sa_by_state"], "by_state")
	f.checkAnswer(t, "SQLAlchemy text() with a bound parameter", r.Queries["sa_having"], "prepared_1")
	f.checkAnswer(t, "Superset's chart query (SUM(metric) AS label)", r.Queries["superset_chart"], "by_state")

	sa := r.SQLAlchemy
	if !slices.Contains(sa.Schemas, "shop") || !slices.Contains(sa.Schemas, "slow") || slices.Contains(sa.Schemas, "pg_catalog") {
		t.Errorf("SQLAlchemy schemas %v", sa.Schemas)
	}
	if !slices.Equal(sa.Tables, []string{"shop"}) {
		t.Errorf("SQLAlchemy tables of shop %v", sa.Tables)
	}
	want := [][]any{
		{"orders_order_id", "BIGINT", true, nil}, {"orders_customer_id", "BIGINT", true, nil},
		{"orders_status", "TEXT", true, "placed, shipped or returned"}, {"orders_order_date", "DATE", true, nil},
		{"orders_amount", "NUMERIC", true, nil}, {"customers_customer_id", "TEXT", true, nil},
		{"customers_state", "TEXT", true, nil}, {"order_count", "BIGINT", true, "Number of orders."},
		{"revenue", "NUMERIC", true, "Total order amount."}, {"avg_amount", "NUMERIC", true, nil},
	}
	if err := sameRows(sa.Columns, want); err != nil {
		t.Errorf("SQLAlchemy columns: %v", err)
	}
	if sa.TableComment != "Orders of a small shop and the customers who placed them." {
		t.Errorf("SQLAlchemy table comment %q", sa.TableComment)
	}
	if len(sa.PK)+len(sa.ForeignKeys)+len(sa.Indexes)+len(sa.Unique)+len(sa.Views) != 0 || !sa.HasTable || sa.Ping != 1 {
		t.Errorf("Superset's table metadata: pk %v, foreign keys %v, indexes %v, unique %v, views %v, has_table %v, SELECT 1 %d",
			sa.PK, sa.ForeignKeys, sa.Indexes, sa.Unique, sa.Views, sa.HasTable, sa.Ping)
	}
}
