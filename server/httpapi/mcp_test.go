package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/servertest"
)

// bearerTransport adds a bearer token to every request of the MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnectHTTP connects the SDK's client to the fixture's /mcp with token.
func mcpConnectHTTP(t *testing.T, f *fixture, token string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: f.ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}},
		MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func sortRows(rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) })
}

// TestMCPGovernedRole: an agent under the ops role (order_count on
// orders only) sees neither the hidden metrics in describe_model nor can
// query them, and explain is refused as /sql is.
func TestMCPGovernedRole(t *testing.T) {
	f := newGovernedFixture(t)
	ops := &auth.Identity{Name: "agent", Roles: []string{"ops"}, Method: auth.MethodToken}
	check := func(t *testing.T, cs *mcp.ClientSession) {
		var list mcpapi.ListOutput
		servertest.CallTool(t, cs, "list_models", map[string]any{}, &list)
		if i := slices.Index(servertest.Names(list.Models, func(m server.ModelSummary) string { return m.Name }), "shop"); i < 0 || list.Models[i].Counts != (server.ModelCounts{Datasets: 1, Dimensions: 4, Metrics: 1}) {
			t.Fatalf("models %+v", list.Models)
		}
		var d mcpapi.Model
		servertest.CallTool(t, cs, "describe_model", map[string]any{"model": "shop"}, &d)
		if got := servertest.Names(d.Metrics, func(m mcpapi.Member) string { return m.Name }); !slices.Equal(got, []string{"order_count"}) {
			t.Fatalf("ops sees metrics %v", got)
		}
		for _, m := range d.Dimensions {
			if !strings.HasPrefix(m.Name, "orders.") || m.Name == "orders.amount" {
				t.Fatalf("ops sees dimension %s", m.Name)
			}
		}
		// A hidden metric is unknown, with no hint naming it.
		res := servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"avg_amount"}}, nil)
		if txt := servertest.ToolText(res); !res.IsError || !strings.Contains(txt, "OSS4002") || strings.Contains(txt, `"avg_amount"?`) || strings.Contains(txt, "revenue") {
			t.Fatalf("hidden metric: %q", txt)
		}
		var tb mcpapi.Table
		res = servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"},
			"dimensions": []map[string]any{{"field": "orders.status"}}, "order_by": []map[string]any{{"key": "orders.status"}}}, &tb)
		if res.IsError {
			t.Fatal(servertest.ToolText(res))
		}
		want := servertest.EngineRows(t, f.fixture.eng, `SELECT status, COUNT(order_id) FROM orders GROUP BY status ORDER BY status`)
		if got := servertest.JSONRows(t, tb.Rows); !servertest.EqualJSON(got, want) {
			t.Fatalf("rows %v, want %v", got, want)
		}
		res = servertest.CallTool(t, cs, "explain", map[string]any{"model": "shop", "metrics": []string{"order_count"}}, nil)
		if txt := servertest.ToolText(res); !res.IsError || !strings.HasPrefix(txt, "OSS5007") {
			t.Fatalf("explain under a role: %q", txt)
		}
	}
	t.Run("in-process", func(t *testing.T) {
		check(t, servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{Identity: ops})))
	})
	t.Run("http", func(t *testing.T) {
		cs, err := mcpConnectHTTP(t, f.fixture, governedToken("ops"))
		if err != nil {
			t.Fatal(err)
		}
		check(t, cs)
	})
	t.Run("audit", func(t *testing.T) {
		// MCP queries write the same audit line, marked via mcp.
		f := newGovernedFixture(t, func(c *server.Config) { c.Audit = &server.AuditOptions{} })
		cs, err := mcpConnectHTTP(t, f.fixture, governedToken("ops"))
		if err != nil {
			t.Fatal(err)
		}
		servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"}}, nil)
		lines := auditLines(t, f.logs.String())
		last := lines[len(lines)-1]
		if last["via"] != "mcp" || last["caller"] != "ops" || last["outcome"] != "ok" || last["rows"] != 1.0 {
			t.Fatalf("audit line %v", last)
		}
	})
	t.Run("http-row-filter", func(t *testing.T) {
		// The state analyst's row filter (its token's state: CA) applies.
		cs, err := mcpConnectHTTP(t, f.fixture, governedToken("state"))
		if err != nil {
			t.Fatal(err)
		}
		var tb mcpapi.Table
		res := servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"revenue"},
			"dimensions": []map[string]any{{"field": "customers.state"}}}, &tb)
		if res.IsError {
			t.Fatal(servertest.ToolText(res))
		}
		want := servertest.EngineRows(t, f.fixture.eng, `SELECT c.state, SUM(o.amount) FROM (SELECT * FROM orders WHERE status <> 'returned') o
			LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c ON o.customer_id = c.customer_id GROUP BY 1`)
		got := servertest.JSONRows(t, tb.Rows)
		sortRows(got)
		sortRows(want)
		if !servertest.EqualJSON(got, want) || len(want) != 2 {
			t.Fatalf("rows %v, want %v", got, want)
		}
	})
	t.Run("http-unauthenticated", func(t *testing.T) {
		if _, err := mcpConnectHTTP(t, f.fixture, ""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("connect without a token: %v", err)
		}
		if _, err := mcpConnectHTTP(t, f.fixture, "not-a-token-000000000000000"); err == nil {
			t.Fatal("connect with a bad token succeeded")
		}
	})
}
