package e2e_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Scenarios 1 to 3 on one model, in order: apply with kubectl, apply
// again unchanged, apply an invalid change.
var _ = Describe("a model applied with kubectl", Ordered, func() {
	const (
		ns     = nsApply
		model  = "shop_apply"
		schema = "s_apply"
	)
	s := newShop(ns, model, schema)
	var (
		v1     string
		cmRV   string
		smUID  types.UID
		writes []string
	)

	BeforeAll(func() { createShopTables(schema) })

	It("becomes Ready, is published in its ConfigMap and answers like SQL on PostgreSQL", func() {
		out := kubectl("apply", "-f", s.file())
		Expect(out).To(ContainSubstring("semanticmodel.ossie.dev/shop created"))

		sm := waitReady(ns, "shop")
		Expect(sm.Generation).To(Equal(int64(1)))
		v1 = sm.Status.PublishedVersion
		smUID = sm.UID
		Expect(sm.Status.Bindings).To(ConsistOf(
			v1alpha1.Binding{Dataset: "orders", Model: model, Table: schema + ".orders", Columns: 4},
			v1alpha1.Binding{Dataset: "order_lines", Model: model, Table: schema + ".order_lines", Columns: 4},
		))
		Expect(sm.Status.Problems).To(BeEmpty())
		cm := expectPublishedConfigMap(Default, sm, model)
		cmRV = cm.ResourceVersion
		// The counter sees the operator's writes (so "no write" below means
		// something): the ConfigMap creation and the status updates.
		Expect(mainOp.api.writesIn(ns)).To(ContainElements(
			"create *v1.ConfigMap ossie-shop",
			"status update *v1alpha1.SemanticModel shop",
		))

		Eventually(func(g Gomega) {
			got := expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)
			g.Expect(got).To(Equal(v1), "model_version of the answer")
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(v1))
		}).Should(Succeed())

		// The print columns, through kubectl and the short name.
		table := kubectl("get", "sm", "shop", "-n", ns)
		Expect(strings.Fields(strings.Split(table, "\n")[0])).To(Equal([]string{"NAME", "READY", "REASON", "VERSION", "DRIFT", "AGE"}))
		Expect(strings.Fields(strings.Split(table, "\n")[1])[:5]).To(Equal([]string{"shop", "True", "Ready", v1, "False"}))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("Published"))
	})

	It("applied again unchanged, keeps its version and makes no API write", func() {
		settle(mainOp, ns, "shop")
		before := mainOp.api.passesOf(ns, "shop")
		writes = mainOp.api.writesIn(ns)
		events := eventsAbout(ns, "shop")

		out := kubectl("apply", "-f", s.file())
		Expect(out).To(ContainSubstring("semanticmodel.ossie.dev/shop unchanged"))

		// Several resyncs (every 2 s) reconcile the model; none may write.
		waitPasses(mainOp, ns, "shop", before, 3)
		sm := getModel(Default, ns, "shop")
		Expect(sm.Generation).To(Equal(int64(1)))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		expectConditions(Default, sm, readyConditions)
		cm := expectPublishedConfigMap(Default, sm, model)
		Expect(cm.ResourceVersion).To(Equal(cmRV), "the ConfigMap was rewritten")
		Expect(mainOp.api.writesIn(ns)).To(Equal(writes), "API writes by the operator for an unchanged model")
		Expect(eventsAbout(ns, "shop")).To(Equal(events), "events for an unchanged model")

		// The SemanticModel itself: status untouched across more passes.
		rv := sm.ResourceVersion
		waitPasses(mainOp, ns, "shop", mainOp.api.passesOf(ns, "shop"), 2)
		Expect(getModel(Default, ns, "shop").ResourceVersion).To(Equal(rv), "the SemanticModel (status) was rewritten")

		// The measured no-op pass: validate, compile, the drift check on a
		// warm PostgreSQL connection, no write.
		const n = 50
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "shop"}}
		durations := make([]time.Duration, 0, n)
		writes = mainOp.api.writesIn(ns)
		passes0 := mainOp.api.passesOf(ns, "shop")
		describes0, stmts0 := mainOp.eng.calls(schema)
		for range n {
			start := time.Now()
			_, err := mainOp.rec.Reconcile(suiteCtx, req)
			durations = append(durations, time.Since(start))
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(mainOp.api.writesIn(ns)).To(Equal(writes), "API writes during %d no-op passes", n)
		// The engine is asked only for the drift check: one Describe per
		// table per pass (resync passes of the manager included), no
		// statement at all.
		Eventually(func(g Gomega) {
			passes := mainOp.api.passesOf(ns, "shop") - passes0
			describes, stmts := mainOp.eng.calls(schema)
			g.Expect(passes).To(BeNumerically(">=", n))
			g.Expect(describes-describes0).To(Equal(2*passes), "Describe calls for %d passes", passes)
			g.Expect(stmts-stmts0).To(BeZero(), "engine statements during no-op passes")
		}).Should(Succeed())
		Expect(getModel(Default, ns, "shop").ResourceVersion).To(Equal(rv))
		Expect(getConfigMap(Default, ns, "ossie-shop").ResourceVersion).To(Equal(cmRV))
		slices.Sort(durations)
		AddReportEntry("no-op reconcile of the unchanged shop model, warm PostgreSQL engine",
			fmt.Sprintf("p50 %s, p90 %s, max %s over %d passes; 0 API writes",
				durations[n/2].Round(10*time.Microsecond), durations[n*9/10].Round(10*time.Microsecond), durations[n-1].Round(10*time.Microsecond), n),
			ReportEntryVisibilityAlways)
	})

	It("with an invalid change, lists every problem and keeps serving the old version", func() {
		sm := getModel(Default, ns, "shop")
		// Two independent mistakes in one edit: a relationship to a
		// dataset that does not exist, a metric over a dataset that does not
		// (a column that is no field is only a warning, checked at bind time).
		sm.Spec.SemanticModel[0].Relationships[0].To = "customers"
		sm.Spec.SemanticModel[0].Metrics[0].Expression.Dialects[0].Expression = "SUM(orders_typo.amount)"
		Expect(k8s.Update(suiteCtx, sm)).To(Succeed())
		Expect(sm.Generation).To(Equal(int64(2)))

		sm = eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, map[string]cond{
				v1alpha1.ConditionValidated: {metav1.ConditionFalse, v1alpha1.ReasonValidationFailed},
				v1alpha1.ConditionPublished: {metav1.ConditionFalse, v1alpha1.ReasonBlocked},
				v1alpha1.ConditionReady:     {metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing},
			})
		})
		var codes []string
		for _, p := range sm.Status.Problems {
			if p.Severity == "error" {
				codes = append(codes, p.Code+" "+p.Path)
			}
		}
		Expect(codes).To(ConsistOf(
			"OSS2002 semantic_model[0].relationships[0].to",
			"OSS2009 semantic_model[0].metrics[0].expression.dialects[0].expression",
		), "status.problems: every problem of the edit")
		msg := findCondition(sm, v1alpha1.ConditionValidated).Message
		Expect(msg).To(ContainSubstring("customers"))
		Expect(msg).To(ContainSubstring("orders_typo"))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(sm.Status.AttemptedVersion).To(BeEmpty())

		// The ConfigMap and the server keep the last good version.
		cm := expectPublishedConfigMap(Default, sm, model)
		Expect(cm.ResourceVersion).To(Equal(cmRV))
		Expect(sm.UID).To(Equal(smUID))
		Expect(expectAnswer(Default, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))

		// Not retried until the spec changes: later passes write nothing.
		settle(mainOp, ns, "shop")
		sm = getModel(Default, ns, "shop")
		writes = mainOp.api.writesIn(ns)
		rv := sm.ResourceVersion
		waitPasses(mainOp, ns, "shop", mainOp.api.passesOf(ns, "shop"), 2)
		Expect(mainOp.api.writesIn(ns)).To(Equal(writes))
		Expect(getModel(Default, ns, "shop").ResourceVersion).To(Equal(rv))
		status, _, _ := queryServer(model, totalsQuery)
		Expect(status).To(Equal(http.StatusOK))
	})
})

func findCondition(sm *v1alpha1.SemanticModel, typ string) metav1.Condition {
	GinkgoHelper()
	for _, c := range sm.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	Fail("condition " + typ + " missing")
	return metav1.Condition{}
}
