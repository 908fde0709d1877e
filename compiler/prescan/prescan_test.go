package prescan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/prescan"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

// limits are those of a model document (compiler.DocumentLimits).
var limits = prescan.Limits{Bytes: 3 << 19, Depth: 256, Nodes: 40_000, Keys: 256}

// TestShapesRefusedAtTheirLine: every adversarial shape of 1 MB is refused
// for the limit it is built to cross, at the line where it crosses it, or
// accepted when it is within the limits.
func TestShapesRefusedAtTheirLine(t *testing.T) {
	check := func(t *testing.T, s prescantest.Shape, e *prescan.Error) {
		t.Helper()
		if s.Kind == "" {
			if e != nil {
				t.Errorf("%s: refused %v at %d:%d, want accepted", s.Name, e, e.Line, e.Column)
			}
			return
		}
		if e == nil {
			t.Errorf("%s (%d bytes): accepted, want refused for %s", s.Name, len(s.Data), s.Kind)
			return
		}
		if e.Kind != s.Kind || e.Line != s.Line(limits) {
			t.Errorf("%s: refused for %s at line %d (%v), want %s at line %d", s.Name, e.Kind, e.Line, e, s.Kind, s.Line(limits))
		}
	}
	for _, s := range prescantest.YAML(1 << 20) {
		check(t, s, prescan.YAML(s.Data, limits))
	}
	body := prescan.Limits{Bytes: 2 << 20, Depth: 64, Nodes: 100_000}
	for _, s := range prescantest.JSON(1 << 20) {
		e := prescan.JSON(s.Data, body)
		if s.Kind != "" && (e == nil || e.Kind != s.Kind || e.Line != 1) {
			t.Errorf("JSON %s: %v, want %s at line 1", s.Name, e, s.Kind)
		}
		if s.Kind == "" && e != nil {
			t.Errorf("JSON %s: refused %v", s.Name, e)
		}
		// JSON is YAML: the YAML scan refuses it too.
		if s.Kind == prescan.KindDepth {
			if e := prescan.YAML(s.Data, body); e == nil || e.Kind != prescan.KindDepth {
				t.Errorf("YAML scan of JSON %s: %v", s.Name, e)
			}
		}
	}
	if e := prescan.YAML(make([]byte, limits.Bytes+1), limits); e == nil || e.Kind != prescan.KindBytes || e.Line != 1 {
		t.Errorf("over-large: %v", e)
	}
}

// TestExactCounts: at the edge of each limit (depth 4, 20 values, 3 keys)
// one more level, value or key is refused, in flow, compact and block
// style; brackets in quotes, comments and block scalars are not counted.
func TestExactCounts(t *testing.T) {
	l := prescan.Limits{Depth: 4, Nodes: 20, Keys: 3}
	for doc, want := range map[string]prescan.Kind{
		"a: [[[1]]]\n":                             "", // mapping + 3 lists
		"a: [[[[1]]]]\n":                           prescan.KindDepth,
		"- - - x\n":                                "",
		"- - - - - x\n":                            prescan.KindDepth,
		"a:\n b:\n  c:\n   d: 1\n":                 "",
		"a:\n b:\n  c:\n   d:\n    e: 1\n":         prescan.KindDepth,
		"a: 1\nb: 2\nc: 3\n":                       "",
		"a: 1\nb: 2\nc: 3\nd: 4\n":                 prescan.KindKeys,
		"- a: 1\n  b: 2\n- a: 1\n  b: 2\n- c: 1\n": "", // keys of different items
		"[1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]\n":    "", // list + 19 scalars
		"[1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]\n": prescan.KindNodes,
		"a: |\n  - [[[[[\n  b: c\n  d: e\n  f: g\nz: 1\n":                "",
		"a: \"[[[[[ # \\\" [[[[[\"\nb: '[[[[['' [[[[['\n":                "",
		"a: b # [[[[[\n# [[[[[\n":                                        "",
		"a: it's [[[[[\n":                                                "",
		"[it's, [[[[1]]]]]\n":                                            prescan.KindDepth,
	} {
		expectKind(t, "YAML", doc, prescan.YAML([]byte(doc), l), want)
	}
	for doc, want := range map[string]prescan.Kind{
		`{"a": [[[1]]]}`:                            "",
		`{"a": [[[[1]]]]}`:                          prescan.KindDepth,
		`{"a": "[[[[[[\"{{{"}`:                      "",
		`[1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,9]`:   "",
		`[1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,9,9]`: prescan.KindNodes,
	} {
		expectKind(t, "JSON", doc, prescan.JSON([]byte(doc), l), want)
	}
}

func expectKind(t *testing.T, scan, doc string, e *prescan.Error, want prescan.Kind) {
	t.Helper()
	got := prescan.Kind("")
	if e != nil {
		got = e.Kind
	}
	if got != want {
		t.Errorf("%s %q: got %q (%v), want %q", scan, doc, got, e, want)
	}
}

// TestRealDocumentsAccepted: every model, governance and query file of
// the repository passes the model document limits.
func TestRealDocumentsAccepted(t *testing.T) {
	var n int
	for _, pattern := range []string{"../../examples/*/*.yaml", "../../examples/*/*.json", "../testdata/*/*.yaml", "../../test/conformance/testdata/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if e := prescan.YAML(data, limits); e != nil {
				t.Errorf("%s:%d:%d: %v", f, e.Line, e.Column, e)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d files found", n)
	}
}

// BenchmarkScan: one scan of each 1 MB shape; refusals stop early, the
// accepted shapes cost a pass over the bytes (ns/op, no B/op).
func BenchmarkScan(b *testing.B) {
	for _, s := range append(prescantest.YAML(1<<20), prescantest.JSON(1<<20)...) {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s.Data)))
			for b.Loop() {
				prescan.YAML(s.Data, limits)
			}
		})
	}
}

// FuzzScan: neither scan panics, and a scan that accepts an input accepts
// every prefix of it that ends at a line break (counts only grow).
func FuzzScan(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	l := prescan.Limits{Bytes: 1 << 20, Depth: 16, Nodes: 200, Keys: 8}
	f.Fuzz(func(t *testing.T, data []byte) {
		prescan.JSON(data, l)
		if prescan.YAML(data, l) != nil {
			return
		}
		if i := strings.LastIndexByte(string(data[:len(data)/2]), '\n'); i > 0 {
			if e := prescan.YAML(data[:i+1], l); e != nil {
				t.Errorf("accepted %q but refused its prefix %q: %v", data, data[:i+1], e)
			}
		}
	})
}
