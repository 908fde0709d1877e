package servertest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/engine/duckdb"
)

// The MCP client helpers of the tests of server/mcpapi and server/httpapi
// (which drives /mcp over HTTP).

// MCPConnect connects the SDK's own client to srv in process.
func MCPConnect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
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

// CallTool calls name with args, decodes the structured answer into out
// (unless the call failed) and returns the result.
func CallTool(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
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

// ToolText is the text content of a tool result.
func ToolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// EqualJSON reports whether a and b encode to the same JSON.
func EqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// EngineRows runs hand-written SQL on eng and returns
// its rows in their JSON form, as an MCP client receives them.
func EngineRows(t *testing.T, eng *duckdb.Engine, sql string) [][]any {
	t.Helper()
	res, err := eng.Query(context.Background(), sql, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return JSONRows(t, res.Rows)
}

// Names maps xs to their names, in order (the models of list_models, the
// metrics of describe_model).
func Names[T any](xs []T, name func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}
