package ossiectl

import (
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

// editFirstDataset adds a description and the synonym "s" to the first
// dataset of doc, as enrich does, and returns the text.
func editFirstDataset(t *testing.T, doc string) (string, error) {
	t.Helper()
	in, root, probs := readEditable([]byte(doc))
	if in == nil || probs.HasErrors() {
		t.Fatalf("does not read: %v", probs)
	}
	ed := &enrichEdit{env: &env{stdout: discard{}}, text: newYAMLText([]byte(doc))}
	ds := ownedItems(owned(ownedItems(owned(root, "semantic_model"))[0], "datasets"))[0]
	if err := ed.setDescription(ds, "D"); err != nil {
		return "", err
	}
	if err := ed.addSynonyms(ds, []string{"s"}); err != nil {
		return "", err
	}
	out, err := ed.text.result()
	return string(out), err
}

// Every layout an author may write is edited in place: the new entries
// in the mapping's own style and indentation, everything else as written.
func TestYAMLTextEditsInPlace(t *testing.T) {
	const head = "version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets:\n"
	for _, tc := range []struct{ name, in, want string }{
		{"block, new entries after source",
			head + "      - name: d\n        source: t   # comment\n        fields: []\n",
			head + "      - name: d\n        source: t   # comment\n        description: \"D\"\n        ai_context:\n          synonyms: [\"s\"]\n        fields: []\n"},
		{"empty description, block synonyms",
			head + "      - name: d\n        source: t\n        description:\n        ai_context:\n          synonyms:\n            - a\n          instructions: x\n",
			head + "      - name: d\n        source: t\n        description: \"D\"\n        ai_context:\n          synonyms:\n            - a\n            - \"s\"\n          instructions: x\n"},
		{"block-scalar description, flow ai_context",
			head + "      - name: d\n        description: |\n          old\n\n          text\n        source: t\n        ai_context: {instructions: x}\n",
			head + "      - name: d\n        description: \"D\"\n        source: t\n        ai_context: {instructions: x, \"synonyms\": [\"s\"]}\n"},
		{"multi-line plain description, empty flow synonyms",
			head + "      - name: d\n        description: old\n          text # c\n        source: t\n        ai_context:\n          synonyms: []\n",
			head + "      - name: d\n        description: \"D\" # c\n        source: t\n        ai_context:\n          synonyms: [\"s\"]\n"},
		{"flow dataset, quoted keys, non-ASCII before",
			head + "      - {\"name\": \"dé\", source: 'it''s', ai_context: {synonyms: [a, b ]}}\n",
			head + "      - {\"name\": \"dé\", source: 'it''s', \"description\": \"D\", ai_context: {synonyms: [a, b, \"s\" ]}}\n"},
		{"pretty JSON",
			"{\n  \"version\": \"0.2.0.dev0\",\n  \"semantic_model\": [{\"name\": \"m\", \"datasets\": [\n    {\n      \"name\": \"d\",\n      \"source\": \"t\"\n    }\n  ]}]\n}\n",
			"{\n  \"version\": \"0.2.0.dev0\",\n  \"semantic_model\": [{\"name\": \"m\", \"datasets\": [\n    {\n      \"name\": \"d\",\n      \"source\": \"t\",\n      \"description\": \"D\",\n      \"ai_context\": {\"synonyms\": [\"s\"]}\n    }\n  ]}]\n}\n"},
		{"no final line break",
			head + "      - name: d\n        source: t",
			head + "      - name: d\n        source: t\n        description: \"D\"\n        ai_context:\n          synonyms: [\"s\"]"},
	} {
		got, err := editFirstDataset(t, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v\n%s\nwant\n%s", tc.name, err, got, tc.want)
			continue
		}
		if _, _, probs := readEditable([]byte(got)); probs.HasErrors() {
			t.Errorf("%s: result does not read: %v", tc.name, probs)
		}
	}
}

// A dataset written through an alias or merge key, or under an anchor,
// is not edited: the text is shared with other places.
func TestYAMLTextRefusesSharedValues(t *testing.T) {
	for _, doc := range []string{
		"x: &d {name: d, source: t}\nversion: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets: [*d]\n",
		"x: &d {name: d, source: t, description: old}\nversion: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets: [{<<: *d, source: u}]\n",
		"version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets: [&d {name: d, source: t}]\n",
	} {
		root, _ := compiler.ReadNode([]byte(doc))
		ds := ownedItems(owned(ownedItems(owned(root, "semantic_model"))[0], "datasets"))[0]
		ed := &enrichEdit{env: &env{stdout: discard{}}, text: newYAMLText([]byte(doc))}
		if err := ed.setDescription(ds, "D"); err == nil || !strings.Contains(err.Error(), "edit it by hand") {
			t.Errorf("%q: %v, want refused", doc, err)
		}
	}
}

// FuzzEnrichEdit: enrich's edits of any document that reads never panic,
// and what they produce passes checkEdited or is refused by it.
func FuzzEnrichEdit(f *testing.F) {
	f.Add([]byte("version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets:\n      - name: d\n        source: t\n        fields:\n          - name: a\n            expression: a\n"))
	f.Add([]byte(`{"version": "0.2.0.dev0", "semantic_model": [{"name": "m", "datasets": [{"name": "d", "source": "t", "ai_context": {"synonyms": []}}]}]}`))
	f.Add([]byte("version: \"0.2.0.dev0\"\nsemantic_model:\n- name: m\n  datasets:\n  - name: d\n    description: >\n      x\n    source: t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, root, probs := readEditable(data)
		if in == nil || probs.HasErrors() {
			return
		}
		parsed, probs := in.parseDoc()
		if probs.HasErrors() {
			return
		}
		ed := &enrichEdit{env: &env{stdout: discard{}}, text: newYAMLText(data)}
		models := ownedItems(owned(root, "semantic_model"))
		for i := range parsed.Doc.SemanticModel {
			datasets := ownedItems(owned(models[i], "datasets"))
			for j := range parsed.Doc.SemanticModel[i].Datasets {
				ds := &parsed.Doc.SemanticModel[i].Datasets[j]
				ed.entry(ds.Name, datasets[j], &ds.Description, &ds.AIContext, dhEntry{description: "D", synonyms: []string{"s"}})
			}
		}
		if out, err := ed.text.result(); err == nil {
			_ = checkEdited(out, parsed)
		}
	})
}
