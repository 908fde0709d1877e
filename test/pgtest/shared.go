package pgtest

import (
	"fmt"
	"testing"

	"github.com/ossie-dev/ossie/test/localproc"
)

// RequireEnv names the environment variable that turns a missing
// PostgreSQL installation from a skip into a test failure ("1").
const RequireEnv = "OSSIE_REQUIRE_POSTGRES"

var shared = &localproc.Shared[*Server]{
	Label: "pgtest", What: "POSTGRESQL", RequireEnv: RequireEnv, Missing: ErrNoBinaries,
	Hint:  "install PostgreSQL 15 or set OSSIE_PG_BIN; ",
	Start: Start,
	Started: func(s *Server) string {
		return fmt.Sprintf("PostgreSQL started on 127.0.0.1:%d in %s", s.Port(), s.StartDuration.Round(1e6))
	},
	Stop: func(s *Server) { _ = s.Stop() },
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Use NewDatabase on it for
// isolation; never stop it (use Private for a server of one's own).
//
// When no PostgreSQL installation exists the test is skipped with a loud
// message, unless OSSIE_REQUIRE_POSTGRES=1, which makes it a failure. Any
// other start failure fails the test.
func Shared(t testing.TB) *Server { t.Helper(); return shared.Get(t) }

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
func SkipOrFail(t testing.TB, err error) { t.Helper(); shared.SkipOrFail(t, err) }

// Main runs the tests of a package and then stops the shared server if one
// was started. Use it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int { return shared.Main(m) }

// StopShared stops and removes the shared server, if it was started.
func StopShared() { shared.StopShared() }
