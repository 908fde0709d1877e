package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
	"github.com/ossie-dev/ossie/server"
)

// boundedPaths are the endpoints that decode a JSON body; mcpEnvelope
// wraps a shape as the arguments of an MCP tool call.
var boundedPaths = []string{"/v1/models/shop/query", "/v1/models/shop/sql", "/mcp"}

func mcpEnvelope(args []byte) []byte {
	return append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":`), args...), "}}"...)
}

func bodyFor(path string, shape []byte) []byte {
	if path == "/mcp" {
		return mcpEnvelope(shape)
	}
	return shape
}

// serve runs one POST through the handler in process (no network), as
// the benchmark and the fuzz target do.
func serve(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestAdversarialBodiesRefused (issue 25): every JSON body shape of 1 MB
// over the body limits (deep arrays and objects, wide arrays, many keys)
// is 400 OSS1021 at line 1 on the query, SQL and MCP endpoints, before it
// is decoded; a long string within them is decoded and answered with the
// query's own problem.
func TestAdversarialBodiesRefused(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxBodyBytes = 2 << 20 })
	h := handlerOf(f.srv)
	for _, s := range prescantest.JSON(1 << 20) {
		for _, path := range boundedPaths {
			w := serve(h, path, bodyFor(path, s.Data))
			var doc struct {
				Code     string            `json:"code"`
				Problems compiler.Problems `json:"problems"`
			}
			_ = json.Unmarshal(w.Body.Bytes(), &doc)
			if s.Kind == "" {
				if doc.Code == compiler.CodeDocumentTooComplex {
					t.Errorf("%s %s: refused within the limits: %s", path, s.Name, w.Body.String())
				}
				continue
			}
			if w.Code != http.StatusBadRequest || doc.Code != compiler.CodeDocumentTooComplex || len(doc.Problems) != 1 || doc.Problems[0].Line != 1 {
				t.Errorf("%s %s: %d %.300s; want 400 %s at line 1", path, s.Name, w.Code, w.Body.String(), compiler.CodeDocumentTooComplex)
			}
		}
	}
}

// BenchmarkAdversarialBodies: one request per 1 MB body shape on each
// endpoint, in process. Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkAdversarialBodies(b *testing.B) {
	f := newFixture(b, func(c *server.Config) { c.MaxBodyBytes = 2 << 20 })
	h := handlerOf(f.srv)
	for _, s := range prescantest.JSON(1 << 20) {
		for _, path := range boundedPaths {
			body := bodyFor(path, s.Data)
			b.Run(strings.TrimPrefix(strings.TrimPrefix(path, "/v1/models/shop"), "/")+"/"+s.Name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					serve(h, path, body)
				}
			})
		}
	}
}

// FuzzBoundedBodies: any body, starting from the adversarial shapes, on
// the query and MCP endpoints gets an answer and never a panic or a 500.
func FuzzBoundedBodies(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	fx := newFixture(f, nil)
	h := handlerOf(fx.srv)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/v1/models/shop/sql", "/mcp"} {
			if w := serve(h, path, bodyFor(path, body)); w.Code >= 500 {
				t.Errorf("%s %q: %d %s", path, body, w.Code, w.Body.String())
			}
		}
	})
}
