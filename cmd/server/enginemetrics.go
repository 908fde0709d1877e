package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// metricsRegistry is what /metrics serves: the Go runtime's and the
// process's collectors (server.New's own choice when given none) and, for
// the embedded DuckDB, what its buffer manager holds, so that a growing
// RSS can be told apart into the Go heap (go_memstats_*), the result
// cache (ossie_result_cache_bytes) and the engine (docs/operations.md).
func metricsRegistry(eng engine.Engine) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	db, ok := eng.(*duckdb.Engine)
	if !ok {
		return reg
	}
	usage := func(spilled bool) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			used, tmp, err := db.MemoryUsage(ctx)
			if err != nil {
				return -1 // a scrape during shutdown; never a reason to fail /metrics
			}
			if spilled {
				return float64(tmp)
			}
			return float64(used)
		}
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ossie_engine_memory_bytes",
			Help: "Memory DuckDB's buffer manager holds (cached table blocks, hash tables, sorts), in bytes; bounded by --engine-memory-limit."}, usage(false)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ossie_engine_spilled_bytes",
			Help: "Bytes DuckDB has spilled to temporary files because --engine-memory-limit was reached."}, usage(true)))
	return reg
}
