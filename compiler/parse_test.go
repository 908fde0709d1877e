package compiler

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
)

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, data []byte) *Parsed {
	t.Helper()
	p, probs := Parse(data)
	if len(probs) > 0 {
		t.Fatalf("unexpected problems:\n%v", probs)
	}
	return p
}

// TestParseReportsAllProblemsAtOnce: one pass lists every problem, in source
// order, with its line:column and a did-you-mean where a close name exists.
func TestParseReportsAllProblemsAtOnce(t *testing.T) {
	doc := `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: orders
        source: shop.orders
        primay_key: [id]
        fields:
          - name: id
            expression: {dialects: [{dialect: ansi_sql, expression: id}]}
            datatype: integer
          - name: 2024
            expression: {dialects: []}
      - name: customers
    metrics:
      - name: n
        expresion: {dialects: [{dialect: ANSI_SQL, expression: COUNT(*)}]}
        description: one
        description: two
`
	_, probs := Parse([]byte(doc))
	type got struct {
		code, path string
		line, col  int
		hint       string
	}
	want := []got{
		{CodeUnknownKey, "semantic_model[0].datasets[0].primay_key", 7, 9, "did you mean `primary_key`?"},
		{CodeUnknownDialect, "semantic_model[0].datasets[0].fields[0].expression.dialects[0].dialect", 10, 47, "did you mean `ANSI_SQL`?"},
		{CodeInvalidValue, "semantic_model[0].datasets[0].fields[0].datatype", 11, 23, "did you mean `Integer`?"},
		{CodeWrongType, "semantic_model[0].datasets[0].fields[1].name", 12, 19, `quote it to mean the text: "2024"`},
		{CodeEmpty, "semantic_model[0].datasets[0].fields[1].expression.dialects", 13, 36, "at least one"},
		{CodeMissingKey, "semantic_model[0].datasets[1]", 14, 9, "`source`"},
		{CodeMissingKey, "semantic_model[0].metrics[0]", 16, 9, "`expression`"},
		{CodeUnknownKey, "semantic_model[0].metrics[0].expresion", 17, 9, "did you mean `expression`?"},
		{CodeDuplicateKey, "semantic_model[0].metrics[0].description", 19, 9, "first at 18:9"},
	}
	if len(probs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(probs), len(want), probs)
	}
	for i, w := range want {
		p := probs[i]
		if p.Code != w.code || p.Path != w.path || p.Line != w.line || p.Column != w.col || !strings.Contains(p.Message, w.hint) || (p.Severity != SeverityError) != (w.code == CodeUnknownDialect) {
			t.Errorf("problem %d:\n got  %v\n want %s %s %d:%d containing %q", i, p, w.code, w.path, w.line, w.col, w.hint)
		}
	}
}

// TestParseVersions: only the supported versions are read; anything else is
// refused with a message naming them and the fix, and nothing else is read.
func TestParseVersions(t *testing.T) {
	body := "semantic_model:\n  - name: m\n    datasets: [{name: t, source: t}]\n    bogus: 1\n"
	for _, v := range ossie.SupportedVersions {
		p, probs := Parse([]byte(`version: "` + v + "\"\n" + body))
		if len(probs) != 1 || probs[0].Code != CodeUnknownKey {
			t.Errorf("version %s: want only the unknown key, got %v", v, probs)
		}
		if p.Doc == nil || p.Doc.Version != v {
			t.Errorf("version %s: doc %+v", v, p.Doc)
		}
	}
	for name, head := range map[string]string{
		"missing":   "",
		"1.0":       "version: \"1.0\"\n",
		"number":    "version: 1.0\n",
		"future":    "version: \"0.3.0\"\n",
		"null":      "version:\n",
		"list":      "version: [\"0.2.0.dev0\"]\n",
		"uppercase": "version: \"0.2.0.DEV0\"\n",
	} {
		p, probs := Parse([]byte(head + body))
		if len(probs) != 1 || probs[0].Code != CodeUnsupportedVersion {
			t.Errorf("%s: want exactly one %s, got %v", name, CodeUnsupportedVersion, probs)
			continue
		}
		msg := probs[0].Message
		for _, s := range append([]string{`version: "0.2.0.dev0"`}, ossie.SupportedVersions...) {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: message %q does not mention %q", name, msg, s)
			}
		}
		if p.Doc != nil {
			t.Errorf("%s: a document of an unsupported version was read", name)
		}
		if probs[0].Path != "version" || probs[0].Line == 0 {
			t.Errorf("%s: problem not located: %v", name, probs[0])
		}
	}
}

// TestParseRichDocument checks the values read from a document that uses
// every feature, including all three source forms and both ai_context forms.
func TestParseRichDocument(t *testing.T) {
	doc := mustParse(t, mustRead(t, "testdata/parse/good/rich.yaml")).Doc
	if len(doc.SemanticModel) != 2 {
		t.Fatalf("models: %d", len(doc.SemanticModel))
	}
	m := doc.SemanticModel[0]
	if m.AIContext == nil || m.AIContext.IsText || m.AIContext.Instructions != "Use this model for sales questions." ||
		!reflect.DeepEqual(m.AIContext.Synonyms, []string{"shop", "retail"}) ||
		!reflect.DeepEqual(m.AIContext.Examples, []string{"Revenue by month for CA"}) {
		t.Errorf("model ai_context: %+v", m.AIContext)
	}
	if got := string(m.AIContext.Extra["audience"]); got != `"finance"` {
		t.Errorf("ai_context extra audience: %s", got)
	}
	if got := string(m.AIContext.Extra["weights"]); got != `{"depth":2,"none":null,"recency":0.5,"strict":true,"tags":["a","b"]}` {
		t.Errorf("ai_context extra weights: %s", got)
	}
	orders, customers, stores := m.Datasets[0], m.Datasets[1], m.Datasets[2]
	if orders.Source != (ossie.Source{Form: ossie.SourceFormTable, Kind: ossie.SourceTable, Object: "shop.public.orders"}) {
		t.Errorf("table source: %+v", orders.Source)
	}
	if customers.Source != (ossie.Source{Form: ossie.SourceFormString, Object: "shop.public.customers"}) {
		t.Errorf("string source: %+v", customers.Source)
	}
	if stores.Source.Form != ossie.SourceFormQuery || stores.Source.Kind != ossie.SourceQuery || stores.Source.Query == nil ||
		stores.Source.Query.Dialects[0].Expression != "SELECT id, name, region\nFROM shop.public.stores\nWHERE active\n" {
		t.Errorf("query source: %+v", stores.Source)
	}
	if !orders.AIContext.IsText || orders.AIContext.Text != "orders, purchases, sales" {
		t.Errorf("string ai_context: %+v", orders.AIContext)
	}
	if !reflect.DeepEqual(orders.PrimaryKey, []string{"order_id"}) ||
		!reflect.DeepEqual(orders.UniqueKeys, [][]string{{"order_number"}, {"store_id", "local_order_no"}}) {
		t.Errorf("keys: %v %v", orders.PrimaryKey, orders.UniqueKeys)
	}
	f := orders.Fields
	if len(f[0].Expression.Dialects) != 2 || f[0].Expression.Dialects[0].Dialect != ossie.OssieSQL2026 {
		t.Errorf("dialects: %+v", f[0].Expression)
	}
	// The is_time default rule: explicit wins, else temporal datatypes.
	isTime := map[string]bool{"order_id": false, "ordered_at": true, "order_day": true, "status_code": false, "amount": false}
	for _, fl := range f {
		if want, ok := isTime[fl.Name]; ok && fl.IsTime() != want {
			t.Errorf("%s.IsTime() = %v, want %v", fl.Name, fl.IsTime(), want)
		}
	}
	if f[1].Label != "Order time" || f[1].Datatype != ossie.TypeDateTimeTz || f[1].Dimension == nil || *f[1].Dimension.IsTime != true {
		t.Errorf("field ordered_at: %+v", f[1])
	}
	if f[3].Dimension == nil || f[3].Dimension.IsTime == nil || *f[3].Dimension.IsTime {
		t.Errorf("explicit is_time false lost: %+v", f[3].Dimension)
	}
	if len(f[4].CustomExtensions) != 1 || f[4].CustomExtensions[0] != (ossie.CustomExtension{VendorName: "DBT", Data: `{"meta": {"currency": "USD"}}`}) {
		t.Errorf("field extension: %+v", f[4].CustomExtensions)
	}
	rel := m.Relationships[0]
	if rel.From != "orders" || rel.To != "customers" || rel.FromColumns[0] != "customer_id" || rel.ToColumns[0] != "id" ||
		!rel.AIContext.IsText || rel.CustomExtensions[0].VendorName != "COMMON" {
		t.Errorf("relationship: %+v", rel)
	}
	rev := m.Metrics[0]
	if rev.Datatype != ossie.TypeDecimal || len(rev.Expression.Dialects) != 6 || rev.Description != "Total order amount." {
		t.Errorf("metric: %+v", rev)
	}
	if pe, ok := rev.Expression.Portable(); !ok || pe.Expression != "SUM(orders.amount)" {
		t.Errorf("portable: %+v", pe)
	}
	second := doc.SemanticModel[1]
	if second.Datasets[0].Source.Object != "SELECT * FROM raw.events WHERE kind = 'click'" || second.Datasets[0].Fields != nil ||
		second.Relationships != nil || second.Metrics != nil {
		t.Errorf("second model: %+v", second)
	}
}

// TestParseYAMLAndJSONAgree: rich.json was written from rich.yaml by an
// independent YAML reader (PyYAML); both must give the same document.
func TestParseYAMLAndJSONAgree(t *testing.T) {
	fromYAML := mustParse(t, mustRead(t, "testdata/parse/good/rich.yaml")).Doc
	fromJSON := mustParse(t, mustRead(t, "testdata/parse/good/rich.json")).Doc
	if !reflect.DeepEqual(fromYAML, fromJSON) {
		a, _ := json.Marshal(fromYAML)
		b, _ := json.Marshal(fromJSON)
		t.Errorf("YAML and JSON differ:\n%s\n%s", a, b)
	}
}

// TestParseRoundTrip: json.Marshal of a parsed document parses back (with
// Parse and with encoding/json) to an equal document, and marshalling that
// gives the same bytes — the compiler
// hashes this JSON, so it must be stable.
func TestParseRoundTrip(t *testing.T) {
	for name, data := range goodDocuments(t) {
		t.Run(name, func(t *testing.T) {
			first := mustParse(t, data).Doc
			js, err := json.Marshal(first)
			if err != nil {
				t.Fatal(err)
			}
			second := mustParse(t, js).Doc
			if !reflect.DeepEqual(first, second) {
				t.Errorf("round trip changed the document:\n%s", js)
			}
			js2, err := json.Marshal(second)
			if err != nil {
				t.Fatal(err)
			}
			if string(js) != string(js2) {
				t.Errorf("JSON not stable:\n%s\n%s", js, js2)
			}
			if probs := ValidateSchema(js); len(probs) > 0 {
				t.Errorf("marshalled JSON fails the schema: %v", probs)
			}
			// Plain encoding/json reads it back the same way (artifacts).
			var viaStd ossie.Document
			if err := json.Unmarshal(js, &viaStd); err != nil {
				t.Fatalf("json.Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(first, &viaStd) {
				t.Errorf("encoding/json round trip changed the document:\n%s", js)
			}
		})
	}
}

// TestParseAnchorsAndTags: aliases, merge keys and !!str behave as YAML
// defines them.
func TestParseAnchorsAndTags(t *testing.T) {
	doc := mustParse(t, mustRead(t, "testdata/parse/good/anchors.yaml")).Doc
	b := doc.SemanticModel[0].Datasets[1]
	if len(b.Fields) != 2 || b.Fields[0].Name != "id" || b.Fields[1].Name != "code" ||
		b.Fields[1].Expression.Dialects[0].Expression != "id" || b.Fields[1].Label != "2024" {
		t.Errorf("fields: %+v", b.Fields)
	}
}

// TestParseInputLimits: hostile inputs end quickly with OSS1021.
func TestParseInputLimits(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	deep := "version: \"0.2.0.dev0\"\nsemantic_model: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	for name, in := range map[string]string{"alias bomb": bomb, "deep nesting": deep} {
		start := time.Now()
		_, probs := Parse([]byte(in))
		if len(probs) == 0 || probs[0].Code != CodeDocumentTooComplex {
			t.Errorf("%s: want OSS1021 first, got %v", name, probs)
		}
		if s := ValidateSchema([]byte(in)); len(s) == 0 || s[0].Code != CodeDocumentTooComplex {
			t.Errorf("%s: schema: want OSS1021 first, got %v", name, s)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", name, d)
		}
	}
}

// TestParseSyntaxAndShape covers inputs that are not a single mapping.
func TestParseSyntaxAndShape(t *testing.T) {
	for _, tc := range []struct {
		in         string
		code       string
		line, col  int
		msgContain string
	}{
		{"version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: [m\n", CodeSyntax, 3, 11, "not valid YAML"},
		{"{\"version\": \"0.2.0.dev0\", \"semantic_model\": [}", CodeSyntax, 1, 0, "not valid YAML"},
		{"version: \"0.2.0.dev0\"\nsemantic_model: []\n---\nversion: \"0.1.1\"\n", CodeSyntax, 3, 1, "one Ossie document"},
		{"- a\n- b\n", CodeWrongType, 1, 1, "mapping"},
		{"just text", CodeWrongType, 1, 1, "mapping"},
		{"", CodeUnsupportedVersion, 1, 1, "no `version`"},
		{"# only a comment\n", CodeUnsupportedVersion, 1, 1, "no `version`"},
		{"version: \"0.2.0.dev0\"\nsemantic_model: [*nope]\n", CodeSyntax, 2, 18, "alias"},
	} {
		p, probs := Parse([]byte(tc.in))
		if p == nil {
			t.Fatalf("%q: nil Parsed", tc.in)
		}
		if len(probs) == 0 {
			t.Errorf("%q: no problem", tc.in)
			continue
		}
		got := probs[0]
		if got.Code != tc.code || got.Line != tc.line || (tc.col > 0 && got.Column != tc.col) || !strings.Contains(got.Message, tc.msgContain) {
			t.Errorf("%q: got %v, want %s at %d:%d containing %q", tc.in, got, tc.code, tc.line, tc.col, tc.msgContain)
		}
		if s := ValidateSchema([]byte(tc.in)); !s.HasErrors() {
			t.Errorf("%q: schema accepted it", tc.in)
		}
	}
}

// TestParsePositions: every key and list item is located, so later stages
// can point at any path.
func TestParsePositions(t *testing.T) {
	p := mustParse(t, mustRead(t, "testdata/parse/good/rich.yaml"))
	for path, want := range map[string]Position{
		"version":                       {2, 1},
		"semantic_model[0]":             {4, 5},
		"semantic_model[0].datasets[2]": {92, 9},
		"semantic_model[0].datasets[0].fields[1].expression.dialects[0].dialect":   {32, 38},
		"semantic_model[0].datasets[2].source.object.dialects[0].expression":       {98, 17},
		"semantic_model[0].ai_context.weights":                                     {12, 7},
		"semantic_model[0].datasets[0].unique_keys[1][0]":                          {19, 14},
		"semantic_model[0].metrics[0].expression.dialects[5].dialect":              {137, 15},
		"semantic_model[0].datasets[0].fields[4].custom_extensions[0].vendor_name": {59, 17},
	} {
		if got := p.Locate(path); got != want {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
	// Locate falls back to the closest known ancestor.
	if got := p.Locate("semantic_model[0].datasets[2].nothing.here"); got != (Position{92, 9}) {
		t.Errorf("Locate fallback: %v", got)
	}
}

// TestParsePrefixesNeverPanicAndAgree cuts a rich document at every line
// end and at every 97th byte: Parse must not panic, and Parse and
// ValidateSchema must agree on whether each prefix is acceptable.
// (FuzzParse explores further.)
func TestParsePrefixesNeverPanicAndAgree(t *testing.T) {
	data := mustRead(t, "testdata/parse/good/rich.yaml")
	for i := 0; i <= len(data); i++ {
		if i%97 != 0 && (i == 0 || data[i-1] != '\n') {
			continue
		}
		in := data[:i]
		_, probs := Parse(in)
		s := ValidateSchema(in)
		if probs.HasErrors() != s.HasErrors() {
			t.Fatalf("prefix %d: Parse errors %v, schema errors %v\nParse: %v\nSchema: %v", i, probs.HasErrors(), s.HasErrors(), probs, s)
		}
	}
}

// 0.1.1 documents may carry that schema's top-level `dialects` and
// `vendors`; 0.2.0.dev0 dropped them. Unknown dialect names are warnings.
func TestTopLevelDialectsAndVendors(t *testing.T) {
	body := `
dialects: [ANSI_SQL, SNOWFLAKE, LOOKML]
vendors: [COMMON, DBT]
semantic_model:
  - name: m
    datasets:
      - name: t
        source: t
        fields:
          - {name: a, expression: {dialects: [{dialect: ANSI_SQL, expression: a}, {dialect: QLIK, expression: "[a]"}]}}
`
	p, probs := Parse([]byte(`version: "0.1.1"` + body))
	if probs.HasErrors() || len(probs) != 2 {
		t.Fatalf("0.1.1: want two warnings, got %v", probs)
	}
	for i, path := range []string{"dialects[2]", "semantic_model[0].datasets[0].fields[0].expression.dialects[1].dialect"} {
		if probs[i].Code != CodeUnknownDialect || probs[i].Path != path || probs[i].Severity != SeverityWarning {
			t.Errorf("problem %d: %v, want warning OSS1009 at %s", i, probs[i], path)
		}
	}
	if len(p.Doc.Dialects) != 3 || len(p.Doc.Vendors) != 2 {
		t.Errorf("lists not read: %+v %+v", p.Doc.Dialects, p.Doc.Vendors)
	}
	if arts, probs := Compile(p, CompileOptions{}); len(arts) != 1 || probs.HasErrors() {
		t.Errorf("0.1.1 document does not compile: %v", probs)
	}
	if probs := ValidateSchema([]byte(`version: "0.1.1"` + body)); probs.HasErrors() {
		t.Errorf("schema refuses the 0.1.1 document: %v", probs)
	}
	_, probs = Parse([]byte(`version: "0.2.0.dev0"` + body))
	var unknown []string
	for _, pr := range probs {
		if pr.Code == CodeUnknownKey {
			unknown = append(unknown, pr.Path)
		}
	}
	if !slices.Equal(unknown, []string{"dialects", "vendors"}) {
		t.Errorf("0.2.0.dev0: want OSS1002 at dialects and vendors, got %v", probs)
	}
	if probs := ValidateSchema([]byte(`version: "0.2.0.dev0"` + body)); !probs.HasErrors() {
		t.Errorf("schema accepts top-level dialects at 0.2.0.dev0")
	}
}
