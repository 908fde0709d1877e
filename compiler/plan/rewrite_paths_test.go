package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// pathsCase is the conformance case whose model and tables the paths
// goldens plan over: a calendar reached from orders by order day and by
// ship day.
const pathsCase = "../../test/conformance/testdata/JA-01"

func loadPlanner(t *testing.T, doc []byte) *plan.Planner {
	t.Helper()
	arts, probs := compiler.Load(doc, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := plan.New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPathGoldens plans every testdata/paths/<case>/request.json for
// DuckDB, PostgreSQL and Trino, compares the SQL with
// expected.<dialect>.sql (-update rewrites them), and runs the DuckDB and
// PostgreSQL SQL and the hand-written answer.sql on each: the rows must
// match (Trino runs case JA-01 in test/conformance).
func TestPathGoldens(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(pathsCase, "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := os.ReadFile(filepath.Join(pathsCase, "tables.sql"))
	if err != nil {
		t.Fatal(err)
	}
	p := loadPlanner(t, doc)
	db := openDuckDB(t, string(tables))
	pg := openPostgres(t)
	if err := pg.Exec(context.Background(), string(tables)); err != nil {
		t.Fatal(err)
	}
	runs := map[dialect.Dialect]func(t *testing.T, q string) [][]any{
		dialect.DuckDB:   func(t *testing.T, q string) [][]any { return queryRows(t, db, q) },
		dialect.Postgres: func(t *testing.T, q string) [][]any { return pgRows(t, pg, q) },
		dialect.Trino:    nil,
	}
	reqs, _ := filepath.Glob("testdata/paths/*/request.json")
	if len(reqs) == 0 {
		t.Fatal("no paths goldens")
	}
	for _, req := range reqs {
		dir := filepath.Dir(req)
		q := readRequest(t, req)
		for d, run := range runs {
			t.Run(filepath.Base(dir)+"/"+d.Name(), func(t *testing.T) {
				pl, probs := p.Plan(q, d)
				if probs.HasErrors() {
					t.Fatal(probs)
				}
				checkPlanned(t, dir, d, pl, run, len(q.OrderBy) == 0)
			})
		}
	}
}

// A conversion metric grouped by one calendar along two paths: the
// conversion join and both aliases in one group.
const conversionPathsModel = `
version: "0.2.0.dev0"
semantic_model:
  - name: conv
    datasets:
      - name: signups
        source: signups
        primary_key: [user_id]
        fields:
          - {name: user_id, expression: {dialects: [{dialect: ANSI_SQL, expression: user_id}]}}
          - {name: signed_up_at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: signed_up_at}]}}
      - name: purchases
        source: purchases
        primary_key: [purchase_id]
        fields:
          - {name: purchase_id, expression: {dialects: [{dialect: ANSI_SQL, expression: purchase_id}]}}
          - {name: user_id, expression: {dialects: [{dialect: ANSI_SQL, expression: user_id}]}}
          - {name: bought_at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: bought_at}]}}
      - name: calendar
        source: calendar
        primary_key: [day]
        fields:
          - {name: month, expression: {dialects: [{dialect: ANSI_SQL, expression: month}]}}
    relationships:
      - {name: signup_day, from: signups, to: calendar, from_columns: [signup_day], to_columns: [day]}
      - {name: campaign_day, from: signups, to: calendar, from_columns: [campaign_day], to_columns: [day]}
    metrics:
      - {name: signup_users, expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(DISTINCT signups.user_id)"}]}}
      - name: buy_within_7d_rate
        expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(DISTINCT signups.user_id)"}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "conversion", "entity": "signups.user_id", "at": "signups.signed_up_at", "to_entity": "purchases.user_id", "to_at": "purchases.bought_at", "count": 7, "unit": "day"}}'}]
`

// Users 1 and 4 buy within 7 days, user 2 too late, user 5 never.
const conversionPathsTables = `
CREATE TABLE calendar (day DATE, month VARCHAR);
INSERT INTO calendar VALUES ('2023-12-28', '2023-12'), ('2024-01-01', '2024-01'), ('2024-01-02', '2024-01'), ('2024-01-10', '2024-01'), ('2024-02-15', '2024-02');
CREATE TABLE signups (user_id INTEGER, signed_up_at TIMESTAMP, signup_day DATE, campaign_day DATE);
INSERT INTO signups VALUES (1, '2024-01-01 10:00:00', '2024-01-01', '2023-12-28'), (2, '2024-01-02 09:00:00', '2024-01-02', '2024-01-01'),
  (4, '2024-01-10 08:00:00', '2024-01-10', '2023-12-28'), (5, '2024-02-15 08:00:00', '2024-02-15', '2024-01-01');
CREATE TABLE purchases (purchase_id INTEGER, user_id INTEGER, bought_at TIMESTAMP);
INSERT INTO purchases VALUES (10, 1, '2024-01-03 18:00:00'), (11, 2, '2024-01-20 09:00:00'), (13, 4, '2024-01-10 20:00:00');
`

// TestConversionAlongTwoPaths: the conversion rewrite plans with a second
// path in its group, and the rates are those worked out by hand.
func TestConversionAlongTwoPaths(t *testing.T) {
	p := loadPlanner(t, []byte(conversionPathsModel))
	db := openDuckDB(t, conversionPathsTables)
	q, probs := plan.ParseQuery([]byte(`{"metrics": ["signup_users", "buy_within_7d_rate"], "dimensions": [{"field": "calendar.month", "via": "signup_day"}, {"field": "calendar.month", "via": "campaign_day"}]}`))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if !strings.Contains(pl.Explain(), "left join calendar as calendar@campaign_day along campaign_day") {
		t.Errorf("EXPLAIN lacks the alias:\n%s", pl.Explain())
	}
	got := queryRows(t, db, pl.SQL)
	want := [][]any{
		{"2024-01", "2023-12", 2.0, 1.0},
		{"2024-01", "2024-01", 1.0, 0.0},
		{"2024-02", "2024-01", 1.0, 0.0},
	}
	if diff := compareRows(got, want); diff != "" {
		t.Errorf("%s\nSQL: %s\n got: %v\nwant: %v", diff, pl.SQL, got, want)
	}
}

// Orders reach one calendar by order day and by ship day, and their lines
// (one-to-many): grouping revenue by a line's product fans the orders out,
// so the distinct on the order key must carry both months.
const fanPathsModel = `
version: "0.2.0.dev0"
semantic_model:
  - name: fan
    datasets:
      - name: orders
        source: orders
        primary_key: [order_id]
        fields:
          - {name: order_id, expression: {dialects: [{dialect: ANSI_SQL, expression: order_id}]}}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}}
      - name: lines
        source: lines
        primary_key: [line_id]
        fields:
          - {name: line_id, expression: {dialects: [{dialect: ANSI_SQL, expression: line_id}]}}
          - {name: product, expression: {dialects: [{dialect: ANSI_SQL, expression: product}]}}
      - name: calendar
        source: calendar
        primary_key: [day]
        fields:
          - {name: month, expression: {dialects: [{dialect: ANSI_SQL, expression: month}]}}
    relationships:
      - {name: lines_orders, from: lines, to: orders, from_columns: [order_id], to_columns: [order_id]}
      - {name: ordered, from: orders, to: calendar, from_columns: [order_day], to_columns: [day]}
      - {name: shipped, from: orders, to: calendar, from_columns: [ship_day], to_columns: [day]}
    metrics:
      - {name: revenue, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(orders.amount)"}]}}
`

const fanPathsTables = `
CREATE TABLE calendar (day INTEGER, month VARCHAR);
INSERT INTO calendar VALUES (1, 'jan'), (2, 'feb');
CREATE TABLE orders (order_id INTEGER, order_day INTEGER, ship_day INTEGER, amount INTEGER);
INSERT INTO orders VALUES (1, 1, 1, 10), (2, 1, 2, 20), (3, 2, 2, 40);
CREATE TABLE lines (line_id INTEGER, order_id INTEGER, product VARCHAR);
INSERT INTO lines VALUES (1, 1, 'apple'), (2, 1, 'apple'), (3, 1, 'pear'), (4, 2, 'apple'), (5, 3, 'pear');
`

// TestFanOutAlongTwoPaths: each order counts once per (product, order
// month, ship month) group although order 1 has two apple lines.
func TestFanOutAlongTwoPaths(t *testing.T) {
	p := loadPlanner(t, []byte(fanPathsModel))
	db := openDuckDB(t, fanPathsTables)
	q, _ := plan.ParseQuery([]byte(`{"metrics": ["revenue"], "dimensions": ["lines.product", {"field": "calendar.month", "via": "ordered"}, {"field": "calendar.month", "via": "shipped"}]}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if !strings.Contains(pl.Explain(), "distinct on orders primary key") {
		t.Errorf("no fan-out distinct:\n%s", pl.Explain())
	}
	got := queryRows(t, db, pl.SQL)
	want := [][]any{
		{"apple", "jan", "feb", 20.0}, // order 2
		{"apple", "jan", "jan", 10.0}, // order 1, once
		{"pear", "feb", "feb", 40.0},  // order 3
		{"pear", "jan", "jan", 10.0},  // order 1
	}
	if diff := compareRows(got, want); diff != "" {
		t.Errorf("%s\nSQL: %s\n got: %v\nwant: %v", diff, pl.SQL, got, want)
	}
}

// A via on a member of the dataset the rows come from names no join: the
// refusal says so, and without metrics points at through (it named an
// empty path before).
func TestViaOnTheRowsOwnDataset(t *testing.T) {
	p := loadPlanner(t, []byte(conversionPathsModel))
	for _, tc := range []struct{ query, want string }{
		{`{"dimensions": [{"field": "calendar.month", "via": "signup_day"}]}`, `name one that reaches calendar along signup_day with "through"`},
		{`{"metrics": ["signup_users"], "dimensions": [{"field": "signups.user_id", "via": "signup_day"}]}`, "a via chooses how another dataset is joined"},
	} {
		q, probs := plan.ParseQuery([]byte(tc.query))
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		_, probs = p.Plan(q, dialect.DuckDB)
		if len(probs) != 1 || probs[0].Code != compiler.CodeBadVia || !strings.Contains(probs[0].Message, tc.want) || strings.Contains(probs[0].Message, "(the path is )") {
			t.Errorf("%s: %v, want %s naming %q", tc.query, probs, compiler.CodeBadVia, tc.want)
		}
	}
}
