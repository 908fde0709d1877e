package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/queryjson"
)

// TestOpenAPIValidatesRealResponses calls every route of the API, with
// good and bad requests, and validates each real response (status,
// content type, body) against the served OpenAPI document, whose response
// schemas are generated from the Go types.
func TestOpenAPIValidatesRealResponses(t *testing.T) {
	f := newGovernedFixture(t)
	_, spec := f.call(t, "GET", "/openapi.json", "", nil)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is invalid: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	state := bearer(governedToken("state"))
	auditor := bearer(governedToken("auditor"))
	for _, c := range []struct {
		method, path, body string
		hdr                http.Header
		status             int
	}{
		{"GET", "/v1/models", "", state, 200},
		{"GET", "/v1/models", "", nil, 401},
		{"GET", "/v1/models/shop", "", auditor, 200},
		{"GET", "/v1/models/shop", "", state, 200},
		{"GET", "/v1/models/nope", "", state, 404},
		{"POST", "/v1/models/shop/query", `{"metrics":["revenue","order_count"],"dimensions":["orders.status",{"field":"orders.order_date","grain":"month"}]}`, state, 200},
		{"POST", "/v1/models/shop/query", `{"metrics":["revenu"]}`, state, 400},
		{"POST", "/v1/models/slow/sql", `{"metrics":["rows"]}`, auditor, 200},
		{"POST", "/v1/models/shop/sql", `{"metrics":["order_count"]}`, state, 403},
		{"POST", "/v1/models/shop/query", `{"metrics":["order_count"],"dimensions":["orders.status"],"limit":1,"total":true}`, state, 200},
		{"POST", "/v1/models/shop/query", `{"metrics":["order_count"],"dimensions":["orders.status"]}`, withAccept(state, "text/csv"), 200},
		{"POST", "/v1/models/shop/query", `{"metrics":["order_count"],"dimensions":["orders.status"]}`, withAccept(state, "application/vnd.apache.arrow.stream"), 200},
		{"POST", "/v1/models/slow/sql", `{"metrics":["rows"],"explain":true}`, auditor, 200},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, withAccept(state, "application/json, text/event-stream"), 200},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, 401},
		{"GET", "/", "", nil, 200},
		{"GET", "/ui/app.js", "", nil, 200},
		{"GET", "/ui/style.css", "", nil, 200},
		{"GET", "/openapi.json", "", nil, 200},
		{"GET", "/metrics", "", nil, 200},
		{"GET", "/healthz", "", nil, 200},
		{"GET", "/readyz", "", nil, 200},
	} {
		t.Run(c.method+" "+c.path+" "+http.StatusText(c.status), func(t *testing.T) {
			resp, body := f.call(t, c.method, c.path, c.body, c.hdr)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			validateExchange(t, router, c.method, f.ts.URL+c.path, c.body, resp, body)
		})
	}
}

// validateExchange validates a request that was sent and the response the
// server gave against the document: the request body for the query
// routes, the status, headers, content type and body of the response.
func validateExchange(t *testing.T, router routers.Router, method, url, reqBody string, resp *http.Response, body []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(reqBody))
	req.Header.Set("Content-Type", "application/json")
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("no route in the document: %v", err)
	}
	if method == "POST" && strings.Contains(url, "/v1/") {
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Fatalf("the request does not match the document: %v", err)
		}
		req.Body = io.NopCloser(strings.NewReader(reqBody))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Fatalf("response does not match the document: %v\n%s", err, body)
	}
}

// TestOpenAPIValidatesNamespacedResponses serves the shop model from two
// namespaces and validates the namespaced routes' answers and the 409 of
// the bare name against the document.
func TestOpenAPIValidatesNamespacedResponses(t *testing.T) {
	arts, err := load.Models([]string{"../testdata/shop.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := server.NewStore(nil)
	for _, ns := range []string{"team-a", "team-b"} {
		if err := store.Set(server.Source{Key: "configmap " + ns + "/shop", Namespace: ns}, arts); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, func(c *server.Config) { c.Models, c.Store = nil, store })
	router, err := legacy.NewRouter(loadOpenAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	q := `{"metrics":["order_count"],"dimensions":["orders.status"]}`
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/v1/namespaces/team-a/models/shop", "", 200},
		{"POST", "/v1/namespaces/team-a/models/shop/query", q, 200},
		{"POST", "/v1/namespaces/team-b/models/shop/sql", q, 200},
		{"POST", "/v1/namespaces/team-c/models/shop/query", q, 404},
		{"GET", "/v1/models/shop", "", 409},
		{"POST", "/v1/models/shop/query", q, 409},
	} {
		t.Run(c.method+" "+c.path+" "+http.StatusText(c.status), func(t *testing.T) {
			resp, body := f.do(t, c.method, c.path, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			validateExchange(t, router, c.method, f.ts.URL+c.path, c.body, resp, body)
		})
	}
}

// loadOpenAPI parses and validates the served document.
func withAccept(h http.Header, accept string) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Accept", accept)
	h.Set("Content-Type", "application/json")
	return h
}

// The explorer's files are text the validator has no decoder for.
func init() {
	for _, ct := range []string{"text/html", "text/javascript", "text/css"} {
		openapi3filter.RegisterBodyDecoder(ct, func(r io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
			b, err := io.ReadAll(r)
			return string(b), err
		})
	}
}

func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is invalid: %v", err)
	}
	return doc
}

// docPath is the OpenAPI path of a ServeMux pattern: "/{$}" is "/", and a
// subtree pattern "/ui/" is "/ui/{asset}".
func docPath(pattern string) string {
	p := strings.TrimSuffix(pattern, "{$}")
	if p != "/" && strings.HasSuffix(p, "/") {
		p += "{asset}"
	}
	return p
}

// TestOpenAPIDescribesEveryRoute checks that every route Handler registers
// has its operation in the document, and that the document describes no
// route Handler does not register.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	a, err := newAPI(srv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range a.routes() {
		p := docPath(rt.pattern)
		registered[p] = true
		item := doc.Paths.Value(p)
		if item == nil {
			t.Errorf("%s %s is registered but not in the OpenAPI document", rt.method, p)
			continue
		}
		if rt.method == "" {
			if len(item.Operations()) == 0 {
				t.Errorf("%s has no operation in the document", p)
			}
			continue
		}
		if item.GetOperation(rt.method) == nil {
			t.Errorf("%s %s is registered but the document has no %s operation there", rt.method, p, rt.method)
		}
		for m := range item.Operations() {
			if m != rt.method {
				t.Errorf("the document describes %s %s, which answers 405", m, p)
			}
		}
	}
	for p := range doc.Paths.Map() {
		if !registered[p] {
			t.Errorf("the document describes %s, which Handler does not register", p)
		}
	}
	if len(registered) < 14 {
		t.Errorf("only %d routes registered", len(registered))
	}
}

// queryLiterals returns every query body written as a raw string in this
// package's tests (those starting with {"metrics").
func queryLiterals(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	re := regexp.MustCompile("`(\\{\"metrics\"[^`]*)`")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}

// TestOpenAPIRequestSchemas validates the query bodies of this package's
// tests, and a few bad ones, against the generated request schema with
// openapi3filter (path, content type and body of a real route), and
// checks that the schema accepts exactly what the server's strict decoder
// accepts.
func TestOpenAPIRequestSchemas(t *testing.T) {
	doc := loadOpenAPI(t)
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	bodies := queryLiterals(t)
	if len(bodies) < 40 {
		t.Fatalf("only %d query bodies found in the tests", len(bodies))
	}
	bad := []string{
		`{"metrics":["revenue"],"limit":"10"}`,
		`{"metrics":["revenue"],"offset":1.5}`,
		`{"metrics":["revenue"],"dimensions":[{"field":"orders.order_date","grain":"month","tz":"UTC"}]}`,
		`{"metrics":["revenue"],"dimensions":[7]}`,
		`{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"=","values":["x"],"negate":true}]}`,
		`{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"=","values":"x"}]}`,
		`{"metrics":["revenue"],"order_by":[{"key":"revenue","dir":1}]}`,
		`{"metrics":["revenue"],"order_by":["revenue"]}`,
		`{"metrics":["revenue"],"total":"yes"}`,
		`{"metrics":["revenue"],"role":"admin"}`,
		`["revenue"]`,
	}
	var accepted, refused int
	for _, body := range append(bodies, bad...) {
		for _, path := range []string{"/v1/models/shop/query", "/v1/models/shop/sql", "/v1/namespaces/team/models/shop/query"} {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1"+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			verr := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
				Request: req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
			})
			_, derr := queryjson.Parse([]byte(body))
			if !json.Valid([]byte(body)) {
				// Not one JSON value: a matter of the body's syntax, which
				// a schema does not describe; the server must refuse it.
				if derr == nil {
					t.Errorf("the server accepts %s", body)
				}
				continue
			}
			switch {
			case verr == nil && derr != nil:
				t.Errorf("%s: the schema accepts %s, the server refuses it: %v", path, body, derr)
			case verr != nil && derr == nil:
				t.Errorf("%s: the schema refuses %s, the server accepts it: %v", path, body, verr)
			case verr == nil:
				accepted++
			default:
				refused++
			}
		}
	}
	t.Logf("%d bodies from the tests; %d validations accepted, %d refused", len(bodies), accepted, refused)
	if refused < 3*len(bad) {
		t.Errorf("only %d refusals; every bad body must be refused", refused)
	}
}
