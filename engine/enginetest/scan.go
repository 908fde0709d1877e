package enginetest

import (
	"database/sql"
	"testing"
)

// ScanAll runs query on db without a prepared statement and scans every
// value of every row into any, failing tb on any error: what hand-written
// SQL costs a Go client through database/sql, the baseline the engine and
// server benchmarks compare with.
func ScanAll(tb testing.TB, db *sql.DB, query string) {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
}
