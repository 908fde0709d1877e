package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

const convModel = `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - {name: s, source: s, primary_key: [id], fields: [{name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}, {name: at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}]}
      - {name: p, source: p, primary_key: [pid], fields: [{name: pid, expression: {dialects: [{dialect: ANSI_SQL, expression: pid}]}}, {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}, {name: amount, datatype: Integer, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}}, {name: at, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}]}
    metrics:
      - {name: users, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(DISTINCT s.id)}]}}
      - name: buyers
        expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(DISTINCT s.id)}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "conversion", "calculation": "conversions", "entity": "s.id", "at": "s.at", "to_entity": "p.id", "to_at": "p.at", "count": 1, "unit": "month", "to_filter": "p.amount >= 20"}}'}]
      - {name: non_buyers, expression: {dialects: [{dialect: ANSI_SQL, expression: users - buyers}]}}
`

// A count of conversions is its own group, a conversion join filtered by
// to_filter and windowed in calendar months, answering an Integer; a
// derived metric over it reads that group's column.
func TestConversionCount(t *testing.T) {
	arts, cprobs := compiler.Load([]byte(convModel), compiler.CompileOptions{})
	if cprobs.HasErrors() {
		t.Fatal(cprobs)
	}
	p, err := New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	root := planOf(t, p, `{"metrics":["buyers","non_buyers"]}`, nil)
	cj := nodesOf[*convJoin](root)
	if len(cj) != 1 || !cj[0].conv.counts || cj[0].conv.unit != "MONTH" || !strings.Contains(cj[0].conv.toFilter, `"amount"`) {
		t.Fatalf("want one conversion join counting, by month, filtered; got %d %+v", len(cj), cj)
	}
	for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Postgres, dialect.Trino} {
		pl, probs := p.Plan(&Query{Metrics: []string{"non_buyers", "buyers"}}, d)
		if len(probs) > 0 {
			t.Fatalf("%s: %v", d.Name(), probs)
		}
		if !strings.Contains(pl.SQL, `>= 20)`) || strings.Count(pl.SQL, "LEFT JOIN") != 1 {
			t.Errorf("%s: the to_filter is not in the one conversion join:\n%s", d.Name(), pl.SQL)
		}
		if pl.Columns[1].Datatype != "Integer" {
			t.Errorf("%s: buyers answers %q, want Integer", d.Name(), pl.Columns[1].Datatype)
		}
		if !strings.Contains(pl.Explain(), "rows meeting to_filter only") || !strings.Contains(pl.Explain(), "calculation: conversions") {
			t.Errorf("%s: EXPLAIN does not say the filter and the count:\n%s", d.Name(), pl.Explain())
		}
	}
}

// A conversion's to_filter reads its fields as the metric's expression
// does: a role that may not read p.amount, or sees it hashed, does not get
// a metric whose meaning depends on it (buyers, and non_buyers over it).
func TestConversionToFilterIsGoverned(t *testing.T) {
	gov := `roles:
  - name: hashed
    masks: [{field: p.amount, mask: hash}]
  - name: denied
    fields: {deny: [p.amount]}
`
	arts, probs := compiler.LoadGoverned([]byte(strings.Replace(convModel, `"p.amount >= 20"`, `"amount >= 20"`, 1)), []byte(gov), compiler.CompileOptions{})
	arts2, probs2 := compiler.LoadGoverned([]byte(convModel), []byte(gov), compiler.CompileOptions{})
	if probs.HasErrors() || probs2.HasErrors() {
		t.Fatal(probs, probs2)
	}
	for _, a := range []*compiler.Artifact{arts[0], arts2[0]} {
		p, err := New(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range []string{"hashed", "denied"} {
			v := p.Visible(&Caller{Roles: []string{role}})
			if v.Metric("buyers") || v.Metric("non_buyers") || !v.Metric("users") {
				t.Errorf("%s: role %s sees users %v, buyers %v, non_buyers %v", a.Metrics[1].Type.ToFilter, role, v.Metric("users"), v.Metric("buyers"), v.Metric("non_buyers"))
			}
		}
	}
}
