package httpapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/servertest"
)

// throughFixture serves case DO-01 (orders and reviews both reach
// customers and products) over its own tables.
func throughFixture(t *testing.T) *fixture {
	t.Helper()
	dir := filepath.Join("..", "..", "test", "conformance", "testdata", "DO-01")
	tables, err := os.ReadFile(filepath.Join(dir, "tables.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return fileFixture(t, string(tables), filepath.Join(dir, "model.yaml"))
}

// A query without metrics names the fact whose rows it lists with
// "through", over HTTP and the MCP query tool (issue 26 item 2); the
// answer is the hand-written DISTINCT over that fact's rows. Without it,
// two possible facts are OSS4012 naming both.
func TestThroughOverHTTPAndMCP(t *testing.T) {
	f := throughFixture(t)
	hand := f.handRows(t, `SELECT DISTINCT c.segment, p.category FROM reviews v
  LEFT JOIN customers c ON v.customer_id = c.customer_id LEFT JOIN products p ON v.product_id = p.product_id
  ORDER BY 1 NULLS LAST, 2 NULLS LAST`)
	if len(hand) != 3 {
		t.Fatalf("hand answer %v", hand)
	}
	a := f.query(t, "do01", `{"dimensions":["customers.segment","products.category"],"through":"reviews"}`)
	if err := servertest.SameRows(a.Rows, hand); err != nil {
		t.Errorf("HTTP: %v", err)
	}
	resp, body := f.do(t, "POST", "/v1/models/do01/query", `{"dimensions":["customers.segment","products.category"]}`)
	if p := wantProblem(t, resp, body, 400, compiler.CodeNoMembersHome); len(p.Problems) != 1 || p.Problems[0].Path != "dimensions" {
		t.Errorf("problems %+v", p.Problems)
	}
	resp, body = f.do(t, "POST", "/v1/models/do01/query", `{"metrics":["order_count"],"through":"orders"}`)
	wantProblem(t, resp, body, 400, compiler.CodeBadQuery)

	cs := servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{MaxRows: 10}))
	var tab mcpapi.Table
	servertest.CallTool(t, cs, "query", map[string]any{"model": "do01", "dimensions": []string{"customers.segment", "products.category"}, "through": "reviews"}, &tab)
	if err := servertest.SameRows(tab.Rows, hand); err != nil {
		t.Errorf("MCP: %v", err)
	}
}
