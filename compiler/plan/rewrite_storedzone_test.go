package plan

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// logModel has a naive DateTime stored in UTC (undeclared) and one whose
// dataset declares Europe/Amsterdam.
const logModel = `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: hits
        source: hits
        primary_key: [id]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}
      - name: visits
        source: visits
        primary_key: [id]
        custom_extensions: [{vendor_name: OSSIE, data: '{"timezone": "Europe/Amsterdam"}'}]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}
    metrics:
      - {name: hit_count, expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(hits.id)"}]}}
      - {name: visit_count, expression: {dialects: [{dialect: ANSI_SQL, expression: "COUNT(visits.id)"}]}}
`

func TestStoredZone(t *testing.T) {
	for _, tc := range []struct {
		install, body, stored, zone string
	}{
		// Undeclared: UTC; a UTC query is not converted.
		{"", `{"metrics":["hit_count"],"dimensions":["hits.at.day"]}`, "UTC", ""},
		{"", `{"metrics":["hit_count"],"dimensions":["hits.at.day"],"timezone":"Asia/Tokyo"}`, "UTC", "Asia/Tokyo"},
		// The install default applies where nothing is declared ...
		{"America/New_York", `{"metrics":["hit_count"],"dimensions":["hits.at.day"]}`, "America/New_York", "UTC"},
		// ... and the dataset's declaration wins over it.
		{"America/New_York", `{"metrics":["visit_count"],"dimensions":["visits.at.day"]}`, "Europe/Amsterdam", "UTC"},
		{"", `{"metrics":["visit_count"],"dimensions":["visits.at.day"],"timezone":"Europe/Amsterdam"}`, "Europe/Amsterdam", ""},
	} {
		arts, probs := compiler.Load([]byte(logModel), compiler.CompileOptions{StoredTimezone: tc.install})
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		p, err := New(arts[0])
		if err != nil {
			t.Fatal(err)
		}
		q, _ := ParseQuery([]byte(tc.body))
		pl, probs := p.Plan(q, dialect.Postgres)
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		dm := nodesOf[*aggregate](pl.tree)[0].dims[0]
		if dm.storedZone != tc.stored || dm.zone != tc.zone {
			t.Fatalf("%s (install %q): stored %q zone %q, want %q %q", tc.body, tc.install, dm.storedZone, dm.zone, tc.stored, tc.zone)
		}
		converted := strings.Contains(pl.SQL, "AT TIME ZONE '"+tc.stored+"') AT TIME ZONE")
		if converted != (tc.zone != "") {
			t.Fatalf("%s: conversion in SQL %v, want %v:\n%s", tc.body, converted, tc.zone != "", pl.SQL)
		}
		if c := pl.Columns[0]; c.StoredTimezone != tc.stored {
			t.Fatalf("%s: column states stored zone %q", tc.body, c.StoredTimezone)
		}
		if tc.zone != "" && !strings.Contains(pl.Explain(), "stored time zone: ") {
			t.Fatalf("EXPLAIN names the rewrite:\n%s", pl.Explain())
		}
	}
}
