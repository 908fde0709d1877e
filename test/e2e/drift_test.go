package e2e_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Scenario 4: a column the model reads disappears from PostgreSQL.
var _ = Describe("drift in the engine", Ordered, func() {
	const (
		ns     = nsDrift
		model  = "shop_drift"
		schema = "s_drift"
	)
	var (
		v1   string
		cmRV string
		gen  int64
		meta metav1.ObjectMeta
	)
	restoreRegion := `ALTER TABLE s_drift.orders ADD COLUMN region VARCHAR;
UPDATE s_drift.orders SET region = CASE order_id WHEN 2 THEN 'EMEA' ELSE 'NA' END;`

	BeforeAll(func() {
		createShopTables(schema)
		newShop(ns, model, schema).create()
		sm := waitReady(ns, "shop")
		v1, gen, meta = sm.Status.PublishedVersion, sm.Generation, sm.ObjectMeta
		cmRV = expectPublishedConfigMap(Default, sm, model).ResourceVersion
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
		}).Should(Succeed())
	})

	It("a dropped column is DriftDetected=True naming it, and the old version keeps serving", func() {
		execSQL(`ALTER TABLE s_drift.orders DROP COLUMN region`)
		sm := eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, with(readyConditions, map[string]cond{
				v1alpha1.ConditionDriftDetected: {metav1.ConditionTrue, v1alpha1.ReasonDrift},
				v1alpha1.ConditionReady:         {metav1.ConditionFalse, v1alpha1.ReasonDrift},
			}))
		})
		Expect(findCondition(sm, v1alpha1.ConditionDriftDetected).Message).To(ContainSubstring(`"region"`))
		Expect(sm.Status.Bindings).To(ContainElement(v1alpha1.Binding{
			Dataset: "orders", Model: model, Table: schema + ".orders", Columns: 3, Missing: []string{schema + ".orders.region"},
		}))
		Expect(sm.Generation).To(Equal(gen))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(expectPublishedConfigMap(Default, sm, model).ResourceVersion).To(Equal(cmRV))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("DriftDetected"))

		// The published version answers what the engine still has.
		Expect(expectAnswer(Default, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(v1))
	})

	It("recovers once the column is back, without any change to the resource", func() {
		execSQL(restoreRegion)
		sm := waitReady(ns, "shop")
		Expect(sm.Generation).To(Equal(gen))
		Expect(sm.Annotations).To(Equal(meta.Annotations), "the resource was not touched")
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(expectPublishedConfigMap(Default, sm, model).ResourceVersion).To(Equal(cmRV))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("Recovered"))
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
		}).Should(Succeed())
	})

	It("blocks publication of a new spec while drifted, and publishes it after recovery", func() {
		execSQL(`ALTER TABLE s_drift.orders DROP COLUMN region`)
		sm := getModel(Default, ns, "shop")
		sm.Spec.SemanticModel[0].Description = "Orders and their lines, version 2"
		Expect(k8s.Update(suiteCtx, sm)).To(Succeed())

		sm = eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, with(readyConditions, map[string]cond{
				v1alpha1.ConditionDriftDetected: {metav1.ConditionTrue, v1alpha1.ReasonDrift},
				v1alpha1.ConditionPublished:     {metav1.ConditionFalse, v1alpha1.ReasonBlocked},
				v1alpha1.ConditionReady:         {metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing},
			}))
		})
		v2 := sm.Status.AttemptedVersion
		Expect(v2).NotTo(Or(BeEmpty(), Equal(v1)))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(expectPublishedConfigMap(Default, sm, model).ResourceVersion).To(Equal(cmRV))
		Consistently(func() string { v, _ := servedVersion(model); return v }).Should(Equal(v1))

		execSQL(restoreRegion)
		sm = waitReady(ns, "shop")
		Expect(sm.Status.PublishedVersion).To(Equal(v2))
		expectPublishedConfigMap(Default, sm, model)
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v2))
		}).Should(Succeed())
	})
})

// Scenario 5: PostgreSQL stops. That is not drift.
var _ = Describe("the engine going away", Ordered, func() {
	const (
		ns     = nsEngine
		model  = "shop_engine"
		schema = "s_engine"
	)
	var (
		v1  string
		gen int64
		ann map[string]string
	)

	BeforeAll(func() {
		createShopTables(schema)
		newShop(ns, model, schema).create()
		sm := waitReady(ns, "shop")
		v1, gen, ann = sm.Status.PublishedVersion, sm.Generation, sm.Annotations
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
		}).Should(Succeed())
	})

	It("is EngineUnavailable, never drift, while PostgreSQL is stopped", func() {
		Expect(pg.StopServer()).To(Succeed())
		// Whatever happens below, later specs need PostgreSQL back.
		DeferCleanup(func() { Expect(pg.StartServer()).To(Succeed()) })

		sm := eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, with(readyConditions, map[string]cond{
				v1alpha1.ConditionDriftDetected: {metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable},
				v1alpha1.ConditionReady:         {metav1.ConditionFalse, v1alpha1.ReasonEngineUnavailable},
				// kstatus: still in progress (retried), not stalled.
				v1alpha1.ConditionReconciling: {metav1.ConditionTrue, v1alpha1.ReasonEngineUnavailable},
			}))
			g.Expect(meta.FindStatusCondition(sm.Status.Conditions, v1alpha1.ConditionStalled)).To(BeNil(), "Stalled while retrying")
		})
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(sm.Status.Bindings).To(HaveLen(2), "bindings are kept while the engine cannot be asked")
		// Retried with backoff, and never a false alarm.
		Consistently(func(g Gomega) {
			sm := getModel(g, ns, "shop")
			c := findCondition(sm, v1alpha1.ConditionDriftDetected)
			g.Expect(c.Status).NotTo(Equal(metav1.ConditionTrue), "drift reported while the engine is down: %s", c.Message)
			g.Expect(c.Reason).To(Equal(v1alpha1.ReasonEngineUnavailable))
		}).Should(Succeed())
		Expect(eventsAbout(ns, "shop")).To(And(ContainElement("EngineUnavailable"), Not(ContainElement("DriftDetected"))))

		// The server keeps the model but cannot answer.
		status, _, prob := queryServer(model, totalsQuery)
		Expect(status).To(BeNumerically(">=", 500), "%+v", prob)
	})

	It("recovers when PostgreSQL is back, with no change to the resource", func() {
		Expect(pg.StartServer()).To(Succeed())
		sm := waitReady(ns, "shop")
		Expect(sm.Generation).To(Equal(gen))
		Expect(sm.Annotations).To(Equal(ann))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("Recovered"))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		expectPublishedConfigMap(Default, sm, model)
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
		}).Should(Succeed())
		status, _, _ := queryServer(model, totalsQuery)
		Expect(status).To(Equal(http.StatusOK))

		// Every other model of the operator was cut off too; all recover
		// (and later specs start from a quiet operator).
		for _, other := range mainNamespaces {
			var list v1alpha1.SemanticModelList
			Expect(k8s.List(suiteCtx, &list, client.InNamespace(other))).To(Succeed())
			for _, m := range list.Items {
				eventuallyModel(other, m.Name, func(g Gomega, sm *v1alpha1.SemanticModel) {
					c := findCondition(sm, v1alpha1.ConditionDriftDetected)
					g.Expect(c.Reason).NotTo(Equal(v1alpha1.ReasonEngineUnavailable), "%s/%s", other, m.Name)
				})
			}
		}
	})
})
