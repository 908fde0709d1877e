package server

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"

	"github.com/ossie-dev/ossie/api/ossie"
)

// openAPISkeleton is the written part of the OpenAPI 3.1 description of
// Handler: paths, prose, security, and the request schemas whose JSON is
// custom-decoded (Query, Dimension, Filter, Order, AIContext). The
// response schemas in it are replaced at start by ones generated from the
// Go types the handlers encode (generatedSchemas), so they cannot drift;
// a test validates real responses of every route against the result.
//
//go:embed openapi.json
var openAPISkeleton []byte

// generatedSchemas maps a component schema name to a value of the Go type
// that is encoded as it.
var generatedSchemas = map[string]any{
	"ModelSummary":  ModelSummary{},
	"ModelDetail":   ModelDetail{},
	"ResultColumn":  ResultColumn{},
	"QueryResponse": Response{},
	"PlanResponse":  PlanResponse{},
	"Problem":       problemDoc{},
	"ModelStatuses": map[string]ModelStatus{},
}

var openAPIDoc = sync.OnceValues(buildOpenAPI)

// OpenAPI returns the OpenAPI 3.1 document served at /openapi.json.
func OpenAPI() []byte {
	doc, err := openAPIDoc()
	if err != nil {
		panic(err) // a test builds it; the inputs are compiled in
	}
	return append([]byte(nil), doc...)
}

func buildOpenAPI() ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPISkeleton, &doc); err != nil {
		return nil, fmt.Errorf("openapi skeleton: %w", err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, v := range generatedSchemas {
		ref, err := openapi3gen.NewSchemaRefForValue(v, nil, openapi3gen.SchemaCustomizer(customizeSchema))
		if err != nil {
			return nil, fmt.Errorf("openapi schema %s: %w", name, err)
		}
		b, err := json.Marshal(ref.Value)
		if err != nil {
			return nil, err
		}
		var gen map[string]any
		if err := json.Unmarshal(b, &gen); err != nil {
			return nil, err
		}
		// The written description of the schema stays.
		if old, ok := schemas[name].(map[string]any); ok && old["description"] != nil {
			gen["description"] = old["description"]
		}
		schemas[name] = gen
	}
	return json.MarshalIndent(doc, "", "  ")
}

var aiContextType = reflect.TypeFor[ossie.AIContext]()

// customizeSchema adds what struct tags say and reflection cannot see:
// fields without omitempty are required, values of `any` may be null,
// and an ai_context is text or an object (its custom JSON form).
func customizeSchema(_ string, t reflect.Type, _ reflect.StructTag, s *openapi3.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == aiContextType:
		*s = openapi3.Schema{OneOf: openapi3.SchemaRefs{
			{Value: openapi3.NewStringSchema()},
			{Value: openapi3.NewObjectSchema()},
		}}
	case t.Kind() == reflect.Interface:
		s.Nullable = true
	case t.Kind() == reflect.Struct:
		s.Required = nil
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || strings.Contains(opts, "omitempty") {
				continue
			}
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

func handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(OpenAPI())
}
