package compiler

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
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

// TestDeepDocumentsRefusedCheaply: over-deep documents of 40 KB and more
// are refused with OSS1001 naming the limit before the parser runs, in
// every entry point (Parse, ValidateSchema, ParseGovernance), allocating
// almost nothing; before the pre-scan a 40 KB document of brackets cost
// 6.6 s and 0.9 GB.
func TestDeepDocumentsRefusedCheaply(t *testing.T) {
	for _, shape := range []string{"flow", "json", "compact", "indent"} {
		n := 20_000
		if shape == "indent" {
			n = 400 // 80 KB: indentation grows with depth
		}
		data := nested(shape, n)
		for name, parse := range map[string]func([]byte) Problems{
			"Parse":           func(d []byte) Problems { _, p := Parse(d); return p },
			"ValidateSchema":  ValidateSchema,
			"ParseGovernance": func(d []byte) Problems { _, p := ParseGovernance(d); return p },
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			probs := parse(data)
			runtime.ReadMemStats(&after)
			if len(probs) != 1 || probs[0].Code != CodeSyntax || !strings.Contains(probs[0].Message, "deeper than 256 levels") {
				t.Errorf("%s %s (%d bytes): %v", name, shape, len(data), probs)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("%s %s (%d bytes) allocated %d bytes before refusing", name, shape, len(data), alloc)
			}
		}
	}
	big := append([]byte("version: 1\nx: \""), make([]byte, MaxDocumentBytes)...)
	if _, probs := Parse(big); len(probs) != 1 || probs[0].Code != CodeDocumentTooLarge {
		t.Errorf("over-large document: %v", probs)
	}
}

// TestModerateNestingAccepted: nesting below the limit in each shape still
// reaches the parser (no false refusal): 200 levels of flow, JSON and
// compact sequences, and brackets or quotes inside scalars and comments.
func TestModerateNestingAccepted(t *testing.T) {
	for _, shape := range []string{"flow", "json", "compact", "indent"} {
		_, probs := Parse(nested(shape, 200))
		for _, p := range probs {
			if strings.Contains(p.Message, "deeper than") {
				t.Errorf("%s 200 levels refused: %v", shape, p)
			}
		}
	}
	doc := "version: \"0.2.0.dev0\"\n# [[[[ {{{{ " + strings.Repeat("[", 300) + "\nsemantic_model:\n  - name: m # [[[" + strings.Repeat("{", 300) + "\n" +
		"    description: see [1" + strings.Repeat("[", 300) + " and '" + strings.Repeat("{", 300) + "\n" +
		"    datasets: [{name: t, source: \"" + strings.Repeat("[", 300) + "\"}]\n"
	if p := checkLimits([]byte(doc)); p != nil {
		t.Errorf("brackets in comments and scalars counted: %v", p)
	}
}

// BenchmarkRefuseNested: the cost of refusing nested brackets grows
// linearly with the document (compare ns/op and B/op across sizes).
func BenchmarkRefuseNested(b *testing.B) {
	for _, kb := range []int{10, 40, 400, 4000} {
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

// BenchmarkCheckLimitsWide: the pre-scan over a document that passes it
// (brackets 2 deep, repeated) costs time linear in its size and no
// allocation.
func BenchmarkCheckLimitsWide(b *testing.B) {
	for _, kb := range []int{10, 100, 1000} {
		data := []byte("version: [" + strings.Repeat("[[1, 'a]'], {k: \"}\"}], ", kb*1024/24) + "]\n")
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if p := checkLimits(data); p != nil {
					b.Fatal(p)
				}
			}
		})
	}
}
