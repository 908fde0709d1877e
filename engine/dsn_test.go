package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

func TestResolveDSN(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(file, []byte("  postgres://u:secret@h/db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIE_TEST_DSN", "trino://u:secret@h")
	for _, tc := range []struct{ dsn, env, file, want, err string }{
		{dsn: "x://plain", want: "x://plain"},
		{env: "OSSIE_TEST_DSN", want: "trino://u:secret@h"},
		{file: file, want: "postgres://u:secret@h/db"},
		{err: "exactly one"},
		{dsn: "a", env: "OSSIE_TEST_DSN", err: "exactly one"},
		{env: "OSSIE_TEST_DSN_UNSET", err: "OSSIE_TEST_DSN_UNSET is not set"},
		{file: file + ".missing", err: "reading DSN file"},
	} {
		got, err := engine.ResolveDSN(tc.dsn, tc.env, tc.file)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("%+v: err %v, want one containing %q and no secret", tc, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%+v: got %q, %v", tc, got, err)
		}
	}
	if got := engine.Scrub("dial u:secret@h failed", "", "secret"); got != "dial u:[redacted]@h failed" {
		t.Errorf("Scrub: %q", got)
	}
}
