package soak

import (
	"context"
	"errors"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// The long run (`make soak`) sets these; the defaults are the short run
// of `make test`: one round of the sequence over 6 cases.
var (
	flagRounds = flag.Int("soak.rounds", 1, "rounds of the fault sequence")
	flagCases  = flag.Int("soak.cases", 6, "generated cases (models and callers) served at once")
	flagLoad   = flag.Duration("soak.load", time.Second, "load alone between faults")
	flagFill   = flag.Int("soak.cache-fill", 120, "never-asked questions of the cache step")
	flagTrino  = flag.Bool("soak.trino", false, "add a case on a real Trino and restart Trino mid-query")
)

func TestMain(m *testing.M) {
	code := m.Run()
	differential.RemoveServerBinary()
	os.Exit(code)
}

// TestSoak runs the fault sequence under load and fails on any broken
// property (package comment); the report is logged either way.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL, etcd, kube-apiserver and the server, and breaks them")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	begin := time.Now()
	r, err := Run(ctx, Options{Cases: *flagCases, Rounds: *flagRounds, Load: *flagLoad, Workers: 3,
		QueryTimeout: 10 * time.Second, CacheBytes: 256 << 10, CacheFill: *flagFill, MaxRSS: 1 << 30, Trino: *flagTrino,
		Log: t.Logf})
	if errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv(pgtest.RequireEnv) != "1" {
		t.Skipf("no PostgreSQL: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("soak report (%s):\n%s", time.Since(begin).Round(time.Second), r)
	for _, f := range r.Failures {
		t.Error(f)
	}
}
