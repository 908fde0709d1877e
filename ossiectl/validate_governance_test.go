package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRecognisesGovernanceFile: `validate examples/flights/*.yaml`
// checks the governance file as one (against the model given with it),
// not as a document without a version.
func TestValidateRecognisesGovernanceFile(t *testing.T) {
	code, out, errs := run(t, "", "validate", "../examples/flights/governance.yaml", "../examples/flights/model.yaml", "../examples/flights/semanticmodel.yaml")
	if code != 0 || out != "3 documents valid (0.2.0.dev0: 2, governance: 1)\n" || strings.Contains(out, "migrate") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// A governance problem is found against the model and reported in the governance file.
	dir := t.TempDir()
	gov, err := os.ReadFile("../examples/flights/governance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "governance.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(gov), "field: destination.name", "field: destination.nmae", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "validate", "../examples/flights/model.yaml", bad)
	if code != ExitProblems || !strings.Contains(out, "governance.yaml:") || !strings.Contains(out, `OSS2009`) ||
		!strings.Contains(out, `did you mean "destination.name"?`) || strings.Contains(out, "migrate") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Alone, its structure is still checked.
	if err := os.WriteFile(bad, []byte("roles:\n  - name: x\n    colour: red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "validate", bad)
	if code != ExitProblems || !strings.Contains(out, "unknown key `colour` in role") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
