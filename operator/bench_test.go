package operator_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/operator"
)

// BenchmarkReconcileNoop is a pass over the unchanged, published flights
// model with a warm DuckDB engine: validate, compile, the drift check
// (one Describe per distinct table) and no API write. Reports the median
// pass (p50-ms) and API writes per pass (must be 0).
func BenchmarkReconcileNoop(b *testing.B) {
	f := newFixture(b, operator.Options{})
	f.create("flights", flightsSpec(b))
	f.mustReconcile("flights")
	f.writes.Reset()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		f.mustReconcile("flights")
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, durations)
	b.ReportMetric(float64(f.writes.Load())/float64(len(durations)), "writes/op")
}

// BenchmarkReconcileNoopViews is a no-op pass over a published model
// with two governed views on DuckDB: the pass of BenchmarkReconcileNoop
// plus planning the views under their role and one catalog query listing
// the view schema; no DDL and no API write (writes/op and ddl/op must be
// 0).
func BenchmarkReconcileNoopViews(b *testing.B) {
	f := newFixture(b, operator.Options{})
	eng := openShop(b)
	f.setEngine(eng)
	f.create("shop", shopSpec(b))
	f.mustReconcile("shop")
	f.writes.Reset()
	applies := eng.applies.Load()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		f.mustReconcile("shop")
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, durations)
	b.ReportMetric(float64(f.writes.Load())/float64(len(durations)), "writes/op")
	b.ReportMetric(float64(eng.applies.Load()-applies)/float64(len(durations)), "ddl/op")
}

// BenchmarkReconcilePublish is a pass after a spec change: everything of
// the no-op pass plus a ConfigMap update and a status write.
func BenchmarkReconcilePublish(b *testing.B) {
	f := newFixture(b, operator.Options{})
	f.create("flights", flightsSpec(b))
	f.mustReconcile("flights")
	durations := make([]time.Duration, 0, b.N)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		i++
		f.update("flights", func(s *v1alpha1.SemanticModelSpec) { s.SemanticModel[0].Description = "v" + strconv.Itoa(i) })
		b.StartTimer()
		start := time.Now()
		f.mustReconcile("flights")
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, durations)
}

func reportP50(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
}
