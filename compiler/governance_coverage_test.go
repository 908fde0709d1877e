package compiler

import (
	"strings"
	"testing"
)

const coverageModel = `version: "0.2.0.dev0"
semantic_model:
  - name: air
    datasets:
      - name: flights
        source: flights
        primary_key: [id]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}, datatype: Integer}
          - {name: origin_code, expression: {dialects: [{dialect: ANSI_SQL, expression: origin_code}]}, datatype: String}
          - {name: dest_code, expression: {dialects: [{dialect: ANSI_SQL, expression: dest_code}]}, datatype: String}
          - {name: delay, expression: {dialects: [{dialect: ANSI_SQL, expression: delay}]}, datatype: Integer}
          - {name: on_time, expression: {dialects: [{dialect: ANSI_SQL, expression: delay < 15}]}, datatype: Boolean}
      - name: origin
        source: airports
        primary_key: [code]
        fields:
          - {name: code, expression: {dialects: [{dialect: ANSI_SQL, expression: code}]}, datatype: String}
          - {name: name, expression: {dialects: [{dialect: ANSI_SQL, expression: name}]}, datatype: String}
          - {name: latitude, expression: {dialects: [{dialect: ANSI_SQL, expression: latitude}]}, datatype: Float}
      - name: destination
        source: airports
        primary_key: [code]
        fields:
          - {name: code, expression: {dialects: [{dialect: ANSI_SQL, expression: code}]}, datatype: String}
          - {name: name, expression: {dialects: [{dialect: ANSI_SQL, expression: name}]}, datatype: String}
          - {name: latitude, expression: {dialects: [{dialect: ANSI_SQL, expression: latitude}]}, datatype: Float}
    relationships:
      - {name: f_origin, from: flights, to: origin, from_columns: [origin_code], to_columns: [code]}
      - {name: f_dest, from: flights, to: destination, from_columns: [dest_code], to_columns: [code]}
    metrics:
      - {name: n, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(flights.id)}]}}
`

// TestGovernanceFollowsTheData reproduces issue 13 finding 4: a role denied
// origin.latitude, with origin.name masked, flights.delay denied and a row
// filter on origin only, could read destination.latitude,
// destination.name in clear, flights.on_time (computed from delay) and
// every destination row. Validation now refuses each with OSS2030 naming
// the path that reads around the rule; covering every path is accepted.
func TestGovernanceFollowsTheData(t *testing.T) {
	leaky := `roles:
  - name: r
    fields: {deny: [origin.latitude, flights.delay]}
    masks: [{field: origin.name, mask: hash}]
    row_filters: [{dataset: origin, expression: "code = 'SFO'"}]
`
	_, probs := LoadGoverned([]byte(coverageModel), []byte(leaky), CompileOptions{})
	var leaks []string
	for _, p := range probs {
		if p.Code == CodeGovernanceLeak {
			leaks = append(leaks, p.Path+": "+p.Message)
		}
	}
	all := strings.Join(leaks, "\n")
	for _, want := range []string{
		`governance.roles[0].fields: role "r" may not read origin.latitude, but it may read destination.latitude`,
		`governance.roles[0].fields: role "r" may not read flights.delay, but it may read flights.on_time`,
		`governance.roles[0].masks: role "r" masks origin.name, but destination.name reads the same column "name" of the same source unmasked`,
		`governance.roles[0].row_filters: role "r" filters the rows of origin, but destination reads the same source without a row filter`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing leak %q in:\n%s", want, all)
		}
	}
	if len(leaks) != 4 {
		t.Errorf("%d leaks, want 4:\n%s", len(leaks), all)
	}

	covered := `roles:
  - name: r
    fields: {deny: ["*.latitude", flights.delay, flights.on_time]}
    masks: [{field: origin.name, mask: hash}, {field: destination.name, mask: "null"}]
    row_filters: [{dataset: origin, expression: "code = 'SFO'"}, {dataset: destination, expression: "code = 'SFO'"}]
`
	if _, probs := LoadGoverned([]byte(coverageModel), []byte(covered), CompileOptions{}); probs.HasErrors() {
		t.Errorf("covered governance refused: %v", probs)
	}
}
