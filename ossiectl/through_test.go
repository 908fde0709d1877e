package ossiectl

import (
	"path/filepath"
	"strings"
	"testing"
)

// --through names the fact whose rows a query without metrics lists
// (issue 26 item 2); without it the planner's choice, or OSS4012 listing
// the candidates; with --query it is a usage error like the other flags.
func TestSQLThrough(t *testing.T) {
	model := filepath.Join("..", "test", "conformance", "testdata", "DO-01", "model.yaml")
	dims := []string{"sql", model, "--dimensions", "customers.segment,products.category", "--explain"}
	code, out, errs := run(t, "", append(dims, "--through", "reviews")...)
	if code != ExitOK || !strings.Contains(out, "aggregate g0 at reviews by customers.segment, products.category") {
		t.Fatalf("--through reviews: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := run(t, "", dims...); code == ExitOK || !strings.Contains(errs, "OSS4012") || !strings.Contains(errs, "orders, reviews") {
		t.Fatalf("no --through: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", append(dims, "--through", "channels")...); code == ExitOK || !strings.Contains(errs, "OSS4012") || !strings.Contains(errs, "through channels") {
		t.Fatalf("--through channels: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "sql", model, "--query", `{"dimensions":["channels.name"]}`, "--through", "orders"); code != ExitUsage || !strings.Contains(errs, "--through") {
		t.Fatalf("--through with --query: exit %d %s", code, errs)
	}
}
