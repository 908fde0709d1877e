package ossiectl

import (
	"encoding/json"
	"reflect"
	"testing"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// TestBlockYAMLReadsBack: a JSON document written as block YAML reads back
// as the same JSON value under YAML 1.1 (sigs.k8s.io/yaml, as kubectl reads
// a manifest) and YAML 1.2 (go-yaml v3, as the compiler does), for texts
// that YAML would read as something else when plain.
func TestBlockYAMLReadsBack(t *testing.T) {
	doc := `{"texts": ["n", "Yes", "on", "OFF", "null", "~", "", "1:20", "1e3", "0x1F", "12", "a: b", "# x", "- x",
	  "x #y", "line\nbreak", "tail ", " lead", "{{ caller.region }}", "SUM(orders.amount) / 2", "état", "\"q\"", "it's"],
	 "numbers": [1, -2.5, 1e3, 0], "flags": [true, false, null],
	 "empty": {"map": {}, "list": []}, "nested": [[1, [2]], [{"a": {"b": []}}]], "n": {"y": "off"}}`
	n, err := readYAMLNode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := blockYAML(n)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(out)
	if err != nil {
		t.Fatalf("YAML 1.1: %v\n%s", err, out)
	}
	var got any
	if err := json.Unmarshal(js, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("YAML 1.1 reads\n%s\nfrom\n%s", js, out)
	}
	var node yaml3.Node
	if err := yaml3.Unmarshal(out, &node); err != nil {
		t.Fatalf("YAML 1.2: %v\n%s", err, out)
	}
	var got3 any
	if err := node.Decode(&got3); err != nil {
		t.Fatal(err)
	}
	js3, _ := json.Marshal(got3)
	var back any
	_ = json.Unmarshal(js3, &back)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("YAML 1.2 reads\n%s\nfrom\n%s", js3, out)
	}
}

// FuzzBlockYAML: any JSON value written as block YAML reads back as the
// same value under YAML 1.1 (sigs.k8s.io/yaml).
func FuzzBlockYAML(f *testing.F) {
	for _, s := range []string{`{"a": ["n", "1:20", "a: b", {"": []}], "b": {"c": null, "d": 1.5}}`, `[[], {}, "x #y", "\t"]`, `"on"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var want any
		if json.Unmarshal([]byte(doc), &want) != nil || len(doc) > 4096 {
			return
		}
		n, err := readYAMLNode([]byte(doc))
		if err != nil {
			return // JSON that go-yaml v3 does not read (the caller reports it)
		}
		out, err := blockYAML(n)
		if err != nil {
			return
		}
		js, err := yaml.YAMLToJSON(out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var got any
		if err := json.Unmarshal(js, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s reads back as %s from\n%s", doc, js, out)
		}
	})
}
