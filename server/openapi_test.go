package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
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
		{"GET", "/healthz", "", nil, 200},
		{"GET", "/readyz", "", nil, 200},
	} {
		t.Run(c.method+" "+c.path+" "+http.StatusText(c.status), func(t *testing.T) {
			resp, body := f.call(t, c.method, c.path, c.body, c.hdr)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			req, _ := http.NewRequest(c.method, f.ts.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatalf("no route in the document: %v", err)
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
		})
	}
}
