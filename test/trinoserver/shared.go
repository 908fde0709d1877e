package trinoserver

import (
	"fmt"
	"os"
	"testing"

	"github.com/ossie-dev/ossie/test/localproc"
)

// SharedOptions are the options of the shared server; a TestMain may set
// them before m.Run.
var SharedOptions Options

var shared = &localproc.Shared[*Server]{
	Label: "trinoserver", What: "REAL-TRINO", RequireEnv: RequireEnv, Missing: ErrNotInstalled,
	Start: func() (*Server, error) { return Start(SharedOptions) },
	Started: func(s *Server) string {
		return fmt.Sprintf("Trino %s started on 127.0.0.1:%d in %s, RSS %d MiB", Version, s.Port(), s.StartDuration.Round(1e6), s.RSS()>>20)
	},
	Stop: func(s *Server) {
		fmt.Fprintf(os.Stderr, "trinoserver: stopping Trino on 127.0.0.1:%d, RSS at the end %d MiB\n", s.Port(), s.RSS()>>20)
		s.Stop()
	},
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Never stop it; Main does.
// A missing install skips the test loudly, unless OSSIE_REQUIRE_TRINO=1,
// which makes it a failure; any other start failure fails the test.
func Shared(t testing.TB) *Server { t.Helper(); return shared.Get(t) }

// SkipOrFail reports a failure to start Trino: a skip when it is not
// installed and OSSIE_REQUIRE_TRINO is not "1", a fatal failure otherwise.
func SkipOrFail(t testing.TB, err error) { t.Helper(); shared.SkipOrFail(t, err) }

// Main runs the tests of a package and then stops the shared server if one
// was started, printing its resident memory at the end, and calls
// alsoStop (other shared servers, such as pgtest.StopShared). Use it from
// TestMain: os.Exit(trinoserver.Main(m)).
func Main(m *testing.M, alsoStop ...func()) int { return shared.Main(m, alsoStop...) }

// StopShared stops the shared server, if it was started.
func StopShared() { shared.StopShared() }
