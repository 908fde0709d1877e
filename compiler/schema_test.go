package compiler

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

// want is one expected problem: code, path ("-" for the root) and,
// optionally, line:column.
type want struct {
	code, path string
	line, col  int
}

func (w want) String() string { return fmt.Sprintf("%s %s %d:%d", w.code, w.path, w.line, w.col) }

// readWants reads the `# want: CODE PATH [LINE:COL]` lines of a broken
// document.
func readWants(t *testing.T, data []byte) []want {
	t.Helper()
	var out []want
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "# want: ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		w := want{code: f[0], line: -1}
		if len(f) > 1 {
			w.path = f[1]
			if w.path == "-" {
				w.path = ""
			}
		}
		if len(f) > 2 {
			if _, err := fmt.Sscanf(f[2], "%d:%d", &w.line, &w.col); err != nil {
				t.Fatalf("bad want line %q", line)
			}
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		t.Fatal("broken document has no `# want:` line")
	}
	return out
}

// hasWant reports whether probs contain w (path and position only when w
// gives them).
func hasWant(probs Problems, w want) bool {
	for _, p := range probs {
		if p.Code != w.code || p.Severity != SeverityError {
			continue
		}
		if w.code == CodeSyntax && w.path == "" {
			return p.Line > 0
		}
		if p.Path != w.path {
			continue
		}
		if w.line >= 0 && (p.Line != w.line || p.Column != w.col) {
			continue
		}
		return true
	}
	return false
}

// TestBrokenDocumentsRejectedByBoth: every document in testdata/parse/bad is
// refused by Parse and by ValidateSchema with the same code at the same path
// and line:column, so the Go rules and the published schema agree.
func TestBrokenDocumentsRejectedByBoth(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/bad/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("want at least 15 broken documents, have %d", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			wants := readWants(t, data)
			_, parseProbs := Parse(data)
			schemaProbs := ValidateSchema(data)
			if !parseProbs.HasErrors() {
				t.Errorf("Parse accepted it")
			}
			if !schemaProbs.HasErrors() {
				t.Errorf("ValidateSchema accepted it")
			}
			for _, w := range wants {
				if !hasWant(parseProbs, w) {
					t.Errorf("Parse: missing %v; got:\n%v", w, parseProbs)
				}
				if !hasWant(schemaProbs, w) {
					t.Errorf("ValidateSchema: missing %v; got:\n%v", w, schemaProbs)
				}
			}
		})
	}
}

// TestGoodDocumentsAcceptedByBoth: the shared case models and our own good
// documents pass both Parse and ValidateSchema without a single problem.
func TestGoodDocumentsAcceptedByBoth(t *testing.T) {
	for name, data := range goodDocuments(t) {
		t.Run(name, func(t *testing.T) {
			parsed, probs := Parse(data)
			if len(probs) > 0 {
				t.Errorf("Parse: %v", probs)
			}
			if parsed.Doc == nil {
				t.Fatalf("Parse returned no document")
			}
			if len(parsed.Doc.SemanticModel) == 0 || len(parsed.Doc.SemanticModel[0].Datasets) == 0 {
				t.Errorf("document read empty: %+v", parsed.Doc)
			}
			if probs := ValidateSchema(data); len(probs) > 0 {
				t.Errorf("ValidateSchema: %v", probs)
			}
		})
	}
}

// goodDocuments returns every valid document the tests use: the files in
// testdata/parse/good and each shared case model wrapped with a version.
func goodDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, err := filepath.Glob("testdata/parse/good/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = data
	}
	for name, model := range sharedCaseModels(t) {
		out[name] = []byte("version: \"0.2.0.dev0\"\n" + model)
	}
	return out
}

// sharedCaseModels returns the `semantic_model:` block of every shared
// semantic case, from the in-repo copies under test/cases (the originals
// live in ../shared/cases, outside the repository).
func sharedCaseModels(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "test", "cases", "BC-*", "model.yaml"))
	if len(files) == 0 {
		t.Fatal("no shared cases found in ../test/cases")
	}
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		start := strings.Index(text, "\nsemantic_model:")
		if start < 0 {
			t.Fatalf("%s: no semantic_model block", f)
		}
		out[filepath.Base(filepath.Dir(f))] = text[start+1:]
	}
	return out
}

// schemaDefs returns the schema's $defs and root as decoded JSON.
func schemaDefs(t *testing.T) (map[string]any, map[string]any) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(SchemaJSON, &root); err != nil {
		t.Fatal(err)
	}
	return root, root["$defs"].(map[string]any)
}

func stringsOf(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func TestSchemaCompiles(t *testing.T) {
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
	if decodedSchema() == nil {
		t.Fatal("schema does not decode")
	}
}

// TestSchemaDidYouMean: the schema's unknown-key problems suggest the close
// key too, like Parse's.
func TestSchemaDidYouMean(t *testing.T) {
	data := mustRead(t, "testdata/parse/bad/unknown_key_dataset.yaml")
	for name, probs := range map[string]Problems{"schema": ValidateSchema(data), "parse": func() Problems { _, p := Parse(data); return p }()} {
		if len(probs) != 1 || !strings.Contains(probs[0].Message, "did you mean `primary_key`?") {
			t.Errorf("%s: %v", name, probs)
		}
	}
}

// TestSchemaEnumsMatchGo: the schema's versions, dialects, datatypes and
// source kinds are exactly the Go lists.
func TestSchemaEnumsMatchGo(t *testing.T) {
	root, defs := schemaDefs(t)
	version := root["properties"].(map[string]any)["version"].(map[string]any)
	if got := stringsOf(version["enum"]); !slices.Equal(got, ossie.SupportedVersions) {
		t.Errorf("schema versions %v, Go %v", got, ossie.SupportedVersions)
	}
	var dialects, datatypes []string
	for _, d := range ossie.Dialects {
		dialects = append(dialects, string(d))
	}
	for _, d := range ossie.Datatypes {
		datatypes = append(datatypes, string(d))
	}
	if got := stringsOf(defs["Dialect"].(map[string]any)["examples"]); !slices.Equal(got, dialects) {
		t.Errorf("schema dialects %v, Go %v", got, dialects)
	}
	if got := stringsOf(defs["Datatype"].(map[string]any)["enum"]); !slices.Equal(got, datatypes) {
		t.Errorf("schema datatypes %v, Go %v", got, datatypes)
	}
	var kinds []string
	for _, def := range []string{"TableSource", "QuerySource"} {
		props := defs[def].(map[string]any)["properties"].(map[string]any)
		kinds = append(kinds, fmt.Sprint(props["kind"].(map[string]any)["const"]))
	}
	for i, k := range sourceKinds {
		if kinds[i] != string(k) {
			t.Errorf("schema source kinds %v, Go %v", kinds, sourceKinds)
		}
	}
}

// TestSchemaKeysMatchParser: each schema object allows and requires exactly
// the keys Parse allows and requires.
func TestSchemaKeysMatchParser(t *testing.T) {
	root, defs := schemaDefs(t)
	w := &walker{}
	objects := map[string][]key{
		"":                  documentKeys(w, &ossie.Document{}),
		"SemanticModel":     modelKeys(w, &ossie.SemanticModel{}),
		"Dataset":           datasetKeys(w, &ossie.Dataset{}),
		"Field":             fieldKeys(w, &ossie.Field{}),
		"Dimension":         dimensionKeys(w, &ossie.Dimension{}),
		"Relationship":      relationshipKeys(w, &ossie.Relationship{}),
		"Metric":            metricKeys(w, &ossie.Metric{}),
		"Expression":        expressionKeys(w, &ossie.Expression{}),
		"DialectExpression": dialectExpressionKeys(w, &ossie.DialectExpression{}),
		"CustomExtension":   customExtensionKeys(w, &ossie.CustomExtension{}),
		"TableSource":       sourceObjectKeys(nil),
		"QuerySource":       sourceObjectKeys(nil),
	}
	for def, keys := range objects {
		obj := root
		if def != "" {
			obj = defs[def].(map[string]any)
		}
		var schemaKeys, schemaRequired []string
		for k := range obj["properties"].(map[string]any) {
			schemaKeys = append(schemaKeys, k)
		}
		if r, ok := obj["required"]; ok {
			schemaRequired = stringsOf(r)
		}
		goKeys, goRequired := keyNames(keys)
		sort.Strings(schemaKeys)
		sort.Strings(schemaRequired)
		if !slices.Equal(schemaKeys, goKeys) {
			t.Errorf("%s: schema keys %v, parser keys %v", def, schemaKeys, goKeys)
		}
		if !slices.Equal(schemaRequired, goRequired) {
			t.Errorf("%s: schema requires %v, parser requires %v", def, schemaRequired, goRequired)
		}
		if obj["additionalProperties"] != false {
			t.Errorf("%s: schema object is not closed", def)
		}
	}
	ai := defs["AIContext"].(map[string]any)["oneOf"].([]any)[1].(map[string]any)
	var aiKeys []string
	for k := range ai["properties"].(map[string]any) {
		aiKeys = append(aiKeys, k)
	}
	sort.Strings(aiKeys)
	goAI := slices.Clone(aiContextKeyNames)
	sort.Strings(goAI)
	if !slices.Equal(aiKeys, goAI) || ai["additionalProperties"] != true {
		t.Errorf("ai_context: schema keys %v (open: %v), parser keys %v", aiKeys, ai["additionalProperties"], goAI)
	}
}
