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

// Scenario 8: the model is deleted. envtest runs no garbage collector, so
// the suite asserts the ownerReference the collector would follow and then
// deletes the ConfigMap itself, as the collector would.
var _ = Describe("deleting a model", Ordered, func() {
	const (
		ns     = nsDelete
		model  = "shop_delete"
		schema = "s_delete"
	)

	BeforeAll(func() { createShopTables(schema) })

	It("leaves a ConfigMap owned by it for garbage collection, and the server stops serving the model", func() {
		newShop(ns, model, schema).create()
		sm := waitReady(ns, "shop")
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, totalsQuery, totalsRows, totalsSQL, schema)).To(Equal(sm.Status.PublishedVersion))
		}).Should(Succeed())

		Expect(k8s.Delete(suiteCtx, sm)).To(Succeed())
		Eventually(func() bool {
			err := k8s.Get(suiteCtx, clientKey(ns, "shop"), &v1alpha1.SemanticModel{})
			return apierrors.IsNotFound(err)
		}).Should(BeTrue(), "the SemanticModel is gone (no finalizer holds it)")
		// The collector acts once the owner is gone; by then the operator's
		// informer has normally seen the deletion too. Wait for that, so
		// the ConfigMap's deletion below is not reconciled against a cached
		// copy of the deleted model (which re-creates the ConfigMap with a
		// dangling owner; the collector would remove it again, envtest
		// has none).
		Eventually(func() bool {
			err := mainOp.mgr.GetCache().Get(suiteCtx, clientKey(ns, "shop"), &v1alpha1.SemanticModel{})
			return apierrors.IsNotFound(err)
		}).Should(BeTrue(), "the operator's cache has seen the deletion")

		// What the garbage collector acts on: a controller reference to the
		// deleted object's UID, with blockOwnerDeletion.
		cm := getConfigMap(Default, ns, "ossie-shop")
		Expect(cm).NotTo(BeNil())
		expectOwnedBy(Default, cm, sm)
		Expect(k8s.Delete(suiteCtx, cm)).To(Succeed())

		Eventually(func() string { _, code := servedVersion(model); return code }).Should(Equal("OSS5003"))
		status, _, prob := queryServer(model, byRegionQuery)
		Expect(status).To(Equal(http.StatusNotFound))
		Expect(prob.Code).To(Equal("OSS5003"))
		// The operator does not resurrect it.
		Consistently(func() *corev1.ConfigMap { return getConfigMap(Default, ns, "ossie-shop") }).Should(BeNil())
	})
})
