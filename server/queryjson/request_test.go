package queryjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

// TestDecodeProblems: every way a body can be wrong is one 400 problem
// with the code and the JSON path of the offending member, in the words
// of the query format, whichever front end (HTTP or MCP) reads it.
func TestDecodeProblems(t *testing.T) {
	for _, tc := range []struct {
		name, body, code, path, message string
	}{
		{"empty", ``, compiler.CodeBadQuery, "", "the body is empty"},
		{"not json", `{"metrics": [`, compiler.CodeBadQuery, "", "ends before the JSON object is complete"},
		{"syntax", `{"metrics": ]}`, compiler.CodeBadQuery, "", "not valid JSON (at byte 13)"},
		{"not an object", `[1]`, compiler.CodeBadQuery, "", "must be a JSON object, not an array"},
		{"wrong type", `{"metrics": "revenue", "limit": 5}`, compiler.CodeBadQuery, "metrics", "metrics must be a list of strings, not a string"},
		{"wrong type inside", `{"metrics": ["revenue"], "limit": "five"}`, compiler.CodeBadQuery, "limit", "limit must be an integer, not a string"},
		{"unknown key", `{"metrics": ["revenue"], "metrcs": []}`, compiler.CodeBadQuery, "metrcs", `unknown key "metrcs"`},
		{"trailing data", `{"metrics": ["revenue"]} {}`, compiler.CodeBadQuery, "", "data after the query object"},
		{"key twice", `{"metrics": ["revenue"], "filters": [{"field": "orders.status", "op": "=", "op": "!=", "values": ["x"]}]}`,
			compiler.CodeBadQuery, "filters[0].op", `key "op" is given twice`},
		{"too deep", `{"metrics": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, compiler.CodeDocumentTooComplex, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, e := Decode([]byte(tc.body))
			if e == nil || req != nil {
				t.Fatalf("accepted: %+v", req)
			}
			if e.Status != 400 || len(e.Problems) != 1 {
				t.Fatalf("status %d, %d problems: %+v", e.Status, len(e.Problems), e.Problems)
			}
			p := e.Problems[0]
			if p.Code != tc.code || p.Path != tc.path || !strings.Contains(p.Message, tc.message) {
				t.Fatalf("problem %s at %q: %q; want %s at %q containing %q", p.Code, p.Path, p.Message, tc.code, tc.path, tc.message)
			}
		})
	}
}

// TestDecodeKeepsTheQuery: a good body decodes to the query it spells,
// with numbers exact and the request's own option, total, beside it; the
// options each endpoint does not read are refused there.
func TestDecodeKeepsTheQuery(t *testing.T) {
	req, e := Decode([]byte(`{"metrics": ["revenue"], "dimensions": ["orders.status"], "filters": [{"field": "orders.amount", "op": "gt", "values": [12345678901234567890]}], "limit": 2, "total": true}`))
	if e != nil {
		t.Fatal(e)
	}
	if len(req.Metrics) != 1 || req.Metrics[0] != "revenue" || req.Limit == nil || *req.Limit != 2 || !req.Total {
		t.Fatalf("decoded %+v", req)
	}
	if v, ok := req.Filters[0].Values[0].(json.Number); !ok || v.String() != "12345678901234567890" {
		t.Fatalf("filter value %v (%T), want the exact number", req.Filters[0].Values[0], req.Filters[0].Values[0])
	}
	if p := req.ForAnswer(); p != nil {
		t.Fatalf("total refused by an answer: %v", p)
	}
	if p := req.ForPlan(); p == nil || p.Problems[0].Path != "total" {
		t.Fatalf("total accepted by a plan: %v", p)
	}
	req.Explain = true
	if p := req.ForAnswer(); p == nil || p.Problems[0].Path != "explain" {
		t.Fatalf("explain accepted by an answer: %v", p)
	}
}

// TestStrict: the fixed-argument calls refuse unknown keys and wrong
// types with the key's path.
func TestStrict(t *testing.T) {
	var in struct {
		Model string `json:"model"`
	}
	for body, path := range map[string]string{`{"modle": "shop"}`: "modle", `{"model": 1}`: "model"} {
		err := Strict([]byte(body), &in)
		if err == nil || !strings.Contains(err.Error(), compiler.CodeBadQuery) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want OSS4001 at %s", body, err, path)
		}
	}
	if err := Strict([]byte(`{"model": "shop"}`), &in); err != nil || in.Model != "shop" {
		t.Fatalf("%v %+v", err, in)
	}
}
