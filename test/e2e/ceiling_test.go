package e2e_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Scenario 6: an artifact over the size ceiling. An operator of its own
// runs with --max-artifact-bytes of 16 KiB: the shop model fits, the same
// model with 48 KiB of incompressible description does not.
var _ = Describe("an artifact over the size ceiling", Ordered, func() {
	const (
		ns      = nsCeiling
		model   = "shop_ceiling"
		schema  = "s_ceiling"
		ceiling = 16 << 10
	)
	var op *operatorInstance

	BeforeAll(func() {
		createShopTables(schema)
		opts := testOptions()
		opts.MaxArtifactBytes = ceiling
		op = startOperator(operatorConfig{name: "ceiling", namespaces: []string{ns}, opts: opts, resync: testResync})
		DeferCleanup(op.stop)
	})

	It("is refused with ArtifactTooLarge and the old version keeps serving", func() {
		newShop(ns, model, schema).create()
		sm := waitReady(ns, "shop")
		v1 := sm.Status.PublishedVersion
		cm := expectPublishedConfigMap(Default, sm, model)
		Expect(len(cm.BinaryData["artifact.json.gz"])).To(BeNumerically("<", ceiling), "precondition: the small model fits")
		Eventually(func(g Gomega) {
			g.Expect(expectAnswer(g, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
		}).Should(Succeed())

		noise := make([]byte, 24<<10)
		_, _ = rand.Read(noise)
		sm.Spec.SemanticModel[0].Description = hex.EncodeToString(noise) // 48 KiB of text that gzip cannot shrink below the ceiling
		Expect(k8s.Update(suiteCtx, sm)).To(Succeed())

		sm = eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, with(readyConditions, map[string]cond{
				v1alpha1.ConditionPublished: {metav1.ConditionFalse, v1alpha1.ReasonArtifactTooLarge},
				v1alpha1.ConditionReady:     {metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing},
			}))
		})
		Expect(findCondition(sm, v1alpha1.ConditionPublished).Message).To(ContainSubstring(fmt.Sprint(ceiling)))
		Expect(sm.Status.PublishedVersion).To(Equal(v1))
		Expect(sm.Status.AttemptedVersion).NotTo(Or(BeEmpty(), Equal(v1)))
		Eventually(func() []string { return eventsAbout(ns, "shop") }).Should(ContainElement("ArtifactTooLarge"))

		// The old ConfigMap stays as it was, across several passes, and
		// the server keeps answering with the old version.
		waitPasses(op, ns, "shop", op.api.passesOf(ns, "shop"), 2)
		Expect(expectPublishedConfigMap(Default, sm, model).ResourceVersion).To(Equal(cm.ResourceVersion))
		Expect(expectAnswer(Default, model, byRegionQuery, byRegionRows, byRegionSQL, schema)).To(Equal(v1))
	})
})
