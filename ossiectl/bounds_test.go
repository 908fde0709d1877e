package ossiectl

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
	"sigs.k8s.io/yaml"
)

var limitLine = regexp.MustCompile(`:(\d+):\d+: error OSS1021: `)

// TestValidateRefusesAdversarialDocuments (issue 25): `ossiectl validate`
// refuses every adversarial shape of 1 MB with OSS1021 at the line where
// it crosses a limit, plain and as a SemanticModel manifest's spec, before
// any YAML parser reads it (before: 40 KB of nested brackets 0.6 s and
// 713 MB, 160 KB 24 s and 9.7 GB, in the manifest detection).
func TestValidateRefusesAdversarialDocuments(t *testing.T) {
	for _, s := range prescantest.YAML(1 << 20) {
		if s.Kind == "" {
			continue
		}
		code, out, errs := run(t, string(s.Data), "validate", "-")
		m := limitLine.FindStringSubmatch(out + errs)
		if code != 1 || m == nil || m[1] != strconv.Itoa(s.Line(compiler.DocumentLimits)) {
			t.Errorf("%s: exit %d, %.300s; want OSS1021 at line %d", s.Name, code, out+errs, s.Line(compiler.DocumentLimits))
		}
	}
}

// TestEditingCommandsRefuseAdversarialDocuments: migrate and manifest
// (--governance) read their files under the same limits.
func TestEditingCommandsRefuseAdversarialDocuments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "deep.yaml")
	if err := os.WriteFile(file, prescantest.YAML(1 << 20)[0].Data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"migrate", "--to", "0.2.0.dev0", file},
		{"manifest", "--name", "shop", "--governance", file, "testdata/shop.yaml"},
	} {
		code, out, errs := run(t, "", args...)
		if code == 0 || !strings.Contains(out+errs, "OSS1021") {
			t.Errorf("%v: exit %d, %.300s; want OSS1021", args, code, out+errs)
		}
	}
}

// BenchmarkValidateAdversarial: `ossiectl validate -` over each 1 MB
// shape and each document at the limits, plain and as a SemanticModel
// manifest's spec. Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkValidateAdversarial(b *testing.B) {
	for _, s := range append(prescantest.YAML(1<<20), prescantest.AtLimits(compiler.DocumentLimits)...) {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Do([]string{"validate", "-"}, strings.NewReader(string(s.Data)), discard{}, discard{})
			}
		})
	}
	for _, s := range prescantest.AtLimits(compiler.DocumentLimits) {
		manifest, ok := asManifest(s.Data)
		if !ok {
			continue
		}
		b.Run("manifest/"+s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Do([]string{"validate", "-"}, strings.NewReader(manifest), discard{}, discard{})
			}
		})
	}
}

// BenchmarkMigrateAdversarial: `ossiectl migrate`'s reading, editing of
// `version` (on the text) and check of the result over each document at
// the limits, plain and as a manifest. Budget (issue 25): under 1 s and
// 100 MB each.
func BenchmarkMigrateAdversarial(b *testing.B) {
	for _, s := range prescantest.AtLimits(compiler.DocumentLimits) {
		// At 0.1.1, so that migrate edits it and reads the result back.
		doc := bytes.Replace(s.Data, []byte("version: x"), []byte(`version: "0.1.1"`), 1)
		inputs := map[string][]byte{s.Name: doc}
		if m, ok := asManifest(doc); ok {
			inputs["manifest/"+s.Name] = []byte(m)
		}
		for name, data := range inputs {
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					migrateData("m.yaml", data, "0.2.0.dev0")
				}
			})
		}
	}
}

// asManifest wraps a document at the limits as the spec of a
// SemanticModel manifest, less the last lines the manifest's own values
// would put over them; false when no such manifest is within them (the
// nesting at the limit, one level deeper as a spec).
func asManifest(doc []byte) (string, bool) {
	lines := strings.Split(strings.TrimSuffix(string(doc), "\n"), "\n")
	for cut := 0; cut < min(10, len(lines)); cut++ {
		m := "apiVersion: ossie.dev/v1alpha1\nkind: SemanticModel\nmetadata: {name: m}\nspec:\n  " + strings.Join(lines[:len(lines)-cut], "\n  ") + "\n"
		if compiler.CheckDocument([]byte(m)) == nil {
			return m, true
		}
	}
	return "", false
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// FuzzReadOssieInput: the manifest detection and the documents it
// extracts never panic, starting from every adversarial shape.
func FuzzReadOssieInput(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if in, _ := readOssieInput(data); in != nil {
			in.parse()
		}
	})
}

// FuzzMigrateData: migrate's reading and editing never panic, starting
// from every adversarial shape and from sources it rewrites written
// through an anchor, an alias and a merge key (the reader expands them,
// the editing tree does not).
func FuzzMigrateData(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Add([]byte("version: \"0.2.0.dev0\"\nx: &s {kind: table, object: t}\nsemantic_model:\n  - name: m\n    datasets:\n      - name: d\n        source: *s\n"))
	f.Add([]byte("version: \"0.2.0.dev0\"\nds: &d {name: d, source: {kind: table, object: t}}\nsemantic_model:\n  - name: m\n    datasets: [{<<: *d}]\n"))
	f.Add([]byte("dialects: [ANSI_SQL]\nsemantic_model: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, to := range []string{"0.1.1", "0.2.0.dev0"} {
			if m := migrateData("f.yaml", data, to); m.changed && len(m.out) == 0 {
				t.Errorf("to %s: changed with no output", to)
			}
		}
	})
}

// BenchmarkManifestJSON: `ossiectl manifest`'s rewriting of a JSON
// document as block YAML, over each document at the limits written as
// JSON. Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkManifestJSON(b *testing.B) {
	for _, s := range prescantest.AtLimits(compiler.DocumentLimits) {
		doc, err := yaml.YAMLToJSON(s.Data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := buildManifest(doc, "m", "", "m.json", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
