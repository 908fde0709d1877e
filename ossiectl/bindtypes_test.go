package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `ossiectl query` binds the model first (issue 24, bug 3): a naive
// TIMESTAMP column declared DateTimeTz is OSS5008, as in `validate
// --engine` and the operator, not an answer shifted by the engine's rules.
func TestQueryRefusesNaiveDeclaredDateTimeTz(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csv, []byte("id,occurred\n1,2024-01-01 23:30:00\n2,2024-01-02 00:10:00\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "query", "../cmd/server/testdata/events_naive_as_tz.yaml", "--load", "events="+csv,
		"--metrics", "event_count", "--dimensions", "events.at")
	if code != ExitProblems || out != "" || !strings.Contains(errs, "OSS5008") || !strings.Contains(errs, "events.at is declared DateTimeTz") {
		t.Errorf("exit %d, stdout %q, stderr %s; want %d and OSS5008", code, out, errs, ExitProblems)
	}
}
