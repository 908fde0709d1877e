package ossiectl

import (
	"strings"
	"testing"
)

// validate and compile --engine check expressions against that engine, so
// OSS3008 is reported with file:line:col like any other problem, before
// the model is deployed.
func TestValidateForEngine(t *testing.T) {
	if code, out, errs := run(t, "", "validate", "testdata/trycast.yaml"); code != 0 {
		t.Fatalf("without --engine: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, "", "validate", "--engine", "duckdb", "testdata/trycast.yaml"); code != 0 {
		t.Fatalf("--engine duckdb: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ := run(t, "", "validate", "--engine", "postgres", "testdata/trycast.yaml")
	want := "testdata/trycast.yaml:11:"
	if code != ExitProblems || !strings.Contains(out, want) ||
		!strings.Contains(out, "semantic_model[0].datasets[0].fields[1].expression.dialects[0].expression: error OSS3008") ||
		!strings.Contains(out, "TRY_CAST") {
		t.Errorf("--engine postgres: exit %d, want %d and an OSS3008 line at %s...\n%s", code, ExitProblems, want, out)
	}
	code, _, errs := run(t, "", "compile", "--engine", "postgres", "testdata/trycast.yaml")
	if code != ExitProblems || !strings.Contains(errs, "OSS3008") {
		t.Errorf("compile --engine postgres: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, "", "validate", "--engine", "oracle", "testdata/trycast.yaml")
	if code != ExitUsage || !strings.Contains(errs, "duckdb, postgres, trino") {
		t.Errorf("--engine oracle: exit %d\n%s", code, errs)
	}
}
