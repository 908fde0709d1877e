package ossiectl

import (
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// query --rollups builds the model's rollup in the in-process DuckDB and
// answers from it exactly when the planner proves the answer the same:
// the rows are those of the base tables (the same query without
// --rollups), EXPLAIN names the rollup used, and a dimension the rollup
// lacks is answered from the base tables with the reason.
func TestQueryRollups(t *testing.T) {
	src, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "flights.yaml")
	ext := `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_origin_month", "measures": ["flight_count", "avg_delay", "on_time_rate"],
          "dimensions": ["origin.state"], "time_dimension": {"field": "flights.departure_time", "grain": "month"}}]}'
`
	if err := os.WriteFile(model, append(src, ext...), 0o600); err != nil {
		t.Fatal(err)
	}
	data := "../examples/flights/data/"
	base := []string{"query", model, "--load", "flights=" + data + "flights-sample.parquet", "--load", "airports=" + data + "airports.csv",
		"--format", "csv", "--explain"}
	for _, c := range []struct {
		name, dims, explain string
	}{
		{"covered", "origin.state,flights.departure_time:quarter", "rollup by_origin_month: used"},
		{"not covered", "destination.state", "rollup by_origin_month: dimension destination.state is not in the rollup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string(nil), base...), "--metrics", "flight_count,avg_delay,on_time_rate", "--dimensions", c.dims,
				"--order-by", strings.Split(c.dims, ",")[0])
			code, plain, errs := run(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if strings.Contains(errs, "scan rollup") {
				t.Errorf("a rollup was used without --rollups:\n%s", errs)
			}
			code, rolled, errs := run(t, "", append(args, "--rollups")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, c.explain) {
				t.Errorf("EXPLAIN lacks %q:\n%s", c.explain, errs)
			}
			if rolled != plain || strings.Count(plain, "\n") < 5 {
				t.Errorf("answers differ or are too small\nwith rollups:\n%s\nwithout:\n%s", rolled, plain)
			}
		})
	}
}

// query --rollups --explain under --role plans as that caller and prints
// the plan (the user holds the model and governance files, as sql --role
// prints the governed SQL): a row filter on the measures' dataset reading
// a column the rollup keeps applies on the rollup, a mask applies on its
// column, and offset pages the rollup's answer; a row filter on another
// dataset sends the query to the base tables, saying why. Each answer is
// the hand-written SQL's on the same DuckDB file.
func TestQueryRollupsGoverned(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "shop.yaml")
	ext := `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_state_status", "measures": ["revenue", "order_count"],
          "dimensions": ["customers.state", "orders.status"]}]}'
`
	if err := os.WriteFile(model, append(src, ext...), 0o600); err != nil {
		t.Fatal(err)
	}
	gov := filepath.Join(dir, "clerk.governance.yaml")
	if err := os.WriteFile(gov, []byte(`roles:
  - name: clerk
    row_filters:
      - dataset: orders
        expression: "status <> 'returned'"
    masks:
      - field: orders.status
        mask: literal
        value: hidden
`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := shopDB(t, dir)

	for _, c := range []struct {
		name    string
		gov     []string
		explain string
		sql     string
	}{
		{"row filter on the measures' dataset, masked dimension, offset",
			[]string{"--governance", gov, "--role", "clerk"},
			"rollup by_state_status: used",
			`SELECT c.state, 'hidden', SUM(o.amount), COUNT(o.order_id) FROM orders o LEFT JOIN customers c USING (customer_id)
			 WHERE o.status <> 'returned' GROUP BY c.state ORDER BY c.state NULLS LAST OFFSET 1`},
		{"row filter on another dataset",
			[]string{"--governance", "testdata/shop.governance.yaml", "--role", "state_manager", "--attr", "state=CA"},
			"rollup by_state_status: the caller's row filter on customers cannot be applied on the rollup's columns (customers is not the home of every measure)",
			`SELECT c.state, 'hidden', SUM(o.amount), COUNT(o.order_id) FROM orders o LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c USING (customer_id)
			 GROUP BY c.state ORDER BY c.state NULLS LAST OFFSET 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"query", model, "--duckdb", db, "--format", "csv", "--rollups", "--explain",
				"--metrics", "revenue,order_count", "--dimensions", "customers.state,orders.status", "--order-by", "customers.state", "--offset", "1"}, c.gov...)
			code, out, errs := run(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, c.explain) {
				t.Errorf("EXPLAIN lacks %q:\n%s", c.explain, errs)
			}
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("%v %q", err, out)
			}
			got := fmtRecs(recs[1:])
			if want := handRows(t, db, c.sql); got != want || len(recs) < 2 {
				t.Errorf("answer %s, want %s (hand-written SQL)", got, want)
			}
		})
	}
}

// handRows runs a statement of (state, status, amount, count) rows on the
// DuckDB file, formatted as fmtRecs formats the CSV answer.
func handRows(t *testing.T, file, query string) string {
	t.Helper()
	db, err := sql.Open("duckdb", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rows.Close()
	var recs [][]string
	for rows.Next() {
		var state sql.NullString
		var status string
		var amount float64
		var n int64
		if err := rows.Scan(&state, &status, &amount, &n); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, []string{state.String, status, strconv.FormatFloat(amount, 'f', -1, 64), strconv.FormatInt(n, 10)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return fmtRecs(recs)
}
