package httpapi

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestDimensionTypoHints: every way of naming a dimension gets a
// did-you-mean, also a typo in front of a grain suffix.
func TestDimensionTypoHints(t *testing.T) {
	f := newFixture(t, nil)
	for body, hint := range map[string]string{
		`{"metrics":["order_count"],"dimensions":["orders.stauts"]}`:                                `did you mean \"orders.status\"?`,
		`{"metrics":["order_count"],"dimensions":["orders.order_dat.month"]}`:                       `did you mean \"orders.order_date.month\"?`,
		`{"metrics":["order_count"],"dimensions":[{"field":"orders.order_dat","grain":"month"}]}`:   `did you mean \"orders.order_date\"?`,
		`{"metrics":["order_count"],"filters":[{"field":"orders.stauts","op":"=","values":["x"]}]}`: `did you mean \"orders.status\"?`,
	} {
		resp, b := f.do(t, "POST", "/v1/models/shop/query", body)
		wantProblem(t, resp, b, 400, "OSS4003")
		if !strings.Contains(string(b), hint) {
			t.Errorf("%s: no hint %s in %s", body, hint, b)
		}
	}
}

// TestGrainTypoHints: a misspelt or plural grain (`months`) is OSS4004
// with the grain it means, in every spelling of a dimension over HTTP and
// in the MCP query tool.
func TestGrainTypoHints(t *testing.T) {
	f := newFixture(t, nil)
	for _, body := range []string{
		`{"metrics":["order_count"],"dimensions":[{"field":"orders.order_date","grain":"months"}]}`,
		`{"metrics":["order_count"],"dimensions":["orders.order_date.months"]}`,
		`{"metrics":["order_count"],"dimensions":["orders.order_date.Months"]}`,
	} {
		resp, b := f.do(t, "POST", "/v1/models/shop/query", body)
		wantProblem(t, resp, b, 400, "OSS4004")
		if !strings.Contains(string(b), `did you mean \"month\"?`) {
			t.Errorf("%s: no hint in %s", body, b)
		}
	}
	// A typo in both the field and the grain: the suggestion mends both.
	resp, b := f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["order_count"],"dimensions":["orders.order_dat.weeks"]}`)
	wantProblem(t, resp, b, 400, "OSS4003")
	if !strings.Contains(string(b), `did you mean \"orders.order_date.week\"?`) {
		t.Errorf("field and grain typo: %s", b)
	}

	cs := servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{}))
	for _, dim := range []any{"orders.order_date.months", map[string]any{"field": "orders.order_date", "grain": "months"}} {
		res := servertest.CallTool(t, cs, "query", map[string]any{"model": "shop", "metrics": []string{"order_count"}, "dimensions": []any{dim}}, nil)
		if txt := servertest.ToolText(res); !res.IsError || !strings.Contains(txt, "OSS4004") || !strings.Contains(txt, `did you mean "month"?`) {
			t.Errorf("MCP %v: %v %q", dim, res.IsError, txt)
		}
	}
}
