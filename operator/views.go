package operator

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// views owns ViewsReady and status.views. Creating governed views
// (`CREATE OR REPLACE VIEW` in Options.ViewSchema, dropping removed ones,
// finalizer on delete; DESIGN.md section 4) lands with the governance work;
// until then a spec without views is ViewsReady=True (NoViews) and a spec
// declaring views says plainly that they are not created
// (ViewsReady=Unknown, ViewsNotSupported), which keeps Ready False rather
// than claiming views that do not exist.
func (r *Reconciler) views(_ context.Context, p *pass) {
	p.status.Views = nil
	if len(p.sm.Spec.Views) == 0 {
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonNoViews, "the spec declares no views")
		return
	}
	p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionUnknown, v1alpha1.ReasonViewsNotSupported,
		fmt.Sprintf("the spec declares %d view(s); this operator release does not create views yet", len(p.sm.Spec.Views)))
}
