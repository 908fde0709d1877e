package motoserver

import (
	"fmt"
	"testing"

	"github.com/ossie-dev/ossie/test/localproc"
)

var shared = &localproc.Shared[*Server]{
	Label: "motoserver", What: "MOTO (GLUE)", RequireEnv: RequireEnv, Missing: ErrNotInstalled,
	Start: Start,
	Started: func(s *Server) string {
		return fmt.Sprintf("moto %s started on 127.0.0.1:%d in %s, RSS %d MiB", Version, s.Port(), s.StartDuration.Round(1e6), s.RSS()>>20)
	},
	Stop: (*Server).Stop,
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Isolate tests with
// NewAccount; never stop it (Main does). A missing install skips the test
// loudly, unless OSSIE_REQUIRE_MOTO=1, which makes it a failure; any other
// start failure fails the test.
func Shared(t testing.TB) *Server { t.Helper(); return shared.Get(t) }

// SkipOrFail reports a failure to start moto: a skip when it is not
// installed and OSSIE_REQUIRE_MOTO is not "1", a fatal failure otherwise.
func SkipOrFail(t testing.TB, err error) { t.Helper(); shared.SkipOrFail(t, err) }

// Main runs the tests of a package and then stops the shared server if one
// was started. Use it from TestMain: os.Exit(motoserver.Main(m)).
func Main(m *testing.M) int { return shared.Main(m) }

// StopShared stops the shared server, if it was started.
func StopShared() { shared.StopShared() }
