package compiler

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

// nested are documents of issue 13 finding 5: n levels of nesting in each
// shape the parser accepts, YAML flow, JSON (what the operator feeds) and
// YAML block (compact sequences and indentation).
func nested(shape string, n int) []byte {
	switch shape {
	case "flow":
		return []byte("version: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
	case "json":
		return []byte(`{"version": "0.2.0.dev0", "semantic_model": ` + strings.Repeat(`{"a": `, n) + "1" + strings.Repeat("}", n) + "}")
	case "compact":
		return []byte("version: 1\nsemantic_model:\n" + strings.Repeat("- ", n) + "x\n")
	case "indent":
		var b strings.Builder
		b.WriteString("version: 1\n")
		for i := range n {
			fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
		}
		return []byte(b.String())
	}
	panic(shape)
}

// readers are the entry points that read a model or governance document.
var readers = map[string]func([]byte) Problems{
	"Parse":           func(d []byte) Problems { _, p := Parse(d); return p },
	"ValidateSchema":  ValidateSchema,
	"ParseGovernance": func(d []byte) Problems { _, p := ParseGovernance(d); return p },
}

// TestAdversarialDocumentsRefusedCheaply (issue 25): every adversarial
// shape of 1 MB is refused by every reader with OSS1021 at the line where
// it crosses a limit, allocating almost nothing (before: 40 KB of nested
// brackets through ossiectl 0.6 s and 713 MB, 1 MB of keys of one mapping
// 39 s and 32 GB); the shapes within the limits are read within the
// budget (BenchmarkReadAdversarial).
func TestAdversarialDocumentsRefusedCheaply(t *testing.T) {
	for _, s := range prescantest.YAML(1 << 20) {
		if s.Kind == "" {
			continue
		}
		for name, read := range readers {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			probs := read(s.Data)
			runtime.ReadMemStats(&after)
			if len(probs) != 1 || probs[0].Code != CodeDocumentTooComplex || probs[0].Line != s.Line(DocumentLimits) {
				t.Errorf("%s %s (%d bytes): %v, want one %s at line %d", name, s.Name, len(s.Data), probs, CodeDocumentTooComplex, s.Line(DocumentLimits))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("%s %s (%d bytes) allocated %d bytes before refusing", name, s.Name, len(s.Data), alloc)
			}
		}
	}
	big := append([]byte("version: 1\nx: \""), make([]byte, MaxDocumentBytes)...)
	if _, probs := Parse(big); len(probs) != 1 || probs[0].Code != CodeDocumentTooLarge {
		t.Errorf("over-large document: %v", probs)
	}
}

// TestAtLimitsAccepted: documents just within each limit pass the scan
// (BenchmarkReadAdversarial measures what they cost the reader).
func TestAtLimitsAccepted(t *testing.T) {
	for _, s := range prescantest.AtLimits(DocumentLimits) {
		if p := CheckDocument(s.Data); p != nil {
			t.Errorf("%s (%d bytes): %v", s.Name, len(s.Data), p)
		}
	}
}

// TestAliasExpansionBounded: a billion-laughs document passes the scan
// (it is 500 bytes) and is refused by the reader once its aliases expand
// past the value limit, with OSS1021.
func TestAliasExpansionBounded(t *testing.T) {
	for name, read := range readers {
		probs := read(prescantest.Laughs().Data)
		if len(probs) != 1 || probs[0].Code != CodeDocumentTooComplex || !strings.Contains(probs[0].Message, "through aliases") {
			t.Errorf("%s: %v", name, probs)
		}
	}
}

// TestDeepDocumentsRefused: over-deep documents of each nesting style are
// refused with OSS1021 naming the limit, before the parser runs.
func TestDeepDocumentsRefused(t *testing.T) {
	for _, shape := range []string{"flow", "json", "compact", "indent"} {
		data := nested(shape, 300)
		for name, read := range readers {
			probs := read(data)
			if len(probs) != 1 || probs[0].Code != CodeDocumentTooComplex || !strings.Contains(probs[0].Message, "deeper than 256 levels") {
				t.Errorf("%s %s: %v", name, shape, probs)
			}
		}
	}
}

// TestModerateNestingAccepted: nesting below the limit in each shape still
// reaches the parser (no false refusal): 200 levels of flow, JSON and
// compact sequences, and brackets or quotes inside scalars and comments.
func TestModerateNestingAccepted(t *testing.T) {
	for _, shape := range []string{"flow", "json", "compact", "indent"} {
		_, probs := Parse(nested(shape, 200))
		for _, p := range probs {
			if p.Code == CodeDocumentTooComplex {
				t.Errorf("%s 200 levels refused: %v", shape, p)
			}
		}
	}
	doc := "version: \"0.2.0.dev0\"\n# [[[[ {{{{ " + strings.Repeat("[", 300) + "\nsemantic_model:\n  - name: m # [[[" + strings.Repeat("{", 300) + "\n" +
		"    description: see [1" + strings.Repeat("[", 300) + " and '" + strings.Repeat("{", 300) + "\n" +
		"    datasets: [{name: t, source: \"" + strings.Repeat("[", 300) + "\"}]\n"
	if p := CheckDocument([]byte(doc)); p != nil {
		t.Errorf("brackets in comments and scalars counted: %v", p)
	}
}

// BenchmarkReadAdversarial: Parse over each 1 MB adversarial shape, the
// refused ones and those within the limits (long scalars, a long block
// scalar, a billion laughs, the documents at the limits, and those as
// JSON, the operator's form). Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkReadAdversarial(b *testing.B) {
	shapes := append(prescantest.YAML(1<<20), prescantest.AtLimits(DocumentLimits)...)
	for _, s := range prescantest.AtLimits(DocumentLimits) {
		root, _ := readYAML(s.Data)
		js, err := json.Marshal(root.jsonValue())
		if err != nil {
			b.Fatal(err)
		}
		shapes = append(shapes, prescantest.Shape{Name: "json/" + s.Name, Data: js})
	}
	for _, s := range shapes {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(s.Data)
			}
		})
	}
}

// BenchmarkRefuseNested: the cost of refusing nested brackets grows
// linearly with the document (compare ns/op and B/op across sizes).
func BenchmarkRefuseNested(b *testing.B) {
	for _, kb := range []int{10, 40, 160, 400, 1000} {
		data := nested("flow", kb*512)
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Parse(data)
			}
		})
	}
}

// FuzzReadBounded: on any input, starting from every adversarial shape,
// the readers never panic (and the fuzzer's own time limit per input
// catches one that runs away).
func FuzzReadBounded(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range readers {
			read(data)
		}
	})
}

// TestExtensionDataBounded: the JSON inside an Ossie custom extension's
// data scalar is scanned under the body limits: 100 levels is OSS1021 at
// the extension's path.
func TestExtensionDataBounded(t *testing.T) {
	doc := `{"version": "0.2.0.dev0", "semantic_model": [{"name": "m", "datasets": [{"name": "t", "source": "t", "fields": [{"name": "a", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "a"}]}}]}],
"custom_extensions": [{"vendor_name": "OSSIE", "data": "{\"timezone\": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}"}]}]}`
	parsed, probs := Parse([]byte(doc))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	probs = Validate(parsed)
	if len(probs) != 1 || probs[0].Code != CodeDocumentTooComplex || probs[0].Path != "semantic_model[0].custom_extensions[0].data" {
		t.Errorf("%v", probs)
	}
}
