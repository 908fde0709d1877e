package pgwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ossie-dev/ossie/engine"
)

// norm maps a value of any client or engine onto one comparable form:
// numbers float64, dates "YYYY-MM-DD", the rest as is.
func norm(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case pgtype.Numeric:
		if !x.Valid {
			return nil
		}
		f, _ := x.Float64Value()
		return f.Float64
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	case json.Number:
		f, _ := x.Float64()
		return f
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.UTC().Format(time.RFC3339Nano)
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f
		}
		if len(x) >= 10 && x[4] == '-' && x[7] == '-' && (len(x) == 10 || x[10:] == "T00:00:00Z") {
			return x[:10]
		}
		return x
	}
	return v
}

func normRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			out[i][j] = norm(v)
		}
	}
	return out
}

func sameRows(got, want [][]any) error {
	got, want = normRows(got), normRows(want)
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return fmt.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
		for j := range got[i] {
			g, gok := got[i][j].(float64)
			w, wok := want[i][j].(float64)
			if gok && wok && math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) {
				continue
			}
			if !reflect.DeepEqual(got[i][j], want[i][j]) {
				return fmt.Errorf("row %d column %d: %#v, want %#v\n got %v\nwant %v", i, j, got[i][j], want[i][j], got, want)
			}
		}
	}
	return nil
}

// sqlRows runs sql over the wire (extended protocol, with args).
func sqlRows(t *testing.T, c *pgx.Conn, sql string, args ...any) ([]string, [][]any) {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var names []string
	for _, fd := range rows.FieldDescriptions() {
		names = append(names, fd.Name)
	}
	var out [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return names, out
}

// simpleRows runs sql with the simple query protocol.
func simpleRows(t *testing.T, c *pgx.Conn, sql string) [][]any {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// handRows runs hand-written SQL on the engine directly.
func (f *fixture) handRows(t *testing.T, sql string) [][]any {
	t.Helper()
	var eng engine.Engine = f.eng
	if f.hand != nil {
		eng = f.hand
	}
	res, err := eng.Query(context.Background(), sql, 1000)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res.Rows
}

// httpRows answers query JSON through POST /v1/models/{model}/query.
func (f *fixture) httpRows(t *testing.T, model, query, token string) [][]any {
	t.Helper()
	req, _ := http.NewRequest("POST", f.http.URL+"/v1/models/"+model+"/query", bytes.NewReader([]byte(query)))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
	}
	var out struct {
		Rows [][]any `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Rows
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Each query is answered over the wire (extended and simple protocol),
// over HTTP with the equivalent query, and by hand-written SQL on the
// same tables: the three agree value by value.
func TestMetricQueriesMatchHTTPAndHandWrittenSQL(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	cases := []struct {
		name, sql, query, hand string
		args                   []any
	}{
		{"grouped, ordered, limited",
			`SELECT customers_state, MEASURE(revenue) FROM shop.shop GROUP BY 1 ORDER BY 2 DESC LIMIT 2`,
			`{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":2}`,
			`SELECT c.state, SUM(o.amount) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 2 DESC NULLS LAST LIMIT 2`, nil},
		{"bare metric columns, no GROUP BY",
			`SELECT orders_status, order_count, revenue FROM shop ORDER BY orders_status`,
			`{"metrics":["order_count","revenue"],"dimensions":["orders.status"],"order_by":[{"key":"orders.status"}]}`,
			`SELECT status, COUNT(order_id), SUM(amount) FROM orders GROUP BY 1 ORDER BY 1`, nil},
		{"an aggregate around a metric is the metric",
			`SELECT SUM(avg_amount) AS a FROM shop.shop`,
			`{"metrics":["avg_amount"]}`,
			`SELECT AVG(amount) FROM orders`, nil},
		{"month grain and a date range",
			`SELECT DATE_TRUNC('month', orders_order_date) AS m, order_count FROM shop.shop WHERE orders_order_date >= '2024-02-01' AND orders_order_date < DATE '2024-04-01' GROUP BY 1 ORDER BY 1`,
			`{"metrics":["order_count"],"dimensions":[{"field":"orders.order_date","grain":"month"}],"filters":[{"field":"orders.order_date","op":"gte","values":["2024-02-01"]},{"field":"orders.order_date","op":"lt","values":["2024-04-01"]}],"order_by":[{"key":"orders.order_date.month"}]}`,
			`SELECT CAST(date_trunc('month', order_date) AS DATE), COUNT(*) FROM orders WHERE order_date >= DATE '2024-02-01' AND order_date < DATE '2024-04-01' GROUP BY 1 ORDER BY 1`, nil},
		{"IN, LIKE and IS NULL",
			`SELECT orders_status, revenue FROM shop.shop WHERE orders_status IN ('placed', 'shipped') AND orders_status LIKE 'p%' AND orders.customer_id IS NOT NULL GROUP BY orders_status`,
			`{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"in","values":["placed","shipped"]},{"field":"orders.status","op":"starts_with","values":["p"]},{"field":"orders.customer_id","op":"is_not_null"}]}`,
			`SELECT status, SUM(amount) FROM orders WHERE status = 'placed' AND customer_id IS NOT NULL GROUP BY 1`, nil},
		{"HAVING on a metric, OFFSET",
			`SELECT orders_status, MEASURE(order_count) FROM shop.shop GROUP BY 1 HAVING MEASURE(order_count) >= 2 ORDER BY 1 OFFSET 1`,
			`{"metrics":["order_count"],"dimensions":["orders.status"],"filters":[{"metric":"order_count","op":"gte","values":[2]}],"order_by":[{"key":"orders.status"}],"offset":1}`,
			`SELECT status, COUNT(*) FROM orders GROUP BY 1 HAVING COUNT(*) >= 2 ORDER BY 1 OFFSET 1`, nil},
		{"the wrapped form BI tools send",
			`SELECT * FROM (SELECT customers_state, order_count FROM shop.shop GROUP BY 1) AS virtual_table ORDER BY customers_state LIMIT 1000`,
			`{"metrics":["order_count"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}],"limit":1000}`,
			`SELECT c.state, COUNT(o.order_id) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 1 NULLS LAST`, nil},
		{"parameters, BETWEEN on a date",
			`SELECT orders_status, revenue FROM shop.shop WHERE orders_order_date BETWEEN $1 AND $2 AND orders_status IN ($3, $4) GROUP BY 1 ORDER BY 1 LIMIT $5`,
			`{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.order_date","op":"between","values":["2024-01-01","2024-02-11"]},{"field":"orders.status","op":"in","values":["shipped","returned"]}],"order_by":[{"key":"orders.status"}],"limit":10}`,
			`SELECT status, SUM(amount) FROM orders WHERE order_date BETWEEN DATE '2024-01-01' AND DATE '2024-02-11' AND status IN ('shipped', 'returned') GROUP BY 1 ORDER BY 1`,
			[]any{"2024-01-01", "2024-02-11", "shipped", "returned", 10}},
		{"a numeric parameter against a metric",
			`SELECT orders_status, order_count FROM shop.shop GROUP BY 1 HAVING order_count > $1 ORDER BY 1`,
			`{"metrics":["order_count"],"dimensions":["orders.status"],"filters":[{"metric":"order_count","op":"gt","values":[1]}],"order_by":[{"key":"orders.status"}]}`,
			`SELECT status, COUNT(*) FROM orders GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY 1`, []any{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, wire := sqlRows(t, c, tc.sql, tc.args...)
			if err := sameRows(wire, f.handRows(t, tc.hand)); err != nil {
				t.Errorf("wire vs hand-written SQL: %v", err)
			}
			if err := sameRows(wire, f.httpRows(t, "shop", tc.query, "")); err != nil {
				t.Errorf("wire vs HTTP: %v", err)
			}
			if tc.args == nil {
				if err := sameRows(simpleRows(t, c, tc.sql), wire); err != nil {
					t.Errorf("simple vs extended protocol: %v", err)
				}
			}
		})
	}
}

// Column names and types as announced: dataset_field for dimensions,
// the metric's name, aliases kept; bigint counts, numeric sums, dates.
func TestColumnNamesAndTypes(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	rows, err := c.Query(context.Background(), `SELECT customers_state, DATE_TRUNC('month', orders_order_date), order_count, revenue AS r FROM shop.shop GROUP BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for _, fd := range rows.FieldDescriptions() {
		got = append(got, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
	}
	want := []string{"customers_state:25", "orders_order_date:1082", "order_count:20", "r:1700"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
}

// The catalog queries of pgjdbc's getTables and getColumns: a system
// catalog's name as a regclass is its fixed OID, and row_number() OVER
// (PARTITION BY ... ORDER BY ...) numbers each table's columns.
func TestCatalogRegclassAndRowNumber(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	_, rows := sqlRows(t, c, `SELECT 'pg_class'::regclass::oid, 'pg_catalog.pg_namespace'::regclass::oid`)
	if err := sameRows(rows, [][]any{{uint32(1259), uint32(2615)}}); err != nil {
		t.Errorf("regclass: %v", err)
	}
	_, rows = sqlRows(t, c, `SELECT * FROM (SELECT c.relname, a.attname, row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum DESC) AS n
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid WHERE c.relname IN ('shop', 'slow')) x
		WHERE n <= 2 ORDER BY relname, n`)
	want := [][]any{{"shop", "avg_amount", int64(1)}, {"shop", "revenue", int64(2)}, {"slow", "rows", int64(1)}, {"slow", "big_k", int64(2)}}
	if err := sameRows(rows, want); err != nil {
		t.Errorf("row_number: %v", err)
	}
}
