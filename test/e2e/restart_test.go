package e2e_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Scenario 9: the operator restarts between a spec change and its
// reconcile. Operators here run with leader election on one Lease, as
// replicas of cmd/operator do; each watches the restart namespace and a
// control namespace where the final spec is applied once, from scratch,
// to give the state of a single run.
var _ = Describe("an operator restart mid-way", Ordered, func() {
	const (
		ns     = nsRestart
		model  = "shop_restart"
		schema = "s_restart"
		lease  = "ossie-e2e-restart"
	)
	cfg := func(name string) operatorConfig {
		return operatorConfig{name: name, namespaces: []string{ns, nsControl}, opts: testOptions(), resync: testResync, leaderElectionID: lease}
	}
	holder := func() string {
		l, err := clientset.CoordinationV1().Leases(ns).Get(suiteCtx, lease, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}

	BeforeAll(func() { createShopTables(schema) })

	It("converges to the state a single run reaches", func() {
		By("operator A publishes the first spec")
		a := startOperator(cfg("restart-a"))
		DeferCleanup(a.stop)
		Eventually(a.elected).Should(BeTrue())
		holderA := holder()
		Expect(holderA).NotTo(BeEmpty())
		s := newShop(ns, model, schema)
		s.create()
		v1 := waitReady(ns, "shop").Status.PublishedVersion

		By("A stops and releases the Lease; the spec changes while no operator runs")
		a.stop()
		Eventually(holder).Should(BeEmpty(), "the Lease is released on shutdown")
		sm := getModel(Default, ns, "shop")
		sm.Spec.SemanticModel[0].Description = "Orders and their lines, after the restart"
		sm.Spec.SemanticModel[0].Metrics = append(sm.Spec.SemanticModel[0].Metrics, ossie.Metric{
			Name:       "line_count",
			Expression: ossie.Expression{Dialects: []ossie.DialectExpression{{Dialect: "ANSI_SQL", Expression: "COUNT(order_lines.line_id)"}}},
		})
		Expect(k8s.Update(suiteCtx, sm)).To(Succeed())
		final := sm.Spec.DeepCopy()
		Consistently(func(g Gomega) int64 { return getModel(g, ns, "shop").Status.ObservedGeneration }, "1s").
			Should(Equal(int64(1)), "nothing reconciles while the operator is down")

		By("operator B takes the Lease and converges")
		b := startOperator(cfg("restart-b"))
		DeferCleanup(b.stop)
		Eventually(b.elected).Should(BeTrue())
		Expect(holder()).NotTo(Or(BeEmpty(), Equal(holderA)))
		restarted := waitReady(ns, "shop")
		Expect(restarted.Generation).To(Equal(int64(2)))
		v2 := restarted.Status.PublishedVersion
		Expect(v2).NotTo(Equal(v1))

		By("the same final spec applied once, from scratch, in the control namespace")
		control := &v1alpha1.SemanticModel{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: nsControl}, Spec: *final}
		Expect(k8s.Create(suiteCtx, control)).To(Succeed())
		single := waitReady(nsControl, "shop")

		Expect(restarted.Status.PublishedVersion).To(Equal(single.Status.PublishedVersion))
		Expect(restarted.Status.AttemptedVersion).To(Equal(single.Status.AttemptedVersion))
		Expect(restarted.Status.Bindings).To(Equal(single.Status.Bindings))
		Expect(restarted.Status.Problems).To(Equal(single.Status.Problems))
		Expect(conditionSummary(restarted)).To(Equal(conditionSummary(single)))
		cmR := expectPublishedConfigMap(Default, restarted, model)
		cmS := expectPublishedConfigMap(Default, single, model)
		Expect(cmR.BinaryData).To(Equal(cmS.BinaryData))
		Expect(cmR.Labels).To(Equal(cmS.Labels))
		Expect(cmR.Annotations).To(Equal(cmS.Annotations))

		Eventually(func(g Gomega) {
			// The control namespace publishes the same model name, so the
			// restarted model is addressed by its namespace.
			g.Expect(expectAnswer(g, ns+"/"+model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v2))
		}).Should(Succeed())

		By("a standby replica waits and writes nothing while B leads")
		c := startOperator(cfg("restart-standby"))
		DeferCleanup(c.stop)
		sm = getModel(Default, ns, "shop")
		sm.Spec.SemanticModel[0].Description = "Orders and their lines, third edit"
		Expect(k8s.Update(suiteCtx, sm)).To(Succeed())
		waitReady(ns, "shop")
		Consistently(c.elected, "2s").Should(BeFalse())
		Expect(c.api.allWrites()).To(BeEmpty(), "writes by the standby")
		Expect(c.api.passesOf(ns, "shop")).To(BeZero(), "reconcile passes by the standby")
	})
})

// conditionSummary is every condition without its timestamps.
func conditionSummary(sm *v1alpha1.SemanticModel) []string {
	var out []string
	for _, c := range sm.Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status)+"/"+c.Reason+": "+c.Message)
	}
	return out
}
