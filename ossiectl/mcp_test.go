package ossiectl

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio runs `ossiectl mcp` on pipes, as a desktop agent runs it,
// with the SDK's own client: under --role ops the hidden metrics are
// neither described nor answered, and an allowed query answers.
func TestMCPStdio(t *testing.T) {
	dir := t.TempDir()
	orders := filepath.Join(dir, "orders.csv")
	if err := os.WriteFile(orders, []byte("order_id,customer_id,status,order_date,amount\n1,1,placed,2024-01-05,10.5\n2,2,shipped,2024-01-20,20.25\n3,1,placed,2024-02-01,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Do([]string{"mcp", "--models", "../server/testdata/shop.yaml", "--governance", "../server/testdata/shop.governance.yaml",
			"--role", "ops", "--load", "orders=" + orders}, inR, outW, &errb)
		outW.Close()
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "describe_model", Arguments: map[string]any{"model": "shop"}})
	if err != nil || res.IsError {
		t.Fatalf("describe: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var d struct {
		Metrics []struct{ Name string } `json:"metrics"`
	}
	if err := json.Unmarshal(b, &d); err != nil || len(d.Metrics) != 1 || d.Metrics[0].Name != "order_count" {
		t.Fatalf("metrics under ops: %s", b)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"model": "shop", "metrics": []string{"revenue"}}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "OSS4002") {
		t.Fatalf("hidden metric: %v %+v", err, res)
	}
	// Orders by status from the loaded CSV: placed 2, shipped 1.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"model": "shop", "metrics": []string{"order_count"},
		"dimensions": []map[string]any{{"field": "orders.status"}}, "order_by": []map[string]any{{"key": "orders.status"}}}})
	if err != nil || res.IsError {
		t.Fatalf("allowed metric: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"rows":[["placed",2],["shipped",1]]`) {
		t.Fatalf("answer %s", b)
	}
	cs.Close()
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
}
