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

// TestMCPPipedInputIsAnswered: an agent (or a shell pipe) that writes its
// requests and closes stdin gets every answer before ossiectl mcp exits;
// before, the session ended with the input and the answers still being
// computed were lost (3 runs in 4 printed nothing).
func TestMCPPipedInputIsAnswered(t *testing.T) {
	dir := t.TempDir()
	orders := filepath.Join(dir, "orders.csv")
	if err := os.WriteFile(orders, []byte("order_id,customer_id,status,order_date,amount\n1,1,placed,2024-01-05,10.5\n2,2,shipped,2024-01-20,20.25\n3,1,placed,2024-02-01,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"query","arguments":{"model":"shop","metrics":["order_count"],"dimensions":["orders.status"],"order_by":[{"key":"orders.status"}]}}}
`
	for run := 0; run < 6; run++ {
		// Half the runs end with a line that is not JSON-RPC: the session
		// fails on it (exit 1), after answering what came before.
		input, want := in, 0
		if run%2 == 1 {
			input, want = in+"not json\n", ExitProblems
		}
		var out, errb strings.Builder
		if code := Do([]string{"mcp", "--models", "../server/testdata/shop.yaml", "--load", "orders=" + orders}, strings.NewReader(input), &out, &errb); code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s", run, code, want, errb.String())
		}
		ids := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("run %d: %v in %q", run, err, line)
			}
			ids[string(m.ID)] = string(m.Result)
		}
		if len(ids) != 3 || ids["1"] == "" || ids["2"] == "" {
			t.Fatalf("run %d: answers %v\nstderr: %s", run, ids, errb.String())
		}
		// Orders by status from the loaded CSV: placed 2, shipped 1.
		if !strings.Contains(ids[`"q"`], `"rows":[["placed",2],["shipped",1]]`) {
			t.Fatalf("run %d: query answer %s", run, ids[`"q"`])
		}
	}
}

// TestQueryEngineErrorNamesNoServerLog: ossiectl query gives the engine's
// own message and does not send its user to a server log it does not
// have (a header-only CSV loads as VARCHAR, which SUM refuses).
func TestQueryEngineErrorNamesNoServerLog(t *testing.T) {
	orders := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(orders, []byte("order_id,customer_id,status,order_date,amount\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := Do([]string{"query", "../server/testdata/shop.yaml", "--load", "orders=" + orders, "--metrics", "revenue"}, strings.NewReader(""), &out, &errb)
	if code != ExitProblems || !strings.Contains(errb.String(), "OSS5001") || !strings.Contains(errb.String(), "engine: ") || strings.Contains(errb.String(), "server log") {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
}
