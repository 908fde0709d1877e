package ossiectl

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"
)

// dataHubSchema is the part of DataHub's GraphQL schema (datahub-graphql-core
// entity.graphql) that enrich reads, with the same type and field names, so
// the test server executes enrich's real query text and rejects any field
// or fragment DataHub would not have.
const dataHubSchema = `
schema { query: Query }
type Query { dataset(urn: String!): Dataset }
type Dataset {
  urn: String!
  properties: DatasetProperties
  editableProperties: DatasetEditableProperties
  glossaryTerms: GlossaryTerms
  tags: GlobalTags
  schemaMetadata: SchemaMetadata
  editableSchemaMetadata: EditableSchemaMetadata
}
type DatasetProperties { name: String! description: String }
type DatasetEditableProperties { description: String }
type GlossaryTerms { terms: [GlossaryTermAssociation!] }
type GlossaryTermAssociation { term: GlossaryTerm! }
type GlossaryTerm { urn: String! name: String! properties: GlossaryTermProperties }
type GlossaryTermProperties { name: String! definition: String! }
type GlobalTags { tags: [TagAssociation!] }
type TagAssociation { tag: Tag! }
type Tag { urn: String! name: String! properties: TagProperties }
type TagProperties { name: String! description: String }
type SchemaMetadata { fields: [SchemaField!]! }
type SchemaField { fieldPath: String! description: String glossaryTerms: GlossaryTerms globalTags: GlobalTags }
type EditableSchemaMetadata { editableSchemaFieldInfo: [EditableSchemaFieldInfo!]! }
type EditableSchemaFieldInfo { fieldPath: String! description: String glossaryTerms: GlossaryTerms globalTags: GlobalTags }
`

type dhtDataset struct {
	Urn                    string
	Properties             *dhtProps
	EditableProperties     *dhtEditable
	GlossaryTerms          *dhtTerms
	Tags                   *dhtTags
	SchemaMetadata         *dhtSchema
	EditableSchemaMetadata *dhtEditableSchema
}
type dhtProps struct {
	Name        string
	Description *string
}
type dhtEditable struct{ Description *string }
type dhtTerms struct{ Terms *[]dhtTermAssoc }
type dhtTermAssoc struct{ Term dhtTerm }
type dhtTerm struct {
	Urn, Name  string
	Properties *dhtTermProps
}
type dhtTermProps struct{ Name, Definition string }
type dhtTags struct{ Tags *[]dhtTagAssoc }
type dhtTagAssoc struct{ Tag dhtTag }
type dhtTag struct {
	Urn, Name  string
	Properties *dhtTagProps
}
type dhtTagProps struct {
	Name        string
	Description *string
}
type dhtSchema struct{ Fields []dhtField }
type dhtEditableSchema struct{ EditableSchemaFieldInfo []dhtField }
type dhtField struct {
	FieldPath     string
	Description   *string
	GlossaryTerms *dhtTerms
	GlobalTags    *dhtTags
}

type dhtRoot struct{ datasets map[string]*dhtDataset }

func (r *dhtRoot) Dataset(args struct{ Urn string }) *dhtDataset { return r.datasets[args.Urn] }

func str(s string) *string { return &s }

func terms(names ...string) *dhtTerms {
	var a []dhtTermAssoc
	for _, n := range names {
		a = append(a, dhtTermAssoc{Term: dhtTerm{Urn: "urn:li:glossaryTerm:" + n, Name: n, Properties: &dhtTermProps{Name: n, Definition: "-"}}})
	}
	return &dhtTerms{Terms: &a}
}

func tags(names ...string) *dhtTags {
	var a []dhtTagAssoc
	for _, n := range names {
		a = append(a, dhtTagAssoc{Tag: dhtTag{Urn: "urn:li:tag:" + n, Name: n, Properties: &dhtTagProps{Name: n}}})
	}
	return &dhtTags{Tags: &a}
}

// startDataHub serves the GraphQL endpoint at /api/graphql, requiring the
// bearer token, and counts requests.
func startDataHub(t *testing.T, token string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	root := &dhtRoot{datasets: map[string]*dhtDataset{
		"urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.orders,PROD)": {
			Urn:                "urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.orders,PROD)",
			Properties:         &dhtProps{Name: "orders", Description: str("Ingested: orders table.")},
			EditableProperties: &dhtEditable{Description: str("One row per order placed in the web shop.")},
			GlossaryTerms:      terms("Sales"),
			Tags:               tags("pii", "Sales"),
			SchemaMetadata: &dhtSchema{Fields: []dhtField{
				{FieldPath: "order_id", Description: str("Order number, unique.")},
				{FieldPath: "amount", Description: str("Gross amount: \"incl. VAT\"."), GlossaryTerms: terms("Revenue")},
				{FieldPath: "[version=2.0].[type=long].customer_id", Description: str("Who ordered.")},
				{FieldPath: "[version=2.0].[type=date].Order Date", Description: str("Day the order was placed.")},
			}},
			EditableSchemaMetadata: &dhtEditableSchema{EditableSchemaFieldInfo: []dhtField{
				{FieldPath: "order_id", Description: str("Order number (edited in DataHub)."), GlobalTags: tags("key")},
			}},
		},
		"urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.customers,PROD)": {
			Urn:           "urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.customers,PROD)",
			Properties:    &dhtProps{Name: "customers", Description: str("Customer master data.")},
			GlossaryTerms: terms("Customer", "buyers"),
		},
	}}
	schema := graphql.MustParseSchema(dataHubSchema, root, graphql.UseFieldResolvers())
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/api/graphql" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var req struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := schema.Exec(context.Background(), req.Query, req.OperationName, req.Variables)
		if len(resp.Errors) > 0 {
			t.Errorf("GraphQL errors for enrich's query: %v", resp.Errors)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestEnrichFromDataHub(t *testing.T) {
	srv, calls := startDataHub(t, "s3cret")
	t.Setenv("DATAHUB_TOKEN", "s3cret")
	files := copyTestdata(t, 0o640, "enrich/model.yaml")
	code, out, errs := run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", files[0])
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	want := `orders: description added; synonyms added: Sales, pii
orders.order_id: description added; synonyms added: key
orders.amount: synonyms added: Revenue
orders.customer: description added
customers: synonyms added: Customer
returns: not in DataHub (urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.returns,PROD)). Next: check --platform/--env/--platform-instance, or map it with --urn returns=URN
clicks: skipped: file source; map it with --urn clicks=URN
4 datasets: 3 looked up in DataHub, 2 found, 1 skipped: 3 descriptions added, 0 replaced, 5 synonyms added; 2 author descriptions kept (--overwrite replaces them)
`
	if out != want {
		t.Errorf("summary\n%s\nwant\n%s", out, want)
	}
	if strings.Contains(out+errs, "s3cret") {
		t.Error("the token was printed")
	}
	if got := calls.Load(); got != 3 {
		t.Errorf("%d DataHub requests, want 3 (orders, customers, returns)", got)
	}
	enriched := readFile(t, files[0])
	golden(t, "enrich/model.enriched.yaml", enriched)
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if code, out, errs := run(t, "", "validate", files[0]); code != ExitOK {
		t.Errorf("enriched file invalid: %s%s", out, errs)
	}
	// A second run finds nothing to add and leaves the file alone.
	code, out, _ = run(t, "", "enrich", "--datahub", srv.URL+"/api/graphql", "--platform", "trino", files[0])
	if code != ExitOK || !strings.Contains(out, "0 descriptions added, 0 replaced, 0 synonyms added") || string(readFile(t, files[0])) != string(enriched) {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
	// --overwrite replaces the author's text, -o - prints instead of writing.
	code, out, _ = run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", "--overwrite", "-o", "-", files[0])
	if code != ExitOK || !strings.Contains(out, "orders.amount: description replaced") ||
		!strings.Contains(out, `description: "Gross amount: \"incl. VAT\"."`) || !strings.Contains(out, `description: "Customer master data."`) {
		t.Errorf("--overwrite: exit %d\n%s", code, out)
	}
	if string(readFile(t, files[0])) != string(enriched) {
		t.Error("-o - changed the input file")
	}
	// --urn maps a dataset whose source does not name its DataHub table;
	// --dry-run reports without writing.
	code, out, _ = run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", "--dry-run",
		"--urn", "clicks=urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.customers,PROD)", files[0])
	if code != ExitOK || !strings.Contains(out, "clicks: description added; synonyms added: Customer, buyers\n") {
		t.Errorf("--urn: exit %d\n%s", code, out)
	}
	if string(readFile(t, files[0])) != string(enriched) {
		t.Error("--dry-run changed the file")
	}
	// Glue-style names: database.table, here found under another platform.
	code, out, _ = run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", "--platform-instance", "shop", "--name-parts", "2",
		"--lowercase", "--dry-run", "testdata/enrich/model.yaml")
	if code != ExitOK || !strings.Contains(out, "orders: description added") || !strings.Contains(out, "(urn:li:dataset:(urn:li:dataPlatform:trino,shop.public.returns,PROD))") {
		t.Errorf("--name-parts: exit %d\n%s", code, out)
	}
}

func TestEnrichFailures(t *testing.T) {
	srv, _ := startDataHub(t, "s3cret")
	files := copyTestdata(t, 0o644, "enrich/model.yaml")
	orig := readFile(t, files[0])
	tokenFile := files[0] + ".token"
	if err := os.WriteFile(tokenFile, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad token", []string{"--datahub", srv.URL, "--platform", "trino", "--token-file", tokenFile}, ExitProblems, "DataHub refused the credentials (HTTP 401). Nothing was written. Next: set DATAHUB_TOKEN"},
		{"unreachable", []string{"--datahub", deadURL, "--platform", "trino", "--token-env", "NO_SUCH_VAR"}, ExitUnreachable, "cannot reach DataHub at " + deadURL + "/api/graphql"},
		{"no url", []string{"--platform", "trino"}, ExitUsage, "--datahub URL is required"},
		{"bad urn", []string{"--datahub", srv.URL, "--urn", "orders"}, ExitUsage, "want DATASET=urn:li:dataset:"},
		{"missing token file", []string{"--datahub", srv.URL, "--platform", "trino", "--token-file", files[0] + ".nope"}, ExitProblems, "cannot read --token-file"},
	} {
		code, out, errs := run(t, "", append(append([]string{"enrich"}, tc.args...), files[0])...)
		if code != tc.code || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "Next:") && code != ExitUsage {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", tc.name, code, tc.code, tc.want, out, errs)
		}
		if strings.Contains(out+errs, "wrong") {
			t.Errorf("%s: token printed", tc.name)
		}
		if string(readFile(t, files[0])) != string(orig) {
			t.Fatalf("%s: file changed", tc.name)
		}
	}
}

// enrich edits SemanticModel manifests (under spec) and JSON documents
// (which stay JSON) as well as YAML documents.
func TestEnrichManifestAndJSON(t *testing.T) {
	srv, _ := startDataHub(t, "s3cret")
	t.Setenv("DATAHUB_TOKEN", "s3cret")
	_, sm, _ := run(t, "", "manifest", "testdata/enrich/model.yaml", "--name", "shop")
	manifest := writeTemp(t, "shop.sm.yaml", sm)
	jsonDoc := writeTemp(t, "shop.json", `{"version": "0.2.0.dev0", "semantic_model": [{"name": "shop", "datasets": [
  {"name": "orders", "source": "shop.public.orders", "fields": [
    {"name": "amount", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "amount"}]}}]}]}]}
`)
	for _, f := range []string{manifest, jsonDoc} {
		code, out, errs := run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", f)
		if code != ExitOK || !strings.Contains(out, "orders: description added; synonyms added: Sales, pii") {
			t.Fatalf("%s: exit %d\n%s%s", f, code, out, errs)
		}
		if code, out, errs := run(t, "", "validate", f); code != ExitOK {
			t.Errorf("%s: invalid after enrich: %s%s", f, out, errs)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(readFile(t, jsonDoc), &doc); err != nil {
		t.Fatalf("JSON document is no longer JSON: %v\n%s", err, readFile(t, jsonDoc))
	}
	if !strings.Contains(string(readFile(t, jsonDoc)), `"description": "Gross amount: \"incl. VAT\"."`) {
		t.Errorf("field description missing:\n%s", readFile(t, jsonDoc))
	}
	if !strings.Contains(string(readFile(t, manifest)), "# Generated by `ossiectl manifest`") {
		t.Error("manifest header comment lost")
	}
}
