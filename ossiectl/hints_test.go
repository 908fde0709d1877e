package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingFileSuggestsANearOne: a file name that is a typo of a file
// in the same directory is named in the error, for the commands that read
// model files.
func TestMissingFileSuggestsANearOne(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(model, readFile(t, "testdata/shop.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", filepath.Join(dir, "modle.yaml")},
		{"sql", filepath.Join(dir, "model.yml"), "--metrics", "revenue"},
		{"list", "metrics", filepath.Join(dir, "model.yml")},
		{"migrate", "--to", "0.2.0.dev0", filepath.Join(dir, "mode.yaml")},
	} {
		code, out, errs := run(t, "", args...)
		if code != ExitProblems || !strings.Contains(out+errs, "no such file or directory; did you mean "+model+"?") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	// Nothing near: no suggestion.
	if code, out, errs := run(t, "", "validate", filepath.Join(dir, "orders.yaml")); code != ExitProblems || strings.Contains(out+errs, "did you mean") {
		t.Errorf("far name: exit %d\n%s%s", code, out, errs)
	}
}

// TestTabIndentationInPlainWords: a model indented with a tab is refused
// with the line and column of the tab and what to do; a tab where YAML
// allows one (between the items of a flow collection) is read.
func TestTabIndentationInPlainWords(t *testing.T) {
	model := writeTemp(t, "tabs.yaml", "version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: shop\n    datasets:\n      - name: a\n\t      source: x\n")
	code, out, _ := run(t, "", "validate", model)
	want := model + ":6:1: error OSS1001: line 6 is indented with a tab (column 1); YAML indents with spaces only: replace the tab with spaces"
	if code != ExitProblems || !strings.Contains(out, want) {
		t.Errorf("exit %d\n%s\nwant %s", code, out, want)
	}
	model = writeTemp(t, "spaces.yaml", "version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: shop\n    datasets:\n      - name: a\n    \t  source: x\n")
	code, out, _ = run(t, "", "validate", model)
	if want := model + ":6:5: error OSS1001: line 6 is indented with a tab (column 5)"; code != ExitProblems || !strings.Contains(out, want) {
		t.Errorf("exit %d\n%s\nwant %s", code, out, want)
	}
	model = writeTemp(t, "flow.yaml", "version: \"0.2.0.dev0\"\nsemantic_model: [{name: x,\tdatasets: []}]\n")
	code, out, _ = run(t, "", "validate", model)
	if code != ExitProblems || strings.Contains(out, "OSS1001") || !strings.Contains(out, "semantic_model[0].datasets") {
		t.Errorf("a tab between flow items: exit %d\n%s", code, out)
	}
}

// TestGrainTypo: `ossiectl sql` and `query` name the grain a misspelt one
// means.
func TestGrainTypo(t *testing.T) {
	for _, dim := range []string{"orders.order_date:months", "orders.order_date.Months"} {
		code, _, errs := run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue", "--dimensions", dim)
		if code != ExitProblems || !strings.Contains(errs, `error OSS4004: unknown time grain`) || !strings.Contains(errs, `did you mean "month"?`) {
			t.Errorf("%s: exit %d\n%s", dim, code, errs)
		}
	}
}
