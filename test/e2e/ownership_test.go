package e2e_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Scenario 7: a ConfigMap with our name that someone else made.
var _ = Describe("a foreign ConfigMap with the model's name", Ordered, func() {
	const (
		ns     = nsConflict
		model  = "shop_conflict"
		schema = "s_conflict"
	)
	var foreign *corev1.ConfigMap

	BeforeAll(func() {
		createShopTables(schema)
		foreign = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "ossie-shop", Namespace: ns, Labels: map[string]string{"team": "someone-else"}},
			Data:       map[string]string{"owner": "someone else", "keep": "me"},
		}
		Expect(k8s.Create(suiteCtx, foreign)).To(Succeed())
	})

	It("is a NameConflict and stays untouched", func() {
		newShop(ns, model, schema).create()
		sm := eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, with(readyConditions, map[string]cond{
				v1alpha1.ConditionPublished: {metav1.ConditionFalse, v1alpha1.ReasonNameConflict},
				v1alpha1.ConditionReady:     {metav1.ConditionFalse, v1alpha1.ReasonNotPublished},
				// kstatus: it cannot progress until someone moves the ConfigMap.
				v1alpha1.ConditionStalled: {metav1.ConditionTrue, v1alpha1.ReasonNameConflict},
			}))
		})
		Expect(findCondition(sm, v1alpha1.ConditionPublished).Message).To(ContainSubstring("ossie-shop"))
		Expect(sm.Status.PublishedVersion).To(BeEmpty())
		Expect(sm.Status.AttemptedVersion).To(HavePrefix("sha256:"))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("NameConflict"))

		// Across several passes, the ConfigMap is exactly as its owner left it.
		waitPasses(mainOp, ns, "shop", mainOp.api.passesOf(ns, "shop"), 3)
		cm := getConfigMap(Default, ns, "ossie-shop")
		Expect(cm.ResourceVersion).To(Equal(foreign.ResourceVersion))
		Expect(cm.Data).To(Equal(foreign.Data))
		Expect(cm.Labels).To(Equal(foreign.Labels))
		Expect(cm.OwnerReferences).To(BeEmpty())
		Expect(cm.BinaryData).To(BeEmpty())
		Expect(mainOp.api.writesIn(ns)).NotTo(ContainElement(ContainSubstring("ConfigMap")), "the operator wrote a ConfigMap")

		_, code := servedVersion(model)
		Expect(code).To(Equal("OSS5003"), "nothing is served for the model")
	})

	It("publishes on its own once the foreign ConfigMap is gone", func() {
		Expect(k8s.Delete(suiteCtx, foreign)).To(Succeed())
		sm := waitReady(ns, "shop")
		expectPublishedConfigMap(Default, sm, model)
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(sm.Status.PublishedVersion))
		}).Should(Succeed())
	})
})

// Scenario 8: the model is deleted. envtest runs no garbage collector (nor
// does any bare kube-apiserver), so the ConfigMap goes only because the
// operator's finalizer deletes it (issue 25 item 4: it used to stay, the
// server kept serving the deleted model and re-applying it was a
// NameConflict).
var _ = Describe("deleting a model", Ordered, func() {
	const (
		ns     = nsDelete
		model  = "shop_delete"
		schema = "s_delete"
		// hold keeps the SemanticModel Terminating after the operator is
		// done, so the status it leaves can be read.
		hold = "e2e.ossie.dev/hold"
	)

	BeforeAll(func() { createShopTables(schema) })

	It("deletes its ConfigMap itself, is not Ready while deleting, and the server stops serving the model", func() {
		sm := newShop(ns, model, schema).create()
		sm = waitReady(ns, "shop")
		Expect(sm.Finalizers).To(ContainElement(v1alpha1.FinalizerArtifact))
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(sm.Status.PublishedVersion))
		}).Should(Succeed())

		setFinalizers := func(change func([]string) []string) {
			Eventually(func(g Gomega) {
				sm := getModel(g, ns, "shop")
				sm.Finalizers = change(sm.Finalizers)
				g.Expect(k8s.Update(suiteCtx, sm)).To(Succeed())
			}).Should(Succeed())
		}
		setFinalizers(func(f []string) []string { return append(f, hold) })
		Expect(k8s.Delete(suiteCtx, sm)).To(Succeed())

		Eventually(func() *corev1.ConfigMap { return getConfigMap(Default, ns, "ossie-shop") }).Should(BeNil(), "the finalizer deletes the ConfigMap")
		deleting := eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			g.Expect(sm.Finalizers).To(Equal([]string{hold}), "the operator's finalizers are removed")
			expectConditions(g, sm, map[string]cond{
				v1alpha1.ConditionReady:       {metav1.ConditionFalse, v1alpha1.ReasonDeleting},
				v1alpha1.ConditionReconciling: {metav1.ConditionTrue, v1alpha1.ReasonDeleting},
			})
		})
		Expect(findCondition(deleting, v1alpha1.ConditionReady).Message).To(ContainSubstring("being deleted"))
		Expect(kubectl("-n", ns, "get", "sm", "shop")).To(MatchRegexp(`(?m)^NAME\s+READY\s+REASON\s+VERSION\s+DRIFT\s+AGE\n+shop\s+False\s+Deleting\s`))

		Eventually(func() string { _, code := servedVersion(model); return code }).Should(Equal("OSS5003"))
		status, _, prob := queryServer(model, byRegionQuery)
		Expect(status).To(Equal(http.StatusNotFound))
		Expect(prob.Code).To(Equal("OSS5003"))

		setFinalizers(func([]string) []string { return nil })
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(suiteCtx, clientKey(ns, "shop"), &v1alpha1.SemanticModel{}))
		}).Should(BeTrue(), "the SemanticModel is gone")
		// The operator does not resurrect the ConfigMap.
		Consistently(func() *corev1.ConfigMap { return getConfigMap(Default, ns, "ossie-shop") }).Should(BeNil())
	})

	It("re-applied under the same name, publishes again and answers", func() {
		newShop(ns, model, schema).create()
		sm := waitReady(ns, "shop")
		expectPublishedConfigMap(Default, sm, model)
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(sm.Status.PublishedVersion))
		}).Should(Succeed())
	})

	It("takes over a ConfigMap a deleted model of the same name left behind", func() {
		sm := getModel(Default, ns, "shop")
		Expect(k8s.Delete(suiteCtx, sm)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(suiteCtx, clientKey(ns, "shop"), &v1alpha1.SemanticModel{}))
		}).Should(BeTrue())
		Expect(getConfigMap(Default, ns, "ossie-shop")).To(BeNil())

		// What an operator without the finalizer left where no garbage
		// collector runs: our labels, and a controller reference to a
		// SemanticModel "shop" that no longer exists.
		yes := true
		left := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "ossie-shop", Namespace: ns,
				Labels: map[string]string{"app.kubernetes.io/managed-by": "ossie-operator", "ossie.dev/artifact": "true", "ossie.dev/model": "shop"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "ossie.dev/v1alpha1", Kind: "SemanticModel", Name: "shop",
					UID: "00000000-0000-0000-0000-000000000001", Controller: &yes, BlockOwnerDeletion: &yes}}},
			BinaryData: map[string][]byte{"artifact.json.gz": []byte("stale")},
		}
		Expect(k8s.Create(suiteCtx, left)).To(Succeed())

		newShop(ns, model, schema).create()
		again := waitReady(ns, "shop")
		expectPublishedConfigMap(Default, again, model)
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(again.Status.PublishedVersion))
		}).Should(Succeed())
	})
})
