package pgtest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// RequireEnv names the environment variable that turns a missing
// PostgreSQL installation from a skip into a test failure ("1").
const RequireEnv = "OSSIE_REQUIRE_POSTGRES"

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Use NewDatabase on it for
// isolation; never stop it (use Start for a private server instead).
//
// When no PostgreSQL installation exists the test is skipped with a loud
// message, unless OSSIE_REQUIRE_POSTGRES=1, which makes it a failure. Any
// other start failure fails the test.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = Start()
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL started on 127.0.0.1:%d in %s\n", shared.srv.Port(), shared.srv.StartDuration.Round(1e6))
		}
	})
	if shared.err != nil {
		SkipOrFail(t, shared.err)
	}
	return shared.srv
}

// Private starts a server owned by t (stopped and removed when t ends),
// with the same skip policy as Shared. For tests that stop and restart the
// server.
func Private(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		SkipOrFail(t, err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// SkipOrFail reports a failure to start PostgreSQL: a skip when the
// binaries are missing and OSSIE_REQUIRE_POSTGRES is not "1", a fatal
// failure otherwise.
func SkipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoBinaries) && os.Getenv(RequireEnv) != "1" {
		t.Skipf("SKIPPING POSTGRESQL TESTS: %v (install PostgreSQL 15 or set OSSIE_PG_BIN; set %s=1 to make this a failure)", err, RequireEnv)
	}
	t.Fatalf("pgtest: %v", err)
}

// Main runs the tests of a package and then stops the shared server if one
// was started. Use it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	StopShared()
	return code
}

// StopShared stops and removes the shared server, if it was started.
func StopShared() {
	if shared.srv != nil {
		_ = shared.srv.Stop()
	}
}
