package plan_test

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// typedModel declares one field of each checked datatype over a DuckDB
// table whose columns have the matching SQL types.
const typedModel = `
version: "0.2.0.dev0"
semantic_model:
  - name: air
    datasets:
      - name: flights
        source: flights
        fields:
          - name: departure_time
            datatype: DateTime
            expression: {dialects: [{dialect: ANSI_SQL, expression: departure_time}]}
          - name: flight_date
            datatype: Date
            expression: {dialects: [{dialect: ANSI_SQL, expression: flight_date}]}
          - name: cancelled
            datatype: Boolean
            expression: {dialects: [{dialect: ANSI_SQL, expression: cancelled}]}
          - name: distance
            datatype: Integer
            expression: {dialects: [{dialect: ANSI_SQL, expression: distance}]}
          - name: dep_clock
            datatype: Time
            expression: {dialects: [{dialect: ANSI_SQL, expression: dep_clock}]}
          - name: state
            datatype: String
            expression: {dialects: [{dialect: ANSI_SQL, expression: state}]}
    metrics:
      - name: flight_count
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(*)}]}
`

func openFlights(t *testing.T) (*plan.Planner, *sql.DB) {
	t.Helper()
	arts, probs := compiler.Load([]byte(typedModel), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE flights (departure_time TIMESTAMP, flight_date DATE, cancelled BOOLEAN, distance INTEGER, dep_clock TIME, state VARCHAR);
		INSERT INTO flights VALUES
		('2001-01-01 08:00:00', '2001-01-01', false, 300, '08:00:00', 'CA'),
		('2001-01-02 09:30:00', '2001-01-02', true, 500, '09:30:00', 'CA'),
		('2001-01-03 10:00:00', '2001-01-03', false, 700, '10:00:00.5', 'NY')`); err != nil {
		t.Fatal(err)
	}
	return p, db
}

// TestFilterValuesRefusedBeforeEngine: a value that cannot be of the
// field's datatype, or that SQL text cannot carry (NUL, invalid UTF-8), is
// an OSS4005 problem at filters[i] from PlanFor, never a plan the engine
// would reject or silently reinterpret ("C\x00A" once matched 'CA').
func TestFilterValuesRefusedBeforeEngine(t *testing.T) {
	p, db := openFlights(t)
	bad := []struct {
		field, op string
		values    []any
		text      string
	}{
		{"flights.state", "=", []any{"C\x00A"}, "NUL"},
		{"flights.state", "contains", []any{"C\x00"}, "NUL"},
		{"flights.state", "in", []any{"NY", "C\xffA"}, "UTF-8"},
		{"flights.departure_time", "gt", []any{"2001-13-45"}, "calendar date"},
		{"flights.departure_time", "gt", []any{"2001-01-01 25:00:00"}, "timestamp"},
		{"flights.departure_time", "lt", []any{"2001-01-01T10:61"}, "timestamp"},
		{"flights.departure_time", "gt", []any{"2001-02-30T00:00:00+02:00"}, "RFC 3339"},
		{"flights.departure_time", "gt", []any{"tomorrow"}, "neither a date"},
		{"flights.departure_time", "gt", []any{20010101}, "not a date or timestamp"},
		{"flights.flight_date", "=", []any{"2001-02-29"}, "calendar date"},
		{"flights.flight_date", "in_date_range", []any{"2001-01-01", "2001-04-31"}, "calendar date"},
		{"flights.cancelled", "=", []any{"maybe"}, "not a boolean"},
		{"flights.cancelled", "=", []any{1}, "not a boolean"},
		{"flights.distance", "gt", []any{"far"}, "not a number"},
		{"flights.distance", "gt", []any{true}, "not a number"},
		{"flights.dep_clock", "=", []any{"25:00"}, "real time of day"},
		{"flights.dep_clock", "=", []any{"2001-01-01"}, "not a time of day"},
		{"flights.dep_clock", "gt", []any{930}, "not a time of day"},
	}
	for _, b := range bad {
		q := &plan.Query{Metrics: []string{"flight_count"}, Filters: []plan.Filter{
			{Field: "flights.state", Op: "is_not_null"},
			{Field: b.field, Op: b.op, Values: b.values},
		}}
		pl, probs := p.PlanFor(q, dialect.DuckDB, nil)
		if pl != nil {
			var n int
			err := db.QueryRow(pl.SQL).Scan(&n)
			t.Errorf("%s %s %q: planned (engine: n=%d err=%v), want %s", b.field, b.op, b.values, n, err, compiler.CodeBadFilter)
			continue
		}
		if len(probs) != 1 || probs[0].Code != compiler.CodeBadFilter || probs[0].Path != "filters[1]" || !strings.Contains(probs[0].Message, b.text) {
			t.Errorf("%s %s %q: want one %s at filters[1] mentioning %q, got %v", b.field, b.op, b.values, compiler.CodeBadFilter, b.text, probs)
		}
	}

	// Every bad filter is reported at once.
	q := &plan.Query{Metrics: []string{"flight_count"}, Filters: []plan.Filter{
		{Field: "flights.cancelled", Op: "=", Values: []any{"maybe"}},
		{Field: "flights.flight_date", Op: "=", Values: []any{"2001-02-29"}},
	}}
	if _, probs := p.PlanFor(q, dialect.DuckDB, nil); len(probs) != 2 {
		t.Errorf("want 2 problems, got %v", probs)
	}

	good := []struct {
		field, op string
		values    []any
		want      int
	}{
		{"flights.state", "=", []any{"CA"}, 2},
		{"flights.departure_time", "gt", []any{"2001-01-02"}, 2},
		{"flights.departure_time", "gte", []any{"2001-01-02 09:30"}, 2},
		{"flights.departure_time", "gt", []any{"2001-01-02T09:30:00.5"}, 1},
		// 10:00+02:00 is 08:00 UTC, the query time zone.
		{"flights.departure_time", "lte", []any{"2001-01-01T10:00:00+02:00"}, 1},
		{"flights.flight_date", "=", []any{"2001-01-03"}, 1},
		{"flights.flight_date", "in_date_range", []any{"2001-01-01", "2001-01-02"}, 2},
		{"flights.cancelled", "=", []any{true}, 1},
		{"flights.cancelled", "=", []any{"False"}, 2},
		{"flights.distance", "between", []any{"300", 500}, 2},
		{"flights.dep_clock", "gte", []any{"09:30"}, 2},
		{"flights.dep_clock", "gt", []any{"10:00:00.25"}, 1},
	}
	for _, g := range good {
		q := &plan.Query{Metrics: []string{"flight_count"}, Filters: []plan.Filter{{Field: g.field, Op: g.op, Values: g.values}}}
		pl, probs := p.PlanFor(q, dialect.DuckDB, nil)
		if pl == nil {
			t.Errorf("%s %s %v: %v", g.field, g.op, g.values, probs)
			continue
		}
		var n int
		if err := db.QueryRow(pl.SQL).Scan(&n); err != nil || n != g.want {
			t.Errorf("%s %s %v: %d rows (err %v), want %d\n%s", g.field, g.op, g.values, n, err, g.want, pl.SQL)
		}
	}
}
