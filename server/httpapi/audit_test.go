package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/servertest"
)

// auditLines returns the audit lines ("msg":"query") of a JSON log.
func auditLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "query" {
			out = append(out, m)
		}
	}
	return out
}

// TestAuditLog: one line per query, answered or refused, with the caller,
// roles, model version, members, rows and outcome; filter values only
// when enabled.
func TestAuditLog(t *testing.T) {
	audit := &server.AuditOptions{}
	f := newGovernedFixture(t, func(c *server.Config) { c.Audit = audit })
	body := `{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"!=","values":["secret-value"]}]}`
	if resp, b := f.call(t, "POST", "/v1/models/shop/query", body, bearer(governedToken("state"))); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b := f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["revenu"]}`, bearer(governedToken("ops")))
	wantProblem(t, resp, b, 400, "OSS4002")
	lines := auditLines(t, f.logs.String())
	if len(lines) != 2 {
		t.Fatalf("%d audit lines: %s", len(lines), f.logs.String())
	}
	ok, bad := lines[0], lines[1]
	var shopVersion string
	for _, a := range f.srv.Models() {
		if a.Name == "shop" {
			shopVersion = a.Version
		}
	}
	// The state analyst sees shipped and placed orders of its state (returned ones are filtered).
	answer, err := f.srv.Answer(auth.WithIdentity(t.Context(), &auth.Identity{Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}}),
		"shop", servertest.MustQuery(t, body))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"caller": "state", "model": "shop", "model_version": shopVersion, "via": "http",
		"outcome": "ok", "status": 200.0, "truncated": false, "rows": float64(answer.RowCount), "auth": "token"} {
		if ok[k] != want {
			t.Errorf("%s = %v, want %v (%v)", k, ok[k], want, ok)
		}
	}
	if !servertest.EqualJSON(ok["roles"], []string{"state_analyst"}) || !servertest.EqualJSON(ok["metrics"], []string{"revenue"}) ||
		!servertest.EqualJSON(ok["dimensions"], []string{"orders.status"}) || !servertest.EqualJSON(ok["filters"], []map[string]string{{"member": "orders.status", "op": "!="}}) {
		t.Errorf("members %v", ok)
	}
	if id, _ := ok["request_id"].(string); id == "" || ok["duration_ms"] == nil {
		t.Errorf("duration or request id missing: %v", ok)
	}
	if strings.Contains(f.logs.String(), "secret-value") {
		t.Error("a filter value reached the log without FilterValues")
	}
	if bad["outcome"] != "OSS4002" || bad["status"] != 400.0 || bad["caller"] != "ops" || bad["rows"] != 0.0 || bad["model_version"] != shopVersion {
		t.Errorf("refused query %v", bad)
	}

	audit.FilterValues = true // the server reads its options per query
	f.call(t, "POST", "/v1/models/shop/query", body, bearer(governedToken("state")))
	lines = auditLines(t, f.logs.String())
	if last := lines[len(lines)-1]; !servertest.EqualJSON(last["filters"], []map[string]any{{"member": "orders.status", "op": "!=", "values": []string{"secret-value"}}}) {
		t.Errorf("filters with values: %v", last["filters"])
	}
}
