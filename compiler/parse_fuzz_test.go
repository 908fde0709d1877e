package compiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse: Parse never panics, always returns a Parsed, agrees with
// ValidateSchema on whether a document is acceptable, and every accepted
// document survives the JSON round trip the compiler hashes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*/*")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("version: \"0.2.0.dev0\"\nsemantic_model: [{name: m, datasets: [{name: t, source: t}]}]\n"))
	// Deep nesting in each shape (issue 13): refused by the linear
	// pre-scan, never walked.
	for _, shape := range []string{"flow", "json", "compact", "indent"} {
		f.Add(nested(shape, 300))
		f.Add(nested(shape, 255))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed, probs := Parse(data)
		if parsed == nil {
			t.Fatal("nil Parsed")
		}
		schemaProbs := ValidateSchema(data)
		if probs.HasErrors() != schemaProbs.HasErrors() {
			t.Fatalf("Parse and ValidateSchema disagree\nParse: %v\nSchema: %v", probs, schemaProbs)
		}
		for _, p := range probs {
			if p.Code == "" || p.Message == "" {
				t.Fatalf("problem without code or message: %+v", p)
			}
		}
		if probs.HasErrors() {
			return
		}
		if parsed.Doc == nil {
			t.Fatal("accepted document but no Doc")
		}
		js, err := json.Marshal(parsed.Doc)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, probs2 := Parse(js)
		if probs2.HasErrors() {
			t.Fatalf("marshalled document rejected: %v\n%s", probs2, js)
		}
		if !reflect.DeepEqual(parsed.Doc, again.Doc) {
			t.Fatalf("round trip changed the document:\n%s", js)
		}
	})
}
