package trinoserver

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// SharedOptions are the options of the shared server; a TestMain may set
// them before m.Run.
var SharedOptions Options

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Never stop it; Main does.
// A missing install skips the test loudly, unless OSSIE_REQUIRE_TRINO=1,
// which makes it a failure; any other start failure fails the test.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = Start(SharedOptions)
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "trinoserver: Trino %s started on 127.0.0.1:%d in %s, RSS %d MiB\n",
				Version, shared.srv.Port(), shared.srv.StartDuration.Round(1e6), shared.srv.RSS()>>20)
		}
	})
	if shared.err != nil {
		SkipOrFail(t, shared.err)
	}
	return shared.srv
}

// SkipOrFail reports a failure to start Trino: a skip when it is not
// installed and OSSIE_REQUIRE_TRINO is not "1", a fatal failure otherwise.
func SkipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotInstalled) && os.Getenv(RequireEnv) != "1" {
		t.Skipf("SKIPPING REAL-TRINO TESTS: %v (set %s=1 to make this a failure)", err, RequireEnv)
	}
	t.Fatalf("trinoserver: %v", err)
}

// Main runs the tests of a package and then stops the shared server if one
// was started, printing its resident memory at the end, and calls
// alsoStop (other shared servers, such as pgtest.StopShared). Use it from
// TestMain: os.Exit(trinoserver.Main(m)).
func Main(m *testing.M, alsoStop ...func()) int {
	code := m.Run()
	StopShared()
	for _, stop := range alsoStop {
		stop()
	}
	return code
}

// StopShared stops the shared server, if it was started.
func StopShared() {
	if shared.srv != nil {
		fmt.Fprintf(os.Stderr, "trinoserver: stopping Trino on 127.0.0.1:%d, RSS at the end %d MiB\n", shared.srv.Port(), shared.srv.RSS()>>20)
		shared.srv.Stop()
	}
}
