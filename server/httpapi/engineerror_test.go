package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/servertest"
)

// leakMarkers are fragments of the planned SQL of a state_analyst query,
// of its row filter, and of DuckDB's diagnostics; none may reach a caller.
var leakMarkers = []string{"SELECT", " FROM ", "WHERE", "'CA'", "state =", `"state"`, "returned",
	"Candidate bindings", "Binder Error", "Catalog Error", "Conversion Error", "LINE 1", "customer_id", "INT"}

func wantNoLeak(t *testing.T, body []byte) {
	t.Helper()
	for _, m := range leakMarkers {
		if strings.Contains(string(body), m) {
			t.Errorf("response carries %q: %s", m, body)
		}
	}
}

// wantRequestID checks that the problem carries the response's request id
// and that the server log has the engine's message under it.
func wantRequestID(t *testing.T, f *authFixture, resp *http.Response, body []byte, logged string) {
	t.Helper()
	var doc struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.RequestID == "" || doc.RequestID != resp.Header.Get(problem.RequestIDHeader) {
		t.Fatalf("request_id %q, header %q", doc.RequestID, resp.Header.Get(problem.RequestIDHeader))
	}
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, `"msg":"engine error"`) && strings.Contains(line, doc.RequestID) && strings.Contains(line, logged) {
			return
		}
	}
	t.Errorf("no engine error logged under %s with %q:\n%s", doc.RequestID, logged, f.logs.String())
}

// TestEngineErrorsDoNotLeak: an engine failure of a governed caller's query
// is a fixed sentence per class; the planned SQL (with the caller's row
// filter) and the physical names are only in the log, under the request
// id the problem carries.
func TestEngineErrorsDoNotLeak(t *testing.T) {
	// A role with a row filter that may read customers.customer_id, whose
	// datatype shop.yaml does not declare: the planner passes a string
	// value on and the engine refuses to convert it.
	dir := t.TempDir()
	gov := filepath.Join(dir, "gov.yaml")
	writeFile(t, gov, "attributes: [{name: state}]\nroles:\n  - name: by_state\n    row_filters:\n      - {dataset: customers, expression: \"state = {{ caller.state }}\"}\n      - {dataset: orders, expression: \"status <> 'returned'\"}\n")
	tokens := filepath.Join(dir, "tokens.yaml")
	writeFile(t, tokens, "tokens:\n  - {name: ca, token: tok-by-state-ca-000000000, roles: [by_state], attributes: {state: CA}}\n")
	shop, err := load.GovernedModels([]string{"../testdata/shop.yaml"}, gov, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := newAuthFixture(t, auth.Options{TokensFile: tokens}, func(c *server.Config) { c.Models = shop })
	state := bearer("tok-by-state-ca-000000000")

	resp, body := f.call(t, "POST", "/v1/models/shop/query",
		`{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"field":"customers.customer_id","op":"gt","values":["abc"]}]}`, state)
	p := wantProblem(t, resp, body, 400, compiler.CodeBadFilter)
	if !strings.HasPrefix(p.Detail, server.DetailInvalidInput) || len(p.Problems) != 1 || p.Problems[0].Path != "filters[0].values" {
		t.Errorf("invalid input problem: %s", body)
	}
	wantNoLeak(t, body)
	wantRequestID(t, f, resp, body, "abc")

	// Two filters with values: which one failed is not known, no path.
	resp, body = f.call(t, "POST", "/v1/models/shop/query",
		`{"metrics":["revenue"],"filters":[{"field":"customers.customer_id","op":"gt","values":["abc"]},{"field":"orders.status","op":"=","values":["placed"]}]}`, state)
	p = wantProblem(t, resp, body, 400, compiler.CodeBadFilter)
	if p.Detail != server.DetailInvalidInput || p.Problems[0].Path != "" {
		t.Errorf("two filters: %s", body)
	}
	wantNoLeak(t, body)

	// Drift: the customers table is gone. The planned SQL holds the row
	// filter state = 'CA'; the answer names no table and no filter.
	if err := f.eng.Exec(context.Background(), "DROP TABLE customers"); err != nil {
		t.Fatal(err)
	}
	resp, body = f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"],"dimensions":["customers.state"]}`, state)
	p = wantProblem(t, resp, body, 502, compiler.CodeEngine)
	if p.Detail != server.DetailNotFound+server.DetailInLog {
		t.Errorf("drift detail %q", p.Detail)
	}
	wantNoLeak(t, body)
	if strings.Contains(string(body), "customers") {
		t.Errorf("drift names the physical table: %s", body)
	}
	wantRequestID(t, f, resp, body, "customers")
}

// TestDebugErrors: --debug-errors shows the engine's message to ungoverned
// callers only.
func TestDebugErrors(t *testing.T) {
	const q = `{"metrics":["gone_count"]}`
	plain := newFixture(t, nil)
	resp, body := plain.do(t, "POST", "/v1/models/missing/query", q)
	if p := wantProblem(t, resp, body, 502, compiler.CodeEngine); strings.Contains(p.Detail, "no_such_table") {
		t.Errorf("default leaks: %s", body)
	}
	debug := newFixture(t, func(c *server.Config) { c.DebugErrors = true })
	resp, body = debug.do(t, "POST", "/v1/models/missing/query", q)
	if p := wantProblem(t, resp, body, 502, compiler.CodeEngine); !strings.Contains(p.Detail, "no_such_table") {
		t.Errorf("debug without the engine message: %s", body)
	}
	// In-process callers keep the engine's message in EngineMessage.
	_, err := debug.srv.Answer(auth.WithIdentity(context.Background(), &auth.Identity{Name: "g", Roles: []string{"x"}}), "missing", servertest.MustQuery(t, q))
	var e *problem.Error
	if !errors.As(err, &e) || strings.Contains(e.Detail, "no_such_table") || !strings.Contains(e.EngineMessage, "no_such_table") {
		t.Errorf("governed in-process caller with debug: %#v", err)
	}
}

// TestBodyDecodeProblems: a body that does not decode gets OSS4001 in the
// query's words with the path of the member, never Go type names.
func TestBodyDecodeProblems(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct{ body, path, words string }{
		{`[]`, "", "must be a JSON object, not an array"},
		{`{"metrics":["revenue"],"limit":"10"}`, "limit", "limit must be an integer, not a string"},
		{`{"metrics":"revenue"}`, "metrics", "metrics must be a list of strings, not a string"},
		{`{"metrics":["revenue"],"filters":[{"field":"orders.status","op":7}]}`, "filters.op", "filters.op must be a string, not a number"},
		{`{"metrics":["revenue"],"limt":1}`, "limt", `unknown key "limt"`},
		{`{"metrics":`, "", "ends before the JSON object is complete"},
		{`{"metrics":[}`, "", "not valid JSON"},
		{`{"metrics":["revenue"]} {}`, "", "data after the query object"},
		{``, "", "the body is empty"},
	} {
		resp, body := f.do(t, "POST", "/v1/models/shop/query", tc.body)
		p := wantProblem(t, resp, body, 400, compiler.CodeBadQuery)
		if len(p.Problems) != 1 || p.Problems[0].Path != tc.path || !strings.Contains(p.Detail, tc.words) {
			t.Errorf("%s: %s", tc.body, body)
		}
		for _, goWord := range []string{"Go ", "plan.", "struct", "unmarshal", "json:"} {
			if strings.Contains(string(body), goWord) {
				t.Errorf("%s: Go internals %q in %s", tc.body, goWord, body)
			}
		}
	}
}

// TestGovernedFlightsErrorsDoNotLeak runs the README's governed flights
// setup (examples/flights, role analyst with the row filter origin_code =
// the caller's airport): a governed answer, then drift (the flights table
// gone) whose problem shows neither the row filter nor the planned SQL.
func TestGovernedFlightsErrorsDoNotLeak(t *testing.T) {
	arts, err := load.GovernedModels([]string{"../../examples/flights/model.yaml"}, "../../examples/flights/governance.yaml", compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	writeFile(t, tokens, "tokens:\n  - {name: sfo, token: tok-analyst-sfo-000000000, roles: [analyst], attributes: {airport: SFO}}\n")
	f := newAuthFixture(t, auth.Options{TokensFile: tokens}, func(c *server.Config) { c.Models = arts })
	ctx := context.Background()
	for table, file := range map[string]string{"flights": "flights-sample.parquet", "airports": "airports.csv"} {
		if err := f.eng.LoadFile(ctx, table, "../../examples/flights/data/"+file); err != nil {
			t.Fatal(err)
		}
	}
	sfo := bearer("tok-analyst-sfo-000000000")
	const q = `{"metrics":["flight_count"],"dimensions":["origin.code","destination.name"],"order_by":[{"key":"flight_count","dir":"desc"}],"limit":1}`
	var ans server.Response
	resp, body := f.call(t, "POST", "/v1/models/flights/query", q, sfo)
	if resp.StatusCode != 200 || json.Unmarshal(body, &ans) != nil || len(ans.Rows) != 1 || ans.Rows[0][0] != "SFO" || !strings.HasSuffix(ans.Rows[0][1].(string), "****") {
		t.Fatalf("governed answer %d %s", resp.StatusCode, body)
	}

	if err := f.eng.Exec(ctx, "DROP TABLE flights"); err != nil {
		t.Fatal(err)
	}
	resp, body = f.call(t, "POST", "/v1/models/flights/query", q, sfo)
	p := wantProblem(t, resp, body, 502, compiler.CodeEngine)
	if p.Detail != server.DetailNotFound+server.DetailInLog {
		t.Errorf("detail %q", p.Detail)
	}
	for _, m := range []string{"origin_code", "'SFO'", "SFO", "SELECT", " FROM ", "WHERE", "JOIN", "airports", "Catalog Error", "does not exist"} {
		if strings.Contains(string(body), m) {
			t.Errorf("response carries %q: %s", m, body)
		}
	}
	wantRequestID(t, f, resp, body, "flights")
}
