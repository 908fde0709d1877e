package dbt

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/prescan/prescantest"
)

// TestReadRefusesAdversarialFiles (issue 25): a dbt YAML file of each
// adversarial 1 MB shape is refused with OSS1021 at the line where it
// crosses a limit, naming the file, before it is decoded.
func TestReadRefusesAdversarialFiles(t *testing.T) {
	for _, s := range prescantest.YAML(1 << 20) {
		if s.Kind == "" {
			continue
		}
		err := (&Project{}).readData(s.Data, "schema.yml", "models/schema.yml")
		want := "models/schema.yml: " + strconv.Itoa(s.Line(compiler.DocumentLimits)) + ":"
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "OSS1021") {
			t.Errorf("%s: %v, want OSS1021 at %s", s.Name, err, want)
		}
	}
}

// BenchmarkReadAdversarial: one dbt YAML file of each 1 MB shape and each
// document at the limits. Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkReadAdversarial(b *testing.B) {
	for _, s := range append(prescantest.YAML(1<<20), prescantest.AtLimits(compiler.DocumentLimits)...) {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				(&Project{}).readData(s.Data, "schema.yml", "schema.yml")
			}
		})
	}
}

// FuzzReadData: reading any dbt YAML file, starting from every
// adversarial shape, never panics.
func FuzzReadData(f *testing.F) {
	for _, s := range prescantest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		(&Project{}).readData(data, "schema.yml", "schema.yml")
	})
}
