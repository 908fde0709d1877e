package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/load"
)

// manyBundles are n published bundles of one model each (shop.yaml
// under n names), as n ConfigMaps hold them.
func manyBundles(b *testing.B, n int) [][]byte {
	b.Helper()
	arts, err := load.Models([]string{"testdata/shop.yaml"}, compiler.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, n)
	for i := range out {
		a := *arts[0]
		a.Name = fmt.Sprintf("shop%05d", i)
		data, err := compiler.EncodeBundle(compiler.NewBundle([]*compiler.Artifact{&a}))
		if err != nil {
			b.Fatal(err)
		}
		out[i] = data
	}
	return out
}

// BenchmarkStoreTenThousandModels is what a server in Kubernetes mode
// does when it starts over 10,000 published models (the watcher's onAdd
// for each ConfigMap: decode the bundle, Set it in the store), then the
// first query of one model: ms-to-ready is the time until every model is
// served, first-plan-µs the first plan of the last model.
func BenchmarkStoreTenThousandModels(b *testing.B) {
	const n = 10000
	bundles := manyBundles(b, n)
	q, probs := plan.ParseQuery([]byte(`{"metrics":["revenue"],"dimensions":["customers.state"]}`))
	if probs.HasErrors() {
		b.Fatal(probs)
	}
	d := dialect.DuckDB
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := NewStore(nil)
		start := time.Now()
		for i, data := range bundles {
			bd, err := compiler.DecodeBundle(data, 0)
			if err != nil {
				b.Fatal(err)
			}
			src := Source{Key: fmt.Sprintf("configmap ns/ossie-shop%05d", i), Namespace: "ns", Created: start}
			if err := s.Set(src, bd.Artifacts); err != nil {
				b.Fatal(err)
			}
		}
		cat := s.snapshot()
		ready := time.Since(start)
		m := cat.qualified[Qualify("ns", fmt.Sprintf("shop%05d", n-1))]
		if m == nil {
			b.Fatal("the last model is not served")
		}
		first := time.Now()
		if _, probs := m.planner.Plan(q, d); probs.HasErrors() {
			b.Fatal(probs)
		}
		b.ReportMetric(float64(ready.Milliseconds()), "ms-to-ready")
		b.ReportMetric(float64(time.Since(first).Microseconds()), "first-plan-µs")
	}
}
