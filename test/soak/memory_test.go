package soak

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/kubetest"
)

// The memory soak runs only when -soak.memory gives it a duration
// (`make soak-memory`): it measures, it does not belong in make test.
var (
	flagMemory     = flag.Duration("soak.memory", 0, "run the memory soak for this long (0: skip)")
	flagWarmup     = flag.Duration("soak.warmup", 5*time.Minute, "memory soak: the warm-up after which RSS should stay flat")
	flagData       = flag.String("soak.data", "", "memory soak: flights data directory (default examples/flights/data/full when fetched, else the committed sample)")
	flagCSV        = flag.String("soak.csv", "", "memory soak: write the memory samples to this CSV file")
	flagServerArgs = flag.String("soak.server-args", "", "memory soak: more server flags, space-separated (e.g. --engine-memory-limit=256MiB)")
	flagCacheBytes = flag.Int64("soak.cache-bytes", 64<<20, "memory soak: the server's --cache-bytes")
)

// TestMemorySoak serves the flights data and generated cases for
// -soak.memory under varied load and reports the server's memory
// (MemoryReport.String); it fails on a wrong answer, an unclear refusal
// or a hang, never on the drift, which is a measurement.
func TestMemorySoak(t *testing.T) {
	if *flagMemory <= 0 {
		t.Skip("set -soak.memory=30m (make soak-memory) to run the memory soak")
	}
	data := *flagData
	if data == "" {
		data = filepath.Join(kubetest.Root(), "examples", "flights", "data", "full")
		if _, err := os.Stat(filepath.Join(data, "flights-3m.parquet")); err != nil {
			data = filepath.Dir(data)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *flagMemory+10*time.Minute)
	defer cancel()
	r, err := RunMemory(ctx, MemoryOptions{Duration: *flagMemory, Warmup: min(*flagWarmup, *flagMemory/2),
		Sample: 5 * time.Second, Reload: time.Minute, Data: data, Cases: 6, Workers: 3, CacheBytes: *flagCacheBytes,
		ServerArgs: strings.Fields(*flagServerArgs), CSV: *flagCSV, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("memory soak report (data %s):\n%s", data, r)
	for _, f := range r.Failures {
		t.Error(f)
	}
}
