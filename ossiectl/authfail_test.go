package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/test/pgtest"
)

// A wrong PostgreSQL password is reported as refused credentials with the
// password as the next step, not as an engine that is down.
func TestQueryWrongPassword(t *testing.T) {
	srv := pgtest.Private(t)
	dsn := srv.NewDatabase(t)
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("Wr0ng-zzz"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIECTL_TEST_PG_DSN", dsn)
	code, out, errs := run(t, "", "query", "testdata/shop.yaml", "--engine", "postgres", "--dsn-env", "OSSIECTL_TEST_PG_DSN",
		"--password-file", pw, "--metrics", "revenue")
	if code != ExitUnreachable || out != "" {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitUnreachable, out, errs)
	}
	if !strings.Contains(errs, "refused the credentials") || !strings.Contains(errs, "28P01") ||
		!strings.Contains(errs, "--password-file") || strings.Contains(errs, "is running") {
		t.Errorf("message should blame the credentials, not the server:\n%s", errs)
	}
	if strings.Contains(errs, "Wr0ng-zzz") || strings.Contains(errs, srv.Password()) {
		t.Errorf("message leaks a password:\n%s", errs)
	}
}
