package localproc

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is one server process per test binary: started on first use
// (concurrent callers wait for the one start), never stopped by a test,
// stopped by the package's TestMain through Stop. Each harness (pgtest,
// trinoserver, motoserver, icebergrest) declares one and keeps its own
// exported Shared/SkipOrFail/Main/StopShared as thin wrappers.
type Shared[T any] struct {
	// Label names the harness in failures ("pgtest: …").
	Label string
	// What names the tests in the loud skip ("SKIPPING <What> TESTS: …").
	What string
	// Hint is advice put before the RequireEnv sentence of the skip, or "".
	Hint string
	// RequireEnv is the environment variable that, set to "1", turns a
	// missing installation from a skip into a failure.
	RequireEnv string
	// Missing is the start error meaning "not installed" (errors.Is).
	Missing error
	// Start starts the process; Started says on stderr what started;
	// Stop stops it (and may report its last figures).
	Start   func() (T, error)
	Started func(T) string
	Stop    func(T)

	once    sync.Once
	srv     T
	err     error
	running bool
}

// Get returns the shared process, starting it on first use. A missing
// installation skips t loudly unless RequireEnv is "1"; any other start
// failure fails t.
func (s *Shared[T]) Get(t testing.TB) T {
	t.Helper()
	s.once.Do(func() {
		s.srv, s.err = s.Start()
		if s.err == nil {
			s.running = true
			if s.Started != nil {
				fmt.Fprintln(os.Stderr, s.Label+": "+s.Started(s.srv))
			}
		}
	})
	if s.err != nil {
		s.SkipOrFail(t, s.err)
	}
	return s.srv
}

// SkipOrFail reports err, a failure to start: a skip when it is Missing
// and RequireEnv is not "1", a fatal failure otherwise.
func (s *Shared[T]) SkipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, s.Missing) && os.Getenv(s.RequireEnv) != "1" {
		t.Skipf("SKIPPING %s TESTS: %v (%sset %s=1 to make this a failure)", s.What, err, s.Hint, s.RequireEnv)
	}
	t.Fatalf("%s: %v", s.Label, err)
}

// StopShared stops the shared process, if it was started.
func (s *Shared[T]) StopShared() {
	if s.running {
		s.Stop(s.srv)
	}
}

// Main runs the tests of a package, then stops s and calls alsoStop
// (other harnesses' StopShared). For TestMain: os.Exit(x.Main(m)).
func (s *Shared[T]) Main(m *testing.M, alsoStop ...func()) int {
	code := m.Run()
	s.StopShared()
	for _, stop := range alsoStop {
		stop()
	}
	return code
}
