package main

import (
	"context"
	"strings"
	"testing"
)

// TestUsage: --help shows the examples and exits 0; an unknown flag or an
// argument is a one-line usage error (exit 2) that starts nothing. The
// start itself is test/localcluster's TestClusterDemo.
func TestUsage(t *testing.T) {
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"--help"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "make cluster-demo") {
		t.Errorf("--help: exit %d\n%s", code, out.String())
	}
	for _, args := range [][]string{{"--no-such-flag"}, {"extra"}} {
		out.Reset()
		errOut.Reset()
		if code := run(context.Background(), args, &out, &errOut); code != 2 || strings.Count(errOut.String(), "\n") != 2 || out.Len() != 0 {
			t.Errorf("%q: exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errOut.String())
		}
	}
}
