package httpapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/queryjson"
)

// openAPIPaths is the written part of the OpenAPI 3.1 description of the
// API (New): the operations of the routes (api.routes), their prose,
// status codes, headers and content types, and the security schemes —
// what Go types cannot say. Every component schema is generated from the
// Go types the handlers decode and encode (requestSchemas,
// responseSchemas), so the bodies cannot drift; tests check that every
// registered route is described, that real responses of every route
// validate, and that the request schemas accept what the strict decoder
// accepts and refuse what it refuses.
//
//go:embed openapi.json
var openAPIPaths []byte

// requestSchemas maps a component schema name to a value of the Go type a
// request body is strictly decoded into (unknown keys refused).
var requestSchemas = map[string]any{
	"Query": queryjson.Request{},
}

// responseSchemas maps a component schema name to a value of the Go type
// that is encoded as it.
var responseSchemas = map[string]any{
	"ModelSummary":  server.ModelSummary{},
	"ModelDetail":   server.ModelDetail{},
	"ResultColumn":  format.ResultColumn{},
	"QueryResponse": server.Response{},
	"PlanResponse":  server.PlanResponse{},
	"Problem":       problem.Doc{},
	"ModelStatuses": map[string]server.ModelStatus{},
}

// schemaDocs is the prose of generated schemas and their top-level
// properties ("Schema" or "Schema.property"): Go doc comments are not
// visible to reflection.
var schemaDocs = map[string]string{
	"Query": "A metric query; without metrics it returns the distinct members of its dimensions. A dimension is \"dataset.field\" " +
		"or {field, grain, week_start, via} (via: the relationship to join along where the model joins a dataset by several " +
		"many-to-one paths; default: the metrics' pinned via, else OSS4011); a filter has exactly one of field " +
		"(before aggregation) or metric (after aggregation), an op (=, !=, in, not_in, gt, gte, lt, lte, between, contains, " +
		"starts_with, is_null, is_not_null, in_date_range, and their aliases) and values or value; an order has a key and dir " +
		"(asc or desc). Grains: hour, day, week, month, quarter, year; week_start: monday or sunday. compare_date_range (Cube's " +
		"compareDateRange, also accepted under that key) on one time dimension answers the query once per date range, each " +
		"[start, end] or a relative range such as \"last month\", the rows labelled by a first column compare_date_range (OSS4064).",
	"Query.metrics":                "Metric names",
	"Query.limit":                  "Rows of the page; absent: no limit (the server's row cap still applies and is reported)",
	"Query.timezone":               "IANA time zone for time buckets and relative date ranges; default UTC",
	"Query.through":                "Without metrics only: the dataset whose rows' members are listed (it must reach every dataset of the dimensions and filters by many-to-one relationships); absent: the one dataset that does, OSS4012 when none or several",
	"Query.explain":                "POST /sql only: also return the logical plan as an indented tree (refused by /query)",
	"Query.total":                  "Also return total: the row count without limit and offset (pagination)",
	"QueryResponse.model_version":  "sha256:<hex> of the canonical model spec",
	"QueryResponse.cached":         "the answer comes from the result cache",
	"QueryResponse.age_ms":         "when cached: milliseconds since the answer was computed",
	"QueryResponse.row_count":      "trailer: follows the rows",
	"QueryResponse.truncated":      "trailer: true when a row beyond the server's row cap existed",
	"QueryResponse.total":          "trailer, when the query asked for total: rows without limit and offset",
	"PlanResponse.explain":         "The logical plan, one node per line with the rewrite that made it and why; present when the query set explain",
	"ResultColumn.kind":            "dimension or metric",
	"ResultColumn.timezone":        "time dimensions: the query time zone the buckets are in",
	"ResultColumn.stored_timezone": "time dimensions over a naive DateTime: the zone its stored values were read in before conversion",
	"ResultColumn.type":            "Ossie datatype: String, Integer, Decimal, Float, Boolean, Date, Time, DateTime, DateTimeTz or Opaque",
	"ModelStatuses":                "Model (namespace/name for a model a Kubernetes namespace publishes, name for a model file) to the version and source serving it, and why its newest published version was refused",
	"ModelSummary.namespace":       "Kubernetes namespace publishing the model, absent for model files; address it as /v1/namespaces/{namespace}/models/{name}",
	"ModelDetail.namespace":        "Kubernetes namespace publishing the model, absent for model files",
	"Problem":                      "RFC 9457 problem details plus the Ossie code and every finding.",
	"Problem.code":                 "Stable Ossie code, OSSnnnn",
	"Problem.request_id":           "The X-Request-Id of the request; the server logs the engine's message of an engine failure under it (the detail never carries it)",
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
	if err := json.Unmarshal(openAPIPaths, &doc); err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	schemas := map[string]any{}
	for _, set := range []struct {
		types   map[string]any
		request bool
	}{{requestSchemas, true}, {responseSchemas, false}} {
		for name, v := range set.types {
			s, err := generateSchema(v, set.request)
			if err != nil {
				return nil, fmt.Errorf("openapi schema %s: %w", name, err)
			}
			describe(name, s)
			schemas[name] = s
		}
	}
	doc["components"].(map[string]any)["schemas"] = schemas
	addNamespacedPaths(doc["paths"].(map[string]any))
	return json.MarshalIndent(doc, "", "  ")
}

// generateSchema reflects the JSON schema of v's type with openapi3gen and
// returns it as plain JSON values.
func generateSchema(v any, request bool) (map[string]any, error) {
	custom := func(_ string, t reflect.Type, _ reflect.StructTag, s *openapi3.Schema) error {
		return customizeSchema(t, s, request)
	}
	ref, err := openapi3gen.NewSchemaRefForValue(v, nil, openapi3gen.SchemaCustomizer(custom))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(ref.Value)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

func describe(name string, s map[string]any) {
	if d, ok := schemaDocs[name]; ok {
		s["description"] = d
	}
	props, _ := s["properties"].(map[string]any)
	for p, v := range props {
		if d, ok := schemaDocs[name+"."+p]; ok {
			v.(map[string]any)["description"] = d
		}
	}
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	dimensionType   = reflect.TypeFor[plan.Dimension]()
)

// customizeSchema adds what the JSON encoding of a type says and plain
// reflection cannot see:
//   - in responses, fields without omitempty are required (encoding/json
//     always writes them); a request body may omit any key (it decodes as
//     the zero value, and the planner reports what a query lacks);
//   - a struct decoded strictly (request) refuses unknown keys;
//   - values of `any` may be null;
//   - a type whose UnmarshalJSON accepts a JSON string as well as its
//     object form (plan.Dimension, ossie.AIContext) is oneOf a string or
//     that object.
func customizeSchema(t reflect.Type, s *openapi3.Schema, request bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Interface:
		s.Nullable = true
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	s.Required = nil
	for _, f := range reflect.VisibleFields(t) {
		if request {
			break // a missing key decodes as the zero value
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Anonymous || name == "" || name == "-" || strings.Contains(opts, "omitempty") {
			continue
		}
		s.Required = append(s.Required, name)
	}
	if request && s.Properties != nil {
		s.AdditionalProperties = openapi3.AdditionalProperties{Has: new(bool)}
	}
	if t == dimensionType && s.Properties["compare_date_range"] != nil {
		// plan.Dimension's decoder also takes Cube's spelling.
		s.Properties["compareDateRange"] = s.Properties["compare_date_range"]
	}
	if acceptsString(t) {
		obj := *s
		obj.Nullable = false
		*s = openapi3.Schema{Nullable: s.Nullable, OneOf: openapi3.SchemaRefs{
			{Value: openapi3.NewStringSchema()},
			{Value: &obj},
		}}
	}
	return nil
}

// acceptsString reports whether t has its own UnmarshalJSON that takes a
// JSON string: its JSON is then a string or an object.
func acceptsString(t reflect.Type) bool {
	if !reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	u := reflect.New(t).Interface().(json.Unmarshaler)
	return u.UnmarshalJSON([]byte(`"x"`)) == nil
}

// namespacedPrefix is where the routes of a model served from a
// Kubernetes namespace live (namespaces.go); each has the same operations
// as its bare twin under /v1/models/{model}.
const namespacedPrefix = "/v1/namespaces/{namespace}/models/{model}"

// addNamespacedPaths copies every /v1/models/{model}... path item to its
// namespaced twin, with the namespace parameter, an operationId of its
// own and without the 409 of an ambiguous bare name.
func addNamespacedPaths(paths map[string]any) {
	for p, item := range maps.Clone(paths) {
		rest, ok := strings.CutPrefix(p, "/v1/models/{model}")
		if !ok {
			continue
		}
		var twin map[string]any
		b, _ := json.Marshal(item)
		_ = json.Unmarshal(b, &twin)
		params, _ := twin["parameters"].([]any)
		twin["parameters"] = append([]any{map[string]any{"$ref": "#/components/parameters/namespace"}}, params...)
		for _, op := range twin {
			if m, ok := op.(map[string]any); ok && m["operationId"] != nil {
				m["operationId"] = m["operationId"].(string) + "InNamespace"
				// Only a bare name can be ambiguous.
				delete(m["responses"].(map[string]any), "409")
			}
		}
		paths[namespacedPrefix+rest] = twin
	}
}

func handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(OpenAPI())
}
