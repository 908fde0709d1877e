package expr

import (
	"os"
	"strings"
	"testing"
)

// readme holds the compact support matrix between these markers; the full
// table with the emitted SQL is docs/engine-support.md.
const (
	readme      = "../../README.md"
	readmeBegin = "<!-- engine-support:begin (generated: go test ./compiler/expr -run EngineSupportReadme -update) -->"
	readmeEnd   = "<!-- engine-support:end -->"
)

// mark reduces a docs/engine-support.md cell to its verdict.
func mark(cell string) string {
	switch {
	case strings.HasPrefix(cell, "✗"):
		return "✗"
	case strings.HasPrefix(cell, "≈"):
		return "≈"
	case strings.HasPrefix(cell, "✓ `"):
		return "✓"
	default:
		return "✓ translated"
	}
}

// engineSupportMatrix is the function × engine table of the README, built
// from the same catalogue and dialects as docs/engine-support.md.
func engineSupportMatrix(t *testing.T) string {
	var b strings.Builder
	var ns []string
	b.WriteString("| function | kind | level | DuckDB | PostgreSQL | Trino |\n|---|---|---|---|---|---|\n")
	for _, fi := range Functions() {
		row := []string{"`" + fi.Name + "`", fi.Kind, fi.Spec}
		for _, d := range engines {
			row = append(row, mark(cell(t, fi.Example, d, &ns)))
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, c := range constructs {
		row := []string{c.name, "construct", c.spec}
		for _, d := range engines {
			row = append(row, mark(cell(t, c.example, d, &ns)))
		}
		b.WriteString("| " + strings.Join(escapeCells(row), " | ") + " |\n")
	}
	return b.String()
}

// TestEngineSupportReadme fails when the README's support matrix is not what
// the catalogue and the dialects produce; -update rewrites the block.
func TestEngineSupportReadme(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q ... %q block", readmeBegin, readmeEnd)
	}
	got := text[:i+len(readmeBegin)] + "\n" + engineSupportMatrix(t) + text[j:]
	if *update {
		if err := os.WriteFile(readme, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != text {
		t.Error("README.md engine support matrix is stale; regenerate it: go test ./compiler/expr -run EngineSupportReadme -update")
	}
}
