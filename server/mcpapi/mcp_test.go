package mcpapi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/servertest"
)

// fixture serves the shop and slow models on DuckDB in process.
type fixture struct {
	eng *duckdb.Engine
	srv *server.Server
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	eng, arts := servertest.Shop(t, false)
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{eng: eng, srv: srv}
}

func TestMCPInProcessUngoverned(t *testing.T) {
	f := newFixture(t)
	cs := servertest.MCPConnect(t, New(f.srv, Options{MaxRows: 3}))

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

	var list ListOutput
	servertest.CallTool(t, cs, "list_models", map[string]any{}, &list)
	if got := servertest.Names(list.Models, func(m server.ModelSummary) string { return m.Name }); !slices.Equal(got, []string{"missing", "shop", "slow"}) {
		t.Fatalf("models %+v", list.Models)
	}

	var d Model
	servertest.CallTool(t, cs, "describe_model", map[string]any{"model": "shop"}, &d)
	if d.Context.Instructions != "Revenue is the sum of order amounts." || !slices.Equal(d.Context.Synonyms, []string{"sales"}) {
		t.Fatalf("model ai_context %+v", d.Context)
	}
	if !slices.Equal(servertest.Names(d.Metrics, func(m Member) string { return m.Name }), []string{"order_count", "revenue", "avg_amount"}) {
		t.Fatalf("metrics %v", servertest.Names(d.Metrics, func(m Member) string { return m.Name }))
	}
	var status, revenue Member
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

	var tb Table
	res := servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count", "revenue"},
		"dimensions": []map[string]any{{"field": "orders.status"}}, "order_by": []map[string]any{{"key": "orders.status"}}}, &tb)
	if res.IsError {
		t.Fatal(servertest.ToolText(res))
	}
	want := servertest.EngineRows(t, f.eng, `SELECT status, COUNT(order_id), SUM(amount) FROM orders GROUP BY status ORDER BY status`)
	if got := servertest.JSONRows(t, tb.Rows); !servertest.EqualJSON(got, want) || tb.RowCount != 3 || tb.Truncated {
		t.Fatalf("rows %v (count %d, truncated %v), want %v", got, tb.RowCount, tb.Truncated, want)
	}
	if len(tb.Columns) != 3 || tb.Columns[0] != (Column{Name: "orders.status", Type: "String", Kind: "dimension"}) || tb.Columns[1].Type != "Integer" {
		t.Fatalf("columns %+v", tb.Columns)
	}
	if txt := servertest.ToolText(res); !strings.HasPrefix(txt, "orders.status:String\torder_count:Integer\trevenue:Decimal\n") || !strings.Contains(txt, "3 rows") {
		t.Fatalf("text %q", txt)
	}

	// More rows than the agent cap: cut, and said so.
	res = servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"},
		"dimensions": []map[string]any{{"field": "orders.order_date"}}, "order_by": []map[string]any{{"key": "orders.order_date"}}}, &tb)
	want = servertest.EngineRows(t, f.eng, `SELECT order_date, COUNT(order_id) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3`)
	if got := servertest.JSONRows(t, tb.Rows); !servertest.EqualJSON(got, want) || !tb.Truncated || tb.RowCount != 3 || !strings.Contains(tb.TruncatedReason, "agent row cap of 3") {
		t.Fatalf("capped answer %+v, want rows %v", tb, want)
	}
	if !strings.Contains(servertest.ToolText(res), "truncated") {
		t.Fatalf("text %q", servertest.ToolText(res))
	}

	// Errors carry the REST codes and did-you-mean hints.
	res = servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"revenu"},
		"dimensions": []map[string]any{{"field": "orders.stauts"}}}, nil)
	if txt := servertest.ToolText(res); !res.IsError || !strings.Contains(txt, `OSS4002`) || !strings.Contains(txt, `did you mean "revenue"`) ||
		!strings.Contains(txt, `OSS4003`) || !strings.Contains(txt, `did you mean "orders.status"`) {
		t.Fatalf("error %v %q", res.IsError, txt)
	}
	res = servertest.CallTool(t, cs, "describe_model", map[string]any{"model": "shopp"}, nil)
	if txt := servertest.ToolText(res); !res.IsError || !strings.HasPrefix(txt, "OSS5003") || !strings.Contains(txt, "loaded: missing, shop, slow") {
		t.Fatalf("error %q", txt)
	}

	var p Plan
	servertest.CallTool(t, cs, "explain", map[string]any{"model": "shop", "metrics": []string{"revenue"}}, &p)
	if !strings.Contains(p.SQL, "SUM(") || len(p.Columns) != 1 || p.Columns[0].Name != "revenue" || !strings.Contains(p.Plan, "revenue") {
		t.Fatalf("plan %+v", p)
	}
}

// BenchmarkMCPQuery measures an MCP query round trip in process (SDK
// client and server, JSON-RPC over an in-memory transport) against the
// same query through Answer: the difference is the protocol's cost.
func BenchmarkMCPQuery(b *testing.B) {
	f := newFixture(b)
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
		ss, err := New(f.srv, Options{}).Connect(context.Background(), st, nil)
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
