package compiler

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

func gzipped(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeBundleRefusesDeepJSON (issue 25): a ConfigMap artifact whose
// JSON nests deeper than 10,000 levels is refused with OSS1021 and its
// line before it is decoded; the other adversarial bodies are refused as
// bundles that are not one (no format), in linear time.
func TestDecodeBundleRefusesDeepJSON(t *testing.T) {
	for _, s := range prescantest.JSON(1 << 20) {
		_, err := DecodeBundle(gzipped(t, s.Data), 0)
		if err == nil {
			t.Fatalf("%s: decoded", s.Name)
		}
		deep := s.Name == "json-arrays" || s.Name == "json-unclosed" || s.Name == "json-objects"
		if got := strings.HasPrefix(err.Error(), "artifact bundle: 1:") && strings.Contains(err.Error(), CodeDocumentTooComplex); got != deep {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

// BenchmarkDecodeBundleAdversarial: DecodeBundle over each gzipped 1 MB
// JSON shape.
func BenchmarkDecodeBundleAdversarial(b *testing.B) {
	for _, s := range prescantest.JSON(1 << 20) {
		data := gzipped(b, s.Data)
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DecodeBundle(data, 0)
			}
		})
	}
}

// FuzzDecodeBundle: DecodeBundle never panics on any bytes, plain or
// gzipped, starting from the adversarial shapes.
func FuzzDecodeBundle(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
		f.Add(gzipped(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeBundle(data, 1<<20)
	})
}
