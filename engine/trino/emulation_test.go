package trino_test

import (
	"context"
	"testing"
)

// TestTrinoSemantics: the protocol server computes what Trino documents
// where DuckDB differs: integer division truncates, day_of_week is ISO,
// millisecond is the fraction only, greatest is NULL with a NULL argument,
// regexp_extract is NULL without a match, and Trino's parameterised
// temporal types are read.
func TestTrinoSemantics(t *testing.T) {
	_, e := start(t, 10)
	res, err := e.Query(context.Background(), `SELECT 7 / 2, -7 / 2, day_of_week(DATE '2024-01-07'), dow(DATE '2024-01-08'),
		millisecond(TIMESTAMP '2024-01-01 00:00:03.250'), greatest(1, NULL), regexp_extract('abc', 'x'),
		CAST('2024-01-01 10:00:00+02:00' AS TIMESTAMP(6) WITH TIME ZONE), CAST('10:11:12' AS TIME(6)),
		CAST(CAST(7 AS DOUBLE) / 2 AS DOUBLE), concat('a', NULL)`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Rows[0]
	want := []any{int64(3), int64(-3), int64(7), int64(1), int64(250), nil, nil, "2024-01-01T08:00:00Z", "10:11:12", 3.5, nil}
	for i, w := range want {
		g := got[i]
		if tm, ok := g.(interface{ Format(string) string }); ok {
			g = tm.Format("2006-01-02T15:04:05Z07:00")
		}
		if g != w {
			t.Errorf("column %d: got %#v, want %#v", i+1, got[i], w)
		}
	}
}

// TestTrinoDateArithmetic: date_diff counts whole elapsed units, toward
// zero (Trino), not boundaries crossed (DuckDB); date_add takes the unit
// first and clamps months.
func TestTrinoDateArithmetic(t *testing.T) {
	_, e := start(t, 10)
	res, err := e.Query(context.Background(), `SELECT
		date_diff('day', TIMESTAMP '2024-01-01 23:00:00', TIMESTAMP '2024-01-02 01:00:00'),
		date_diff('day', TIMESTAMP '2024-01-02 01:00:00', TIMESTAMP '2024-01-01 23:00:00'),
		date_diff('hour', TIMESTAMP '2024-01-01 10:59:00', TIMESTAMP '2024-01-01 12:58:00'),
		date_diff('month', DATE '2024-01-31', DATE '2024-02-29'),
		date_diff('month', DATE '2024-01-15', DATE '2024-03-14'),
		date_diff('month', DATE '2024-03-14', DATE '2024-01-15'),
		date_diff('year', DATE '2023-06-01', DATE '2024-05-31'),
		date_diff('millisecond', TIMESTAMP '2024-01-01 10:59:00', TIMESTAMP '2024-01-01 10:59:59.900'),
		date_add('month', 1, TIMESTAMP '2024-01-31 10:00:00'),
		date_add('millisecond', 250, TIMESTAMP '2024-01-01 00:00:00')`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Rows[0]
	want := []any{int64(0), int64(0), int64(1), int64(1), int64(1), int64(-1), int64(0), int64(59900), "2024-02-29T10:00:00Z", "2024-01-01T00:00:00.25Z"}
	for i, w := range want {
		g := got[i]
		if tm, ok := g.(interface{ Format(string) string }); ok {
			g = tm.Format("2006-01-02T15:04:05.999Z07:00")
		}
		if g != w {
			t.Errorf("column %d: got %#v, want %#v", i+1, got[i], w)
		}
	}
}
