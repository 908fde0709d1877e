package server

import (
	"context"
	"errors"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/problem"
)

// A conversion metric's expression is its base (issue 24, bug 4): a
// filtered COUNT(DISTINCT CASE WHEN plan = 'pro' THEN user_id END) counts
// only pro sign-ups, and the numerator only the pro ones that converted;
// the rate is checked against hand-written SQL on the same rows. A base
// that counts no entity (SUM) is refused.
func TestConversionExpressionIsTheBase(t *testing.T) {
	ctx := context.Background()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(ctx, `CREATE TABLE signups (user_id INTEGER, plan VARCHAR, signed_up_at DATE);
INSERT INTO signups VALUES (1, 'pro', DATE '2024-01-01'), (2, 'pro', DATE '2024-01-01'), (3, 'free', DATE '2024-01-01'), (4, 'free', DATE '2024-01-02'), (5, 'pro', DATE '2024-01-03');
CREATE TABLE purchases (user_id INTEGER, bought_at DATE);
INSERT INTO purchases VALUES (1, DATE '2024-01-03'), (3, DATE '2024-01-02'), (4, DATE '2024-01-05'), (5, DATE '2024-02-01');`); err != nil {
		t.Fatal(err)
	}
	const doc = `
version: "0.2.0.dev0"
semantic_model:
  - name: funnel
    datasets:
      - name: signups
        source: signups
        fields:
          - {name: user_id, expression: {dialects: [{dialect: ANSI_SQL, expression: user_id}]}}
          - {name: plan, expression: {dialects: [{dialect: ANSI_SQL, expression: plan}]}}
          - {name: signed_up_at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: signed_up_at}]}}
      - name: purchases
        source: purchases
        fields:
          - {name: user_id, expression: {dialects: [{dialect: ANSI_SQL, expression: user_id}]}}
          - {name: bought_at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: bought_at}]}}
    metrics:
      - name: pro_rate
        expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(DISTINCT CASE WHEN signups.plan = 'pro' THEN signups.user_id END)"}]}
        custom_extensions:
          - {vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "conversion", "entity": "signups.user_id", "at": "signups.signed_up_at", "to_entity": "purchases.user_id", "to_at": "purchases.bought_at", "count": 7, "unit": "day"}}'}
      - name: summed
        expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(signups.user_id)"}]}
        custom_extensions:
          - {vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "conversion", "entity": "signups.user_id", "at": "signups.signed_up_at", "to_entity": "purchases.user_id", "to_at": "purchases.bought_at", "count": 7, "unit": "day"}}'}
`
	arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatalf("%+v", probs.Errors())
	}
	srv, err := New(Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := plan.ParseQuery([]byte(`{"metrics":["pro_rate"]}`))
	resp, err := srv.Answer(ctx, "funnel", q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eng.Query(ctx, `SELECT CAST(COUNT(DISTINCT CASE WHEN p.user_id IS NOT NULL THEN s.user_id END) AS DOUBLE) / COUNT(DISTINCT s.user_id)
FROM signups s LEFT JOIN purchases p ON p.user_id = s.user_id AND p.bought_at >= s.signed_up_at AND p.bought_at <= s.signed_up_at + INTERVAL 7 DAY
WHERE s.plan = 'pro'`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Rows) != 1 || resp.Rows[0][0] != want.Rows[0][0] || want.Rows[0][0] != 1.0/3 {
		t.Errorf("pro_rate %v, want %v (1 of 3 pro users converted)", resp.Rows, want.Rows)
	}
	q, _ = plan.ParseQuery([]byte(`{"metrics":["summed"]}`))
	_, err = srv.Answer(ctx, "funnel", q)
	var se *problem.Error
	if !errors.As(err, &se) || len(se.Problems) == 0 || se.Problems[0].Code != compiler.CodeMetricTypeConversion {
		t.Errorf("a SUM base: %v, want %s", err, compiler.CodeMetricTypeConversion)
	}
}
