package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// MCPArgs translates the HTTP query body into the arguments of the MCP
// query tool (mcpapi.QueryArgs: metrics, dimensions with field, grain
// and compare_date_range, filters with field or metric, op and values,
// order_by, limit, timezone). A key the tool does not take makes the cell
// not applicable (ErrNotApplicable naming the keys), never dropped.
func MCPArgs(query []byte, namespace, model string) (map[string]any, error) {
	var q map[string]any
	dec := json.NewDecoder(bytes.NewReader(query))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		return nil, err
	}
	var missing []string
	keep := func(m map[string]any, at string, allowed ...string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			ok := false
			for _, a := range allowed {
				ok = ok || a == k
			}
			if ok {
				out[k] = v
			} else if !(k == "value" && at == "filters") {
				missing = append(missing, at+k)
			}
		}
		return out
	}
	args := keep(q, "", "metrics", "dimensions", "filters", "order_by", "limit", "timezone")
	args["model"] = model
	if namespace != "" {
		args["namespace"] = namespace
	}
	if ds, ok := args["dimensions"].([]any); ok {
		for i, d := range ds {
			if s, ok := d.(string); ok {
				ds[i] = map[string]any{"field": s}
				continue
			}
			if m, ok := d.(map[string]any); ok {
				ds[i] = keep(m, "dimensions.", "field", "grain", "compare_date_range")
			}
		}
	}
	if fs, ok := args["filters"].([]any); ok {
		for i, f := range fs {
			if m, ok := f.(map[string]any); ok {
				out := keep(m, "filters.", "field", "metric", "op", "values")
				if v, ok := m["value"]; ok {
					out["values"] = []any{v}
				}
				fs[i] = out
			}
		}
	}
	if _, ok := args["metrics"]; !ok {
		args["metrics"] = []any{}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("%w: the MCP query tool takes no %s", ErrNotApplicable, strings.Join(missing, ", "))
	}
	return args, nil
}

// bearer adds the caller's token to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// RunMCP calls the query tool of the server's /mcp endpoint with the
// official MCP Go SDK client (streamable HTTP, the caller's token) and
// decodes its structured content with encoding/json, typed by its columns.
// namespace is the model's ("" for model files).
func RunMCP(ctx context.Context, p *Proc, c dcase.Case, namespace string) (Outcome, error) {
	args, err := MCPArgs(c.Query, namespace, c.ModelName)
	if err != nil {
		return Outcome{}, err
	}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + p.Addr + "/mcp", HTTPClient: &http.Client{Transport: bearer{p.Token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ossie-differential"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		return Outcome{}, fmt.Errorf("mcp connect: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: args})
	if err != nil {
		return refusal(err.Error()), nil
	}
	if res.IsError {
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return refusal(text.String()), nil
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return Outcome{}, err
	}
	r, err := DecodeJSON(body)
	if err != nil {
		return Outcome{}, fmt.Errorf("%w\nstructured content: %.2000s", err, body)
	}
	return answer(r), nil
}
