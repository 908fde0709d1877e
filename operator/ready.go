package operator

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// ready owns Ready, the summary:
//
//	True  Ready             the current spec is published, bound without
//	                        drift, and its views exist.
//	False LastGoodServing   the current spec is not published (invalid,
//	                        drifted, engine unavailable, too large, name
//	                        conflict); an older version keeps serving.
//	False NotPublished      the current spec is not published and nothing
//	                        older is either.
//	False Drift / EngineUnavailable / ViewsNotReady
//	                        the current version is published, but the
//	                        engine lacks objects it reads, cannot be asked,
//	                        or its views are missing.
//
// The message names the condition that failed.
func (r *Reconciler) ready(_ context.Context, p *pass) {
	cause := firstFailure(p)
	switch {
	case p.published && cause == "":
		p.setCondition(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady,
			"version "+p.status.PublishedVersion+" is published and bound")
	case p.published:
		reason := v1alpha1.ReasonViewsNotReady
		if p.drift {
			reason = v1alpha1.ReasonDrift
		} else if p.engineErr != nil {
			reason = v1alpha1.ReasonEngineUnavailable
		}
		p.setCondition(v1alpha1.ConditionReady, metav1.ConditionFalse, reason,
			fmt.Sprintf("version %s is published but %s", p.status.PublishedVersion, cause))
	case p.status.PublishedVersion != "":
		p.setCondition(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing,
			fmt.Sprintf("the current spec is not published: %s; version %s keeps serving", cause, p.status.PublishedVersion))
	default:
		p.setCondition(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNotPublished,
			"the current spec is not published: "+cause)
	}
}

// firstFailure describes the first step condition that is not in its good
// state, as "<Type> is <Status> (<Reason>)"; "" when all are good.
func firstFailure(p *pass) string {
	good := []struct {
		typ  string
		want metav1.ConditionStatus
	}{
		{v1alpha1.ConditionValidated, metav1.ConditionTrue},
		{v1alpha1.ConditionCompiled, metav1.ConditionTrue},
		{v1alpha1.ConditionDriftDetected, metav1.ConditionFalse},
		{v1alpha1.ConditionPublished, metav1.ConditionTrue},
		{v1alpha1.ConditionViewsReady, metav1.ConditionTrue},
	}
	for _, g := range good {
		c := meta.FindStatusCondition(p.status.Conditions, g.typ)
		if c == nil {
			return g.typ + " is not set"
		}
		if c.Status != g.want {
			return fmt.Sprintf("%s is %s (%s)", g.typ, c.Status, c.Reason)
		}
	}
	return ""
}
