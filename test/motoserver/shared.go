package motoserver

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's shared server, starting it on first use
// (concurrent callers wait for the one start). Isolate tests with
// NewAccount; never stop it (Main does). A missing install skips the test
// loudly, unless OSSIE_REQUIRE_MOTO=1, which makes it a failure; any other
// start failure fails the test.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = Start()
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "motoserver: moto %s started on 127.0.0.1:%d in %s, RSS %d MiB\n",
				Version, shared.srv.Port(), shared.srv.StartDuration.Round(1e6), shared.srv.RSS()>>20)
		}
	})
	if shared.err != nil {
		SkipOrFail(t, shared.err)
	}
	return shared.srv
}

// SkipOrFail reports a failure to start moto: a skip when it is not
// installed and OSSIE_REQUIRE_MOTO is not "1", a fatal failure otherwise.
func SkipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotInstalled) && os.Getenv(RequireEnv) != "1" {
		t.Skipf("SKIPPING MOTO (GLUE) TESTS: %v (set %s=1 to make this a failure)", err, RequireEnv)
	}
	t.Fatalf("motoserver: %v", err)
}

// Main runs the tests of a package and then stops the shared server if one
// was started. Use it from TestMain: os.Exit(motoserver.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	StopShared()
	return code
}

// StopShared stops the shared server, if it was started.
func StopShared() {
	if shared.srv != nil {
		shared.srv.Stop()
	}
}
