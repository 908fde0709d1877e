package auth

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

// TestAdversarialTokenFilesRefused: a token file in any adversarial YAML
// shape of 1 MB is refused naming OSS1021 and the line where it crosses a
// limit; a billion-laughs file is refused by the decoder's own alias limit.
func TestAdversarialTokenFilesRefused(t *testing.T) {
	for _, s := range prescantest.YAML(1 << 20) {
		_, err := parseTokens(s.Data)
		if err == nil {
			t.Errorf("%s: accepted", s.Name)
			continue
		}
		if s.Kind == "" {
			continue // not a token file: refused by the strict decode
		}
		want := "token file: " + itoa(s.Line(compiler.DocumentLimits)) + ":"
		if !strings.Contains(err.Error(), compiler.CodeDocumentTooComplex) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v; want %s ... %s", s.Name, err, want, compiler.CodeDocumentTooComplex)
		}
	}
	if _, err := parseTokens(prescantest.Laughs().Data); err == nil {
		t.Error("billion laughs accepted")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// BenchmarkAdversarialTokenFiles: parseTokens over each 1 MB YAML shape
// and each document at the limits. Budget (issue 25): under 1 s and 100 MB
// each.
func BenchmarkAdversarialTokenFiles(b *testing.B) {
	for _, s := range append(prescantest.YAML(1<<20), prescantest.AtLimits(compiler.DocumentLimits)...) {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				parseTokens(s.Data)
			}
		})
	}
}

// FuzzTokenFile: parseTokens never panics, starting from the adversarial
// shapes and a valid file.
func FuzzTokenFile(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Add([]byte("tokens:\n  - name: a\n    token: 0123456789abcdef0123456789abcdef\n    roles: [analyst]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseTokens(data)
	})
}
