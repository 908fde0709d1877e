package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/servertest"
)

// mcpConnect connects the SDK's own client to srv in process.
func mcpConnect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

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

// callTool calls name with args, decodes the structured answer into out
// (unless the call failed) and returns the result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError && out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// engineRows runs hand-written SQL on the fixture's engine and returns
// its rows in their JSON form, as an MCP client receives them.
func engineRows(t *testing.T, f *fixture, sql string) [][]any {
	t.Helper()
	res, err := f.eng.Query(context.Background(), sql, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return servertest.JSONRows(t, res.Rows)
}

func summaryNames(ms []server.ModelSummary) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func memberNames(ms []mcpapi.Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestMCPInProcessUngoverned(t *testing.T) {
	f := newFixture(t, nil)
	cs := mcpConnect(t, mcpapi.New(f.srv, mcpapi.Options{MaxRows: 3}))

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"describe_model", "explain", "list_models", "query"}) {
		t.Fatalf("tools %v", names)
	}

	var list mcpapi.ListOutput
	callTool(t, cs, "list_models", map[string]any{}, &list)
	if got := summaryNames(list.Models); !slices.Equal(got, []string{"missing", "shop", "slow"}) {
		t.Fatalf("models %+v", list.Models)
	}

	var d mcpapi.Model
	callTool(t, cs, "describe_model", map[string]any{"model": "shop"}, &d)
	if d.Context.Instructions != "Revenue is the sum of order amounts." || !slices.Equal(d.Context.Synonyms, []string{"sales"}) {
		t.Fatalf("model ai_context %+v", d.Context)
	}
	if !slices.Equal(memberNames(d.Metrics), []string{"order_count", "revenue", "avg_amount"}) {
		t.Fatalf("metrics %v", memberNames(d.Metrics))
	}
	var status, revenue mcpapi.Member
	for _, m := range d.Dimensions {
		if m.Name == "orders.status" {
			status = m
		}
	}
	for _, m := range d.Metrics {
		if m.Name == "revenue" {
			revenue = m
		}
	}
	if status.Context == nil || status.Context.Instructions != "Returned orders still count as orders." || status.Description != "placed, shipped or returned" {
		t.Fatalf("orders.status %+v", status)
	}
	if revenue.Context == nil || !slices.Equal(revenue.Context.Synonyms, []string{"sales", "turnover"}) || revenue.Datatype != "Decimal" {
		t.Fatalf("revenue %+v", revenue)
	}
	if !slices.Contains(d.TimeGrains, "month") {
		t.Fatalf("grains %v", d.TimeGrains)
	}

	var tb mcpapi.Table
	res := callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count", "revenue"},
		"dimensions": []map[string]any{{"field": "orders.status"}}, "order_by": []map[string]any{{"key": "orders.status"}}}, &tb)
	if res.IsError {
		t.Fatal(toolText(res))
	}
	want := engineRows(t, f, `SELECT status, COUNT(order_id), SUM(amount) FROM orders GROUP BY status ORDER BY status`)
	if got := servertest.JSONRows(t, tb.Rows); !equalJSON(got, want) || tb.RowCount != 3 || tb.Truncated {
		t.Fatalf("rows %v (count %d, truncated %v), want %v", got, tb.RowCount, tb.Truncated, want)
	}
	if len(tb.Columns) != 3 || tb.Columns[0] != (mcpapi.Column{Name: "orders.status", Type: "String", Kind: "dimension"}) || tb.Columns[1].Type != "Integer" {
		t.Fatalf("columns %+v", tb.Columns)
	}
	if txt := toolText(res); !strings.HasPrefix(txt, "orders.status:String\torder_count:Integer\trevenue:Decimal\n") || !strings.Contains(txt, "3 rows") {
		t.Fatalf("text %q", txt)
	}

	// More rows than the agent cap: cut, and said so.
	res = callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"},
		"dimensions": []map[string]any{{"field": "orders.order_date"}}, "order_by": []map[string]any{{"key": "orders.order_date"}}}, &tb)
	want = engineRows(t, f, `SELECT order_date, COUNT(order_id) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3`)
	if got := servertest.JSONRows(t, tb.Rows); !equalJSON(got, want) || !tb.Truncated || tb.RowCount != 3 || !strings.Contains(tb.TruncatedReason, "agent row cap of 3") {
		t.Fatalf("capped answer %+v, want rows %v", tb, want)
	}
	if !strings.Contains(toolText(res), "truncated") {
		t.Fatalf("text %q", toolText(res))
	}

	// Errors carry the REST codes and did-you-mean hints.
	res = callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"revenu"},
		"dimensions": []map[string]any{{"field": "orders.stauts"}}}, nil)
	if txt := toolText(res); !res.IsError || !strings.Contains(txt, `OSS4002`) || !strings.Contains(txt, `did you mean "revenue"`) ||
		!strings.Contains(txt, `OSS4003`) || !strings.Contains(txt, `did you mean "orders.status"`) {
		t.Fatalf("error %v %q", res.IsError, txt)
	}
	res = callTool(t, cs, "describe_model", map[string]any{"model": "shopp"}, nil)
	if txt := toolText(res); !res.IsError || !strings.HasPrefix(txt, "OSS5003") || !strings.Contains(txt, "loaded: missing, shop, slow") {
		t.Fatalf("error %q", txt)
	}

	var p mcpapi.Plan
	callTool(t, cs, "explain", map[string]any{"model": "shop", "metrics": []string{"revenue"}}, &p)
	if !strings.Contains(p.SQL, "SUM(") || len(p.Columns) != 1 || p.Columns[0].Name != "revenue" || !strings.Contains(p.Plan, "revenue") {
		t.Fatalf("plan %+v", p)
	}
}

func sortRows(rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) })
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestMCPGovernedRole: an agent under the ops role (order_count on
// orders only) sees neither the hidden metrics in describe_model nor can
// query them, and explain is refused as /sql is.
func TestMCPGovernedRole(t *testing.T) {
	f := newGovernedFixture(t)
	ops := &auth.Identity{Name: "agent", Roles: []string{"ops"}, Method: auth.MethodToken}
	check := func(t *testing.T, cs *mcp.ClientSession) {
		var list mcpapi.ListOutput
		callTool(t, cs, "list_models", map[string]any{}, &list)
		if i := slices.Index(summaryNames(list.Models), "shop"); i < 0 || list.Models[i].Counts != (server.ModelCounts{Datasets: 1, Dimensions: 4, Metrics: 1}) {
			t.Fatalf("models %+v", list.Models)
		}
		var d mcpapi.Model
		callTool(t, cs, "describe_model", map[string]any{"model": "shop"}, &d)
		if got := memberNames(d.Metrics); !slices.Equal(got, []string{"order_count"}) {
			t.Fatalf("ops sees metrics %v", got)
		}
		for _, m := range d.Dimensions {
			if !strings.HasPrefix(m.Name, "orders.") || m.Name == "orders.amount" {
				t.Fatalf("ops sees dimension %s", m.Name)
			}
		}
		// A hidden metric is unknown, with no hint naming it.
		res := callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"avg_amount"}}, nil)
		if txt := toolText(res); !res.IsError || !strings.Contains(txt, "OSS4002") || strings.Contains(txt, `"avg_amount"?`) || strings.Contains(txt, "revenue") {
			t.Fatalf("hidden metric: %q", txt)
		}
		var tb mcpapi.Table
		res = callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"},
			"dimensions": []map[string]any{{"field": "orders.status"}}, "order_by": []map[string]any{{"key": "orders.status"}}}, &tb)
		if res.IsError {
			t.Fatal(toolText(res))
		}
		want := engineRows(t, f.fixture, `SELECT status, COUNT(order_id) FROM orders GROUP BY status ORDER BY status`)
		if got := servertest.JSONRows(t, tb.Rows); !equalJSON(got, want) {
			t.Fatalf("rows %v, want %v", got, want)
		}
		res = callTool(t, cs, "explain", map[string]any{"model": "shop", "metrics": []string{"order_count"}}, nil)
		if txt := toolText(res); !res.IsError || !strings.HasPrefix(txt, "OSS5007") {
			t.Fatalf("explain under a role: %q", txt)
		}
	}
	t.Run("in-process", func(t *testing.T) {
		check(t, mcpConnect(t, mcpapi.New(f.srv, mcpapi.Options{Identity: ops})))
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
		callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"}}, nil)
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
		res := callTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"revenue"},
			"dimensions": []map[string]any{{"field": "customers.state"}}}, &tb)
		if res.IsError {
			t.Fatal(toolText(res))
		}
		want := engineRows(t, f.fixture, `SELECT c.state, SUM(o.amount) FROM (SELECT * FROM orders WHERE status <> 'returned') o
			LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c ON o.customer_id = c.customer_id GROUP BY 1`)
		got := servertest.JSONRows(t, tb.Rows)
		sortRows(got)
		sortRows(want)
		if !equalJSON(got, want) || len(want) != 2 {
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

// BenchmarkMCPQuery measures an MCP query round trip in process (SDK
// client and server, JSON-RPC over an in-memory transport) against the
// same query through Answer: the difference is the protocol's cost.
func BenchmarkMCPQuery(b *testing.B) {
	f := newFixture(b, nil)
	args := map[string]any{"model": "shop", "metrics": []string{"order_count", "revenue"}, "dimensions": []map[string]any{{"field": "orders.status"}}}
	b.Run("answer", func(b *testing.B) {
		q := &plan.Query{Metrics: []string{"order_count", "revenue"}, Dimensions: []plan.Dimension{{Field: "orders.status"}}}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.srv.Answer(context.Background(), "shop", q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := mcpapi.New(f.srv, mcpapi.Options{}).Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
