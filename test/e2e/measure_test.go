package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// The numbers issue 3 asks for, measured on the running control plane.
var _ = Describe("measurements", func() {
	It("reconciles the flights model on a warm PostgreSQL engine", func() {
		// The flights example model over empty tables of the same shape:
		// a pass reads only the table descriptions, never rows.
		execSQL(`CREATE TABLE public.flights (date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR);
CREATE TABLE public.airports (iata VARCHAR, name VARCHAR, city VARCHAR, state VARCHAR, country VARCHAR, latitude DOUBLE PRECISION, longitude DOUBLE PRECISION);`)
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "flights", "model.yaml"))
		Expect(err).NotTo(HaveOccurred())
		sm := &v1alpha1.SemanticModel{ObjectMeta: metav1.ObjectMeta{Name: "flights", Namespace: nsBench}}
		Expect(yaml.UnmarshalStrict(data, &sm.Spec)).To(Succeed())
		Expect(k8s.Create(suiteCtx, sm)).To(Succeed())
		sm = waitReady(nsBench, "flights")
		expectPublishedConfigMap(Default, sm, "flights")

		settle(mainOp, nsBench, "flights")
		const n = 100
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: nsBench, Name: "flights"}}
		writes := mainOp.api.writesIn(nsBench)
		durations := make([]time.Duration, 0, n)
		for range n {
			start := time.Now()
			_, err := mainOp.rec.Reconcile(suiteCtx, req)
			durations = append(durations, time.Since(start))
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(mainOp.api.writesIn(nsBench)).To(Equal(writes), "API writes during no-op passes")
		slices.Sort(durations)
		AddReportEntry("reconcile of the unchanged flights model, warm PostgreSQL engine",
			fmt.Sprintf("p50 %s, p90 %s over %d passes; 0 API writes", durations[n/2].Round(10*time.Microsecond), durations[n*9/10].Round(10*time.Microsecond), n),
			ReportEntryVisibilityAlways)
		if p50, count := histogramP50(mainOp.metrics, "ready"); count > 0 {
			AddReportEntry("main operator, all passes with result=ready so far (ossie_operator_reconcile_duration_seconds)",
				fmt.Sprintf("p50 ≈ %s over %d passes", p50.Round(10*time.Microsecond), count), ReportEntryVisibilityAlways)
		}
	})
})

// scaleModels is how many models the scale run applies at once.
const scaleModels = 200

// The scale run: 200 models applied at once to an operator of their own
// (default concurrency), timed until every one is Ready and until the
// server answers for every one. It takes about 10 s, so it runs by
// default; -ginkgo.label-filter='!scale' leaves it out.
var _ = Describe("200 models applied at once", Label("scale"), func() {
	const (
		ns     = nsScale
		schema = "s_scale"
	)

	It("all become Ready and served", func() {
		createShopTables(schema)
		op := startOperator(operatorConfig{name: "scale", namespaces: []string{ns}, opts: testOptions(), resync: time.Hour})
		DeferCleanup(op.stop)
		DeferCleanup(func() {
			// Leave nothing for the server to carry into later specs.
			Expect(k8s.DeleteAllOf(suiteCtx, &v1alpha1.SemanticModel{}, client.InNamespace(ns))).To(Succeed())
			Expect(k8s.DeleteAllOf(suiteCtx, &corev1.ConfigMap{}, client.InNamespace(ns), client.MatchingLabels{"ossie.dev/artifact": "true"})).To(Succeed())
		})
		Eventually(op.elected).Should(BeTrue())

		objs := make([]*v1alpha1.SemanticModel, scaleModels)
		for i := range objs {
			s := newShop(ns, fmt.Sprintf("shop_scale_%03d", i), schema)
			s.Name = fmt.Sprintf("shop-%03d", i)
			objs[i] = s.object()
		}
		start := time.Now()
		var wg sync.WaitGroup
		work := make(chan *v1alpha1.SemanticModel)
		for range 16 {
			wg.Go(func() {
				defer GinkgoRecover()
				for sm := range work {
					Expect(k8s.Create(suiteCtx, sm)).To(Succeed())
				}
			})
		}
		for _, sm := range objs {
			work <- sm
		}
		close(work)
		wg.Wait()
		applied := time.Since(start)

		Eventually(func(g Gomega) int {
			var list v1alpha1.SemanticModelList
			g.Expect(k8s.List(suiteCtx, &list, client.InNamespace(ns))).To(Succeed())
			ready := 0
			for _, sm := range list.Items {
				if sm.Status.ObservedGeneration == sm.Generation && meta.IsStatusConditionTrue(sm.Status.Conditions, v1alpha1.ConditionReady) {
					ready++
				}
			}
			return ready
		}).WithTimeout(2 * time.Minute).WithPolling(250 * time.Millisecond).Should(Equal(scaleModels))
		allReady := time.Since(start)

		Eventually(func(g Gomega) int {
			served := 0
			for i := range scaleModels {
				if v, _ := servedVersion(fmt.Sprintf("shop_scale_%03d", i)); v != "" {
					served++
				}
			}
			return served
		}).WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Equal(scaleModels))
		allServed := time.Since(start)

		p50, count := histogramP50(op.metrics, "ready")
		AddReportEntry(fmt.Sprintf("%d models applied at once (MaxConcurrentReconciles %d)", scaleModels, op.rec.Options.MaxConcurrentReconciles),
			fmt.Sprintf("created in %s; all Ready after %s; all answered by the server after %s; pass p50 ≈ %s over %d passes",
				applied.Round(time.Millisecond), allReady.Round(time.Millisecond), allServed.Round(time.Millisecond), p50.Round(10*time.Microsecond), count),
			ReportEntryVisibilityAlways)
	})
})

// histogramP50 estimates the median of ossie_operator_reconcile_duration_seconds
// for result from the histogram buckets (linear within the bucket, as
// PromQL's histogram_quantile does) and returns it with the sample count.
func histogramP50(g prometheus.Gatherer, result string) (time.Duration, uint64) {
	GinkgoHelper()
	families, err := g.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != "ossie_operator_reconcile_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			match := false
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					match = true
				}
			}
			h := m.GetHistogram()
			if !match || h.GetSampleCount() == 0 {
				continue
			}
			rank := float64(h.GetSampleCount()) / 2
			lower, below := 0.0, uint64(0)
			for _, b := range h.GetBucket() {
				if float64(b.GetCumulativeCount()) >= rank {
					in := b.GetCumulativeCount() - below
					frac := (rank - float64(below)) / float64(in)
					secs := lower + frac*(b.GetUpperBound()-lower)
					return time.Duration(secs * float64(time.Second)), h.GetSampleCount()
				}
				lower, below = b.GetUpperBound(), b.GetCumulativeCount()
			}
			return time.Duration(lower * float64(time.Second)), h.GetSampleCount()
		}
	}
	return 0, 0
}
