package pgwire

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jdbc runs testdata/jdbc/JdbcProbe.java (pgjdbc, the PostgreSQL JDBC
// driver, installed and compiled by scripts/pgjdbc.sh into
// OSSIE_PGJDBC_HOME; required when OSSIE_REQUIRE_PGJDBC is set, as make
// test sets it) with one command per line (fields joined by tabs) and
// returns its JSON answer to each, in order.
func (f *fixture) jdbc(t *testing.T, commands ...[]string) []json.RawMessage {
	t.Helper()
	home := os.Getenv("OSSIE_PGJDBC_HOME")
	if home == "" {
		if os.Getenv("OSSIE_REQUIRE_PGJDBC") != "" {
			t.Fatal("OSSIE_PGJDBC_HOME is not set and OSSIE_REQUIRE_PGJDBC is: run scripts/pgjdbc.sh")
		}
		t.Skip("set OSSIE_PGJDBC_HOME=$(scripts/pgjdbc.sh | tail -n1) to run the pgjdbc tests")
	}
	java := "java"
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		java = filepath.Join(jh, "bin", "java")
	}
	var in bytes.Buffer
	for _, c := range commands {
		for _, field := range c {
			if strings.ContainsAny(field, "\t\n") {
				t.Fatalf("a JdbcProbe field holds a tab or a newline: %q", field)
			}
		}
		in.WriteString(strings.Join(c, "\t") + "\n")
	}
	cmd := exec.Command(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp",
		filepath.Join(home, "lib", "*")+string(os.PathListSeparator)+filepath.Join(home, "classes"), "JdbcProbe")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("JdbcProbe: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(commands) {
		t.Fatalf("JdbcProbe answered %d lines to %d commands:\n%s\n%s", len(lines), len(commands), out, stderr.String())
	}
	res := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		res[i] = json.RawMessage(l)
	}
	return res
}

// connectCmd is the JdbcProbe command opening a connection to the
// endpoint with password (a token; "" sends none) and extra URL options.
func (f *fixture) connectCmd(password, options string) []string {
	u := "jdbc:postgresql://" + f.addr + "/ossie?sslmode=disable&ApplicationName=jdbc-test"
	if options != "" {
		u += "&" + options
	}
	return []string{"connect", u, "bi", password}
}

// jdbcAnswer is JdbcProbe's answer to query or one run of prepared.
type jdbcAnswer struct {
	Columns []struct {
		Name     string `json:"name"`
		Type     int    `json:"type"`
		TypeName string `json:"type_name"`
		Class    string `json:"class"`
	} `json:"columns"`
	Rows  [][]any `json:"rows"`
	Error *struct {
		SQLState string `json:"sqlstate"`
		Message  string `json:"message"`
	} `json:"error"`
}

func decodeJDBC(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("JdbcProbe answer %s: %v", raw, err)
	}
	var e struct {
		Error *struct{ SQLState, Message string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	if e.Error != nil {
		t.Fatalf("JdbcProbe: %s %s", e.Error.SQLState, e.Error.Message)
	}
}

func (a jdbcAnswer) String() string { return fmt.Sprint(a.Rows) }

// jdbcColumn is one row of JdbcProbe's getColumns: name, java.sql.Types
// code, type name, remarks, ordinal position.
type jdbcColumn struct {
	name, typeName string
	sqlType        int
	remarks        any
	position       int
}

// jdbcMetadata decodes JdbcProbe's metadata answer: the schemas, the
// tables as "schema.table TYPE remarks", the columns of table shop.shop.
func jdbcMetadata(t *testing.T, raw json.RawMessage) (schemas []string, tables map[string]string, shop []jdbcColumn) {
	t.Helper()
	var md struct{ Schemas, Tables, Columns [][]any }
	decodeJDBC(t, raw, &md)
	for _, r := range md.Schemas {
		schemas = append(schemas, r[0].(string))
	}
	tables = map[string]string{}
	for _, r := range md.Tables {
		tables[r[0].(string)+"."+r[1].(string)] = fmt.Sprintf("%v %v", r[2], r[3])
	}
	for _, r := range md.Columns {
		if r[0] != "shop" || r[1] != "shop" {
			continue
		}
		typ, _ := r[3].(json.Number).Int64()
		pos, _ := r[6].(json.Number).Int64()
		shop = append(shop, jdbcColumn{name: r[2].(string), sqlType: int(typ), typeName: r[4].(string), remarks: r[5], position: int(pos)})
	}
	return schemas, tables, shop
}

// java.sql.Types codes.
const (
	jdbcBigint  = -5
	jdbcNumeric = 2
	jdbcVarchar = 12
	jdbcDate    = 91
)

// DatabaseMetaData lists each model as a schema with its table, the
// model's description as the table's remarks, and the columns the
// caller's roles may read with their types, descriptions and positions;
// a governed caller sees fewer columns (pgjdbc's own catalog queries:
// getSchemas, getTables, getColumns).
func TestJDBCDatabaseMetaData(t *testing.T) {
	f := newFixture(t, true, Options{})
	out := f.jdbc(t,
		f.connectCmd(tokenAuditor, ""), []string{"metadata", "%"},
		f.connectCmd(tokenState, ""), []string{"metadata", "%"},
		f.connectCmd(tokenOps, ""), []string{"metadata", "shop"},
	)
	var conn struct{ Product, Version string }
	decodeJDBC(t, out[0], &conn)
	if conn.Product != "PostgreSQL" || conn.Version != ServerVersion {
		t.Errorf("connected to %s %s", conn.Product, conn.Version)
	}
	schemas, tables, all := jdbcMetadata(t, out[1])
	for _, s := range []string{"shop", "slow"} {
		if !slices.Contains(schemas, s) {
			t.Errorf("getSchemas %v lacks %s", schemas, s)
		}
	}
	if got := tables["shop.shop"]; got != "TABLE Orders of a small shop and the customers who placed them." {
		t.Errorf("getTables shop.shop: %q (all: %v)", got, tables)
	}
	if got := tables["slow.slow"]; got != "TABLE <nil>" {
		t.Errorf("getTables slow.slow: %q", got)
	}
	// By hand from server/testdata/shop.yaml: dimensions dataset_field in
	// dataset and field order, then metrics; Integer bigint, Decimal and
	// an untyped metric numeric, String and an untyped field text, Date
	// date; field and metric descriptions as remarks.
	want := []jdbcColumn{
		{"orders_order_id", "int8", jdbcBigint, nil, 1},
		{"orders_customer_id", "int8", jdbcBigint, nil, 2},
		{"orders_status", "text", jdbcVarchar, "placed, shipped or returned", 3},
		{"orders_order_date", "date", jdbcDate, nil, 4},
		{"orders_amount", "numeric", jdbcNumeric, nil, 5},
		{"customers_customer_id", "text", jdbcVarchar, nil, 6},
		{"customers_state", "text", jdbcVarchar, nil, 7},
		{"order_count", "int8", jdbcBigint, "Number of orders.", 8},
		{"revenue", "numeric", jdbcNumeric, "Total order amount.", 9},
		{"avg_amount", "numeric", jdbcNumeric, nil, 10},
	}
	// The auditor's status is masked (hashed): text, still described.
	if !slices.Equal(all, want) {
		t.Errorf("getColumns for the auditor:\n got %v\nwant %v", all, want)
	}
	// The state analyst: no customer ids, no average; positions renumbered.
	_, _, some := jdbcMetadata(t, out[3])
	var wantSome []jdbcColumn
	for _, c := range want {
		if c.name != "orders_customer_id" && c.name != "customers_customer_id" && c.name != "avg_amount" {
			c.position = len(wantSome) + 1
			wantSome = append(wantSome, c)
		}
	}
	if !slices.Equal(some, wantSome) {
		t.Errorf("getColumns for the state analyst:\n got %v\nwant %v", some, wantSome)
	}
	// Ops reads orders (not the amount) and order_count only.
	_, opsTables, ops := jdbcMetadata(t, out[5])
	var names []string
	for _, c := range ops {
		names = append(names, c.name)
	}
	if strings.Join(names, ",") != "orders_order_id,orders_customer_id,orders_status,orders_order_date,order_count" {
		t.Errorf("getColumns for ops: %v", ops)
	}
	if _, ok := opsTables["slow.slow"]; ok || len(opsTables) != 1 {
		t.Errorf("getTables(schema shop) for ops: %v", opsTables)
	}
}

// Metric queries through Statement and PreparedStatement (parameters set
// with setDate, setString, setInt and setBigDecimal; executed past
// pgjdbc's prepareThreshold, so the later runs use a named server-side
// statement and binary results) give the HTTP API's answer for the same
// query and the hand-written SQL's, value by value; Statement.cancel()
// stops a slow query with 57014 and the connection keeps serving.
func TestJDBCQueries(t *testing.T) {
	f := newFixture(t, false, Options{})
	const runs = 7 // prepareThreshold is 5
	cases := []struct {
		name, sql, query, hand string
		params                 []string
	}{
		{"statement: grouped and ordered", `SELECT customers_state, MEASURE(revenue), order_count FROM shop.shop GROUP BY 1 ORDER BY 2 DESC`,
			`{"metrics":["revenue","order_count"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}]}`,
			`SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 2 DESC`, nil},
		{"statement: the wrapped form with a month grain",
			`SELECT * FROM (SELECT DATE_TRUNC('month', orders_order_date) AS m, avg_amount FROM shop.shop GROUP BY 1) AS t ORDER BY m LIMIT 1000`,
			`{"metrics":["avg_amount"],"dimensions":[{"field":"orders.order_date","grain":"month"}],"order_by":[{"key":"orders.order_date.month"}],"limit":1000}`,
			`SELECT CAST(date_trunc('month', order_date) AS DATE), AVG(amount) FROM orders GROUP BY 1 ORDER BY 1`, nil},
		{"prepared: dates, strings and an int",
			`SELECT orders_status, DATE_TRUNC('month', orders_order_date) AS m, revenue FROM shop.shop WHERE orders_order_date BETWEEN ? AND ? AND orders_status IN (?, ?) GROUP BY 1, 2 ORDER BY 1, 2 LIMIT ?`,
			`{"metrics":["revenue"],"dimensions":["orders.status",{"field":"orders.order_date","grain":"month"}],"filters":[{"field":"orders.order_date","op":"between","values":["2024-01-01","2024-02-11"]},{"field":"orders.status","op":"in","values":["shipped","returned"]}],"order_by":[{"key":"orders.status"},{"key":"orders.order_date.month"}],"limit":10}`,
			`SELECT status, CAST(date_trunc('month', order_date) AS DATE), SUM(amount) FROM orders WHERE order_date BETWEEN DATE '2024-01-01' AND DATE '2024-02-11' AND status IN ('shipped', 'returned') GROUP BY 1, 2 ORDER BY 1, 2`,
			[]string{"d:2024-01-01", "d:2024-02-11", "s:shipped", "s:returned", "i:10"}},
		{"prepared: a decimal against a metric",
			`SELECT customers_state, order_count, revenue FROM shop.shop GROUP BY 1 HAVING revenue > ? ORDER BY 1`,
			`{"metrics":["order_count","revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","op":"gt","values":[6.5]}],"order_by":[{"key":"customers.state"}]}`,
			`SELECT c.state, COUNT(o.order_id), SUM(o.amount) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 HAVING SUM(o.amount) > 6.5 ORDER BY 1 NULLS LAST`,
			[]string{"n:6.5"}},
	}
	cmds := [][]string{f.connectCmd("", "")}
	for _, tc := range cases {
		if tc.params == nil {
			cmds = append(cmds, []string{"query", tc.sql})
		} else {
			cmds = append(cmds, append([]string{"prepared", fmt.Sprint(runs), tc.sql}, tc.params...))
		}
	}
	cmds = append(cmds, []string{"cancel", `SELECT MEASURE(rows) FROM slow.slow`, "300"},
		[]string{"query", `SELECT order_count FROM shop.shop`})
	out := f.jdbc(t, cmds...)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var answers []jdbcAnswer
			if tc.params == nil {
				var a jdbcAnswer
				decodeJDBC(t, out[i+1], &a)
				answers = append(answers, a)
			} else {
				var p struct {
					Runs []struct {
						ServerPrepared bool       `json:"server_prepared"`
						Answer         jdbcAnswer `json:"answer"`
					}
				}
				decodeJDBC(t, out[i+1], &p)
				if len(p.Runs) != runs || p.Runs[0].ServerPrepared || !p.Runs[runs-1].ServerPrepared {
					t.Errorf("%d runs, want %d: the first client-side, the last on a named server-side statement: %+v", len(p.Runs), runs, p.Runs)
				}
				for _, r := range p.Runs {
					answers = append(answers, r.Answer)
				}
			}
			hand, http := f.handRows(t, tc.hand), f.httpRows(t, "shop", tc.query, "")
			if len(hand) == 0 {
				t.Fatal("the hand-written SQL has no rows: a weak case")
			}
			for run, a := range answers {
				if err := sameRows(a.Rows, hand); err != nil {
					t.Errorf("run %d: JDBC vs hand-written SQL: %v", run+1, err)
				}
				if err := sameRows(a.Rows, http); err != nil {
					t.Errorf("run %d: JDBC vs HTTP: %v", run+1, err)
				}
			}
		})
	}
	var cancel struct {
		SQLState string `json:"sqlstate"`
		Message  string `json:"message"`
		Millis   int    `json:"millis"`
	}
	decodeJDBC(t, out[len(cases)+1], &cancel)
	if cancel.SQLState != codeCanceled {
		t.Errorf("Statement.cancel(): %+v, want SQLSTATE %s", cancel, codeCanceled)
	}
	var after jdbcAnswer
	decodeJDBC(t, out[len(cases)+2], &after)
	if err := sameRows(after.Rows, f.handRows(t, `SELECT COUNT(*) FROM orders`)); err != nil {
		t.Errorf("after the cancel: %v", err)
	}
}

// Column types as pgjdbc reports them (ResultSetMetaData from the
// endpoint's RowDescription): bigint counts as Long, numeric sums as
// BigDecimal, a month grain as java.sql.Date, dimensions as String.
func TestJDBCResultTypes(t *testing.T) {
	f := newFixture(t, false, Options{})
	out := f.jdbc(t, f.connectCmd("", ""), []string{"query",
		`SELECT customers_state, DATE_TRUNC('month', orders_order_date) AS m, order_count, revenue FROM shop.shop GROUP BY 1, 2`})
	var a jdbcAnswer
	decodeJDBC(t, out[1], &a)
	var got []string
	for _, c := range a.Columns {
		got = append(got, fmt.Sprintf("%s:%d:%s:%s", c.Name, c.Type, c.TypeName, c.Class))
	}
	want := []string{"customers_state:12:text:java.lang.String", "m:91:date:java.sql.Date",
		"order_count:-5:int8:java.lang.Long", "revenue:2:numeric:java.math.BigDecimal"}
	if !slices.Equal(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
}

// A governed caller connecting with its token as the password gets its
// rows only, as over HTTP with the same token and as hand-written SQL
// with the role's row filters; a column its roles hide is unknown.
func TestJDBCGovernedCaller(t *testing.T) {
	f := newFixture(t, true, Options{})
	const sql = `SELECT customers_state, order_count, revenue FROM shop.shop GROUP BY 1 ORDER BY 1`
	out := f.jdbc(t, f.connectCmd(tokenState, ""), []string{"query", sql},
		[]string{"prepared", "6", `SELECT customers_state, order_count FROM shop.shop WHERE orders_status <> ? GROUP BY 1 ORDER BY 1`, "s:placed"},
		[]string{"query", `SELECT avg_amount FROM shop.shop`},
		f.connectCmd(tokenAuditor, ""), []string{"query", sql},
		f.connectCmd("not-a-token-000000000000000", ""))
	var analyst, auditor jdbcAnswer
	decodeJDBC(t, out[1], &analyst)
	decodeJDBC(t, out[5], &auditor)
	hand := f.handRows(t, `SELECT c.state, COUNT(o.order_id), SUM(o.amount)
		FROM (SELECT * FROM orders WHERE status <> 'returned') o
		LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c USING (customer_id)
		GROUP BY 1 ORDER BY 1 NULLS LAST`)
	if err := sameRows(analyst.Rows, hand); err != nil {
		t.Errorf("governed JDBC vs hand-written SQL: %v", err)
	}
	http := f.httpRows(t, "shop", `{"metrics":["order_count","revenue"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`, tokenState)
	if err := sameRows(analyst.Rows, http); err != nil {
		t.Errorf("governed JDBC vs HTTP: %v", err)
	}
	if len(auditor.Rows) <= len(analyst.Rows) {
		t.Errorf("auditor rows %v, state analyst rows %v", auditor.Rows, analyst.Rows)
	}
	var p struct{ Runs []struct{ Answer jdbcAnswer } }
	decodeJDBC(t, out[2], &p)
	handP := f.handRows(t, `SELECT c.state, COUNT(o.order_id)
		FROM (SELECT * FROM orders WHERE status <> 'returned' AND status <> 'placed') o
		LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c USING (customer_id)
		GROUP BY 1 ORDER BY 1 NULLS LAST`)
	for i, r := range p.Runs {
		if err := sameRows(r.Answer.Rows, handP); err != nil {
			t.Errorf("governed prepared run %d vs hand-written SQL: %v", i+1, err)
		}
	}
	var hidden, refused jdbcAnswer
	_ = json.Unmarshal(out[3], &hidden)
	if hidden.Error == nil || hidden.Error.SQLState != codeUndefinedColumn {
		t.Errorf("a hidden metric: %s", out[3])
	}
	_ = json.Unmarshal(out[6], &refused)
	if refused.Error == nil || refused.Error.SQLState != codeAuth {
		t.Errorf("a wrong token: %s", out[6])
	}
}

// The JDBC URL of docs/sql-api.md's recipe, the token in the URL and
// TLS required: it connects to an endpoint with a certificate and
// answers; an endpoint without one is refused by the driver.
func TestJDBCRecipeURL(t *testing.T) {
	f := newFixture(t, true, Options{TLS: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}})
	plain := newFixture(t, false, Options{})
	recipe := func(addr, token string) []string {
		return []string{"connect", "jdbc:postgresql://" + addr + "/ossie?user=bi&password=" + token + "&sslmode=require", "-", ""}
	}
	out := f.jdbc(t, recipe(f.addr, tokenState), []string{"query", `SELECT customers_state, order_count FROM shop.shop GROUP BY 1 ORDER BY 1`},
		recipe(plain.addr, ""))
	var a jdbcAnswer
	decodeJDBC(t, out[1], &a)
	http := f.httpRows(t, "shop", `{"metrics":["order_count"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`, tokenState)
	if err := sameRows(a.Rows, http); err != nil {
		t.Errorf("over TLS with the recipe's URL: %v", err)
	}
	var refused jdbcAnswer
	_ = json.Unmarshal(out[2], &refused)
	if refused.Error == nil || !strings.Contains(refused.Error.Message, "SSL") {
		t.Errorf("sslmode=require against an endpoint without a certificate: %s", out[2])
	}
}

// With a fetch size in a transaction pgjdbc reads an answer a few rows
// at a time (Execute with a row limit, PortalSuspended between pages):
// all rows arrive, in order, as over HTTP.
func TestJDBCFetchSize(t *testing.T) {
	f := newFixture(t, false, Options{})
	out := f.jdbc(t, f.connectCmd("", ""),
		[]string{"fetch", "2", `SELECT orders_order_id, orders_status, revenue FROM shop.shop GROUP BY 1, 2 ORDER BY 1`},
		[]string{"query", `SELECT order_count FROM shop.shop`})
	var a jdbcAnswer
	decodeJDBC(t, out[1], &a)
	http := f.httpRows(t, "shop", `{"metrics":["revenue"],"dimensions":["orders.order_id","orders.status"],"order_by":[{"key":"orders.order_id"}]}`, "")
	if len(http) < 5 {
		t.Fatalf("%d rows: too few for pages of 2", len(http))
	}
	if err := sameRows(a.Rows, http); err != nil {
		t.Errorf("fetch size 2 vs HTTP: %v", err)
	}
	if err := sameRows(a.Rows, f.handRows(t, `SELECT order_id, status, SUM(amount) FROM orders GROUP BY 1, 2 ORDER BY 1`)); err != nil {
		t.Errorf("fetch size 2 vs hand-written SQL: %v", err)
	}
	var after jdbcAnswer
	decodeJDBC(t, out[2], &after)
	if len(after.Rows) != 1 {
		t.Errorf("after the transaction: %v", after.Rows)
	}
}
