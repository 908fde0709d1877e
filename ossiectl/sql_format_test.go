package ossiectl

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestSQLPrintedFormatted: `ossiectl sql` prints the statement laid out
// on lines, --compact the one line the engine is sent; both run on DuckDB
// to the same rows, which hand-written SQL on the same data gives too.
func TestSQLPrintedFormatted(t *testing.T) {
	args := []string{"sql", "testdata/shop.yaml", "--metrics", "revenue,order_count", "--dimensions", "customers.state",
		"--filter", "orders.status:in:placed,shipped  late", "--order-by", "revenue:desc"}
	code, formatted, errs := run(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	code, compact, errs := run(t, "", append(args, "--compact")...)
	if code != 0 {
		t.Fatalf("--compact: exit %d\n%s", code, errs)
	}
	if strings.Count(strings.TrimSpace(compact), "\n") != 0 || strings.Count(formatted, "\n") < 8 ||
		!strings.Contains(formatted, "\nFROM (\n  SELECT") || !strings.Contains(formatted, "'shipped  late'") {
		t.Fatalf("formatted:\n%s\ncompact:\n%s", formatted, compact)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE customers (customer_id INTEGER, state VARCHAR)`,
		`INSERT INTO customers VALUES (1, 'CA'), (2, 'NY'), (3, 'CA')`,
		`CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, status VARCHAR, order_date DATE, amount DECIMAL(10,2))`,
		`INSERT INTO orders VALUES (1, 1, 'placed', '2024-01-01', 10), (2, 2, 'shipped  late', '2024-01-02', 20),
			(3, 3, 'returned', '2024-01-03', 40), (4, 3, 'placed', '2024-01-04', 5), (5, 2, 'shipped late', '2024-01-05', 1)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(q string) string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var state string
			var revenue, count any
			if err := rows.Scan(&state, &revenue, &count); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %v %v", state, revenue, count))
		}
		return strings.Join(out, "; ")
	}
	want := answer(`SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id
		WHERE o.status IN ('placed', 'shipped  late') GROUP BY 1 ORDER BY 2 DESC`)
	if got := answer(formatted); got != want || want != "NY 20 1; CA 15 2" {
		t.Errorf("formatted SQL answers %q, hand-written SQL %q", got, want)
	}
	if got := answer(compact); got != want {
		t.Errorf("compact SQL answers %q, hand-written SQL %q", got, want)
	}
}
