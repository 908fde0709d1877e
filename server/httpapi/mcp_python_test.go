package httpapi

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/mcpapi"
)

// TestMCPOfficialPythonClient drives /mcp of a real server (HTTP on
// 127.0.0.1) with the official MCP Python SDK (testdata/mcp_client.py, in
// the venv scripts/mcp-python.sh installs; OSSIE_MCP_PYTHON_HOME names
// it) and checks what an agent sees: string dimensions and `value`
// accepted as the HTTP API accepts them, answers equal to hand-written
// SQL on the same data, problems as tool errors with their code and
// did-you-mean, tool descriptions carrying the model's ai_context.
// Skipped without the venv unless OSSIE_REQUIRE_MCP_PYTHON=1 (make test).
func TestMCPOfficialPythonClient(t *testing.T) {
	home := os.Getenv("OSSIE_MCP_PYTHON_HOME")
	python := filepath.Join(home, "venv", "bin", "python")
	if _, err := os.Stat(python); home == "" || err != nil {
		if os.Getenv("OSSIE_REQUIRE_MCP_PYTHON") != "" {
			t.Fatalf("OSSIE_REQUIRE_MCP_PYTHON is set but OSSIE_MCP_PYTHON_HOME=%q has no venv/bin/python: run scripts/mcp-python.sh", home)
		}
		t.Skip("no MCP Python SDK: set OSSIE_MCP_PYTHON_HOME=$(scripts/mcp-python.sh | tail -n1)")
	}
	f := newFieldsFixture(t)
	cmd := exec.Command(python, "../testdata/mcp_client.py", f.ts.URL+"/mcp")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp_client.py: %v\n%s", err, stderr.String())
	}
	var out struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
		Calls map[string]struct {
			IsError    bool            `json:"is_error"`
			Structured json.RawMessage `json:"structured"`
			Text       string          `json:"text"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("%s: %v", stdout, err)
	}
	for _, tl := range out.Tools {
		if tl.Name == "query" {
			if !strings.Contains(tl.Description, "Revenue is the sum of order amounts") || !strings.Contains(tl.Description, "order_count (orders placed)") {
				t.Errorf("query tool description without the model's ai_context: %q", tl.Description)
			}
			dims, _ := tl.InputSchema["properties"].(map[string]any)["dimensions"].(map[string]any)
			if b, _ := json.Marshal(dims); !strings.Contains(string(b), `"type":"string"`) {
				t.Errorf("dimensions schema admits no string: %s", b)
			}
		}
	}
	answer := func(key, sql string) {
		t.Helper()
		c := out.Calls[key]
		if c.IsError {
			t.Errorf("%s: tool error %s", key, c.Text)
			return
		}
		got, want := rowsText(t, c.Structured), answerText(f.sqlRows(t, sql), nil, false)
		if !strings.HasPrefix(got, want) || want == "" {
			t.Errorf("%s: rows %q, want %q (%s)", key, got, want, sql)
		}
	}
	answer("by_state", `SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM f_orders o LEFT JOIN f_customers c USING (customer_id) GROUP BY 1 ORDER BY 1`)
	answer("month_value", `SELECT CAST(date_trunc('month', order_day) AS DATE), SUM(amount) FROM f_orders WHERE status <> 'returned' GROUP BY 1 ORDER BY 1`)
	answer("page_total", `SELECT c.state, SUM(o.amount) FROM f_orders o LEFT JOIN f_customers c USING (customer_id) GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET 1`)
	if got := rowsText(t, out.Calls["page_total"].Structured); !strings.HasSuffix(got, " total=2") {
		t.Errorf("page_total: %q, want the total of the 2 states", got)
	}
	problem := func(key, code string, texts ...string) {
		t.Helper()
		c := out.Calls[key]
		var doc problemBody
		_ = json.Unmarshal(c.Structured, &doc)
		if !c.IsError || doc.Code != code || !strings.HasPrefix(c.Text, code) {
			t.Errorf("%s: is_error %v, problem %+v, text %q; want a tool error %s", key, c.IsError, doc, c.Text, code)
		}
		for _, s := range texts {
			if !strings.Contains(c.Text, s) {
				t.Errorf("%s: text %q lacks %q", key, c.Text, s)
			}
		}
	}
	problem("typo", "OSS4003", `did you mean "revenue"`, `did you mean "customers.state"`, "OSS4002")
	problem("unknown_key", "OSS4001", "dimension")
	var p mcpapi.Plan
	if c := out.Calls["explain"]; c.IsError || json.Unmarshal(c.Structured, &p) != nil || p.Plan == "" {
		t.Errorf("explain: %s %s", c.Text, c.Structured)
	} else if got, want := answerText(f.sqlRows(t, p.SQL), nil, false), "CA|30;NY|70"; got != want {
		t.Errorf("explain's SQL answers %q, want %q", got, want)
	}
}
