package compiler

import (
	"reflect"
	"strings"
	"testing"
)

// ParseNode reads a document inside a larger file as Parse reads it on
// its own, with the file's lines: the same Doc, and problems and
// positions one line down here (the document sits under `spec:`, indented).
func TestParseNodeInsideAFile(t *testing.T) {
	doc := "version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets:\n      - name: d\n        source: t\n        fields:\n          - {name: a, expression: {dialects: [{dialect: ANSI_SQL, expression: a}]}}\n    bogus: 1\n"
	file := "spec:\n  " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
	want, wantProbs := Parse([]byte(doc))
	root, probs := ReadNode([]byte(file))
	if len(probs) != 0 {
		t.Fatalf("reading: %v", probs)
	}
	spec, keyPos, _ := root.Get("spec")
	if keyPos != (Position{Line: 1, Column: 1}) || !spec.IsMapping() {
		t.Fatalf("spec at %v, mapping %v", keyPos, spec.IsMapping())
	}
	got, gotProbs := ParseNode(spec)
	if !reflect.DeepEqual(got.Doc, want.Doc) {
		t.Errorf("Doc differs:\n%+v\n%+v", got.Doc, want.Doc)
	}
	if len(gotProbs) != 1 || len(wantProbs) != 1 || gotProbs[0].Path != wantProbs[0].Path || gotProbs[0].Line != wantProbs[0].Line+1 || gotProbs[0].Column != wantProbs[0].Column+2 {
		t.Errorf("problems %v, want %v one line down and two columns right", gotProbs, wantProbs)
	}
	if p := got.Locate("semantic_model[0].datasets[0].source"); p != (Position{Line: 7, Column: 11}) {
		t.Errorf("source at %v, want 7:11", p)
	}
	// An edited copy leaves the tree read unchanged.
	version, _, _ := spec.Get("version")
	edited := spec.With("version", version.WithText("0.1.1")).Without("semantic_model")
	if v, _, _ := edited.Get("version"); textOf(v) != "0.1.1" || len(edited.Keys()) != 1 {
		t.Errorf("edited: %v", edited.Keys())
	}
	if v, _, _ := spec.Get("version"); textOf(v) != "0.2.0.dev0" || len(spec.Keys()) != 2 {
		t.Errorf("the tree read changed: %v", spec.Keys())
	}
}

func textOf(n Node) string {
	s, _ := n.Text()
	return s
}
