package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/servertest"
)

// typedFixture serves testdata/typed.yaml over the shop tables.
func typedFixture(t *testing.T) *fixture {
	t.Helper()
	return fileFixture(t, servertest.ShopTables, "../testdata/typed.yaml")
}

// fileFixture serves the model files over a DuckDB holding tables.
func fileFixture(t *testing.T, tables string, modelFiles ...string) *fixture {
	t.Helper()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Exec(context.Background(), tables); err != nil {
		t.Fatal(err)
	}
	arts, err := load.Models(modelFiles, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handlerOf(srv))
	t.Cleanup(ts.Close)
	return &fixture{eng: eng, srv: srv, ts: ts}
}

// compareHand is the hand-written answer of the compared query below:
// March and January 2024, each with its revenue, running total and share.
const compareHand = `SELECT r.label, r.m, rev, run, CAST(rev AS DOUBLE) / run FROM (
	  SELECT r.ord, r.label, r.m,
	    (SELECT SUM(amount) FROM orders WHERE date_trunc('month', order_date) = r.m) AS rev,
	    (SELECT SUM(amount) FROM orders WHERE date_trunc('month', order_date) <= r.m) AS run
	  FROM (VALUES (1, '2024-03-01 - 2024-03-31', DATE '2024-03-01'), (2, '2024-01-01 - 2024-01-31', DATE '2024-01-01')) AS r(ord, label, m)) AS r
	ORDER BY r.ord`

// Compared date ranges through POST /query (both spellings of the key)
// and the MCP query tool; typed metrics in the metadata and describe_model.
func TestTypedMetricsThroughTheServer(t *testing.T) {
	f := typedFixture(t)
	hand := f.handRows(t, compareHand)
	for _, key := range []string{"compare_date_range", "compareDateRange"} {
		a := f.query(t, "typed", `{"metrics":["revenue","revenue_running","revenue_share_of_running"],"dimensions":[{"field":"orders.order_date","grain":"month","`+key+`":[["2024-03-01","2024-03-31"],["2024-01-01","2024-01-31"]]}]}`)
		var names []string
		for _, c := range a.Columns {
			names = append(names, c.Name)
		}
		if !slices.Equal(names, []string{"compare_date_range", "orders.order_date.month", "revenue", "revenue_running", "revenue_share_of_running"}) || a.Columns[0].Kind != "dimension" {
			t.Fatalf("%s: columns %+v", key, a.Columns)
		}
		if err := servertest.SameRows(a.Rows, hand); err != nil {
			t.Errorf("%s: %v", key, err)
		}
		if a.Rows[0][0] != "2024-03-01 - 2024-03-31" || a.Rows[1][0] != "2024-01-01 - 2024-01-31" {
			t.Errorf("%s: ranges out of order: %v", key, a.Rows)
		}
	}
	resp, body := f.do(t, "POST", "/v1/models/typed/query", `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_date","grain":"month","compare_date_range":[["2024-03-01"],"last fortnight"]}]}`)
	p := wantProblem(t, resp, body, 400, compiler.CodeCompareRange)
	if len(p.Problems) != 2 || p.Problems[0].Path != "dimensions[0].compare_date_range[0]" || p.Problems[1].Path != "dimensions[0].compare_date_range[1]" {
		t.Errorf("problems %+v", p.Problems)
	}

	d, perr := f.srv.DescribeModel(context.Background(), "typed")
	if perr != nil {
		t.Fatal(perr)
	}
	got := map[string]string{}
	for _, m := range d.Metrics {
		typ := ""
		if m.MetricType != nil {
			typ = m.MetricType.Type + "/" + m.MetricType.Window
		}
		got[m.Name] = fmt.Sprint(typ, m.WindowedBy)
	}
	if fmt.Sprint(got) != "map[revenue:[] revenue_running:cumulative/all[] revenue_share_of_running:[revenue_running]]" {
		t.Errorf("metadata of typed metrics: %v", got)
	}

	cs := servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{MaxRows: 10}))
	var dm mcpapi.Model
	servertest.CallTool(t, cs, "describe_model", map[string]any{"model": "typed"}, &dm)
	if i := slices.IndexFunc(dm.Metrics, func(m mcpapi.Member) bool { return m.Name == "revenue_running" }); i < 0 || dm.Metrics[i].MetricType == nil || dm.Metrics[i].MetricType.Type != "cumulative" {
		t.Errorf("describe_model metrics %+v", dm.Metrics)
	}
	var tab mcpapi.Table
	servertest.CallTool(t, cs, "query", map[string]any{"model": "typed", "metrics": []string{"revenue", "revenue_running", "revenue_share_of_running"},
		"dimensions": []any{map[string]any{"field": "orders.order_date", "grain": "month", "compare_date_range": []any{[]string{"2024-03-01", "2024-03-31"}, []string{"2024-01-01", "2024-01-31"}}}}}, &tab)
	if len(tab.Columns) != 5 || tab.Columns[0].Name != "compare_date_range" {
		t.Fatalf("MCP columns %+v", tab.Columns)
	}
	if err := servertest.SameRows(tab.Rows, hand); err != nil {
		t.Errorf("MCP: %v", err)
	}
}
