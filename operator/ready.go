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
	p.setProgress()
}

// setProgress sets Reconciling and Stalled from Ready the way kstatus
// (sigs.k8s.io/cli-utils/pkg/kstatus) and the Flux and Argo CD health
// checks built on it read them: both are "abnormal-true" conditions,
// present only while they hold.
//
//	Ready True                     neither (Current)
//	the engine or API server did   Reconciling True, EngineUnavailable or
//	not answer: retried with       Retrying (InProgress)
//	backoff
//	any other Ready False          Stalled True with the reason of the
//	                               first failing step (ValidationFailed,
//	                               Drift, NameConflict, ArtifactTooLarge,
//	                               ViewFailed, ...) and Ready's message
//	                               (Failed)
//
// observedGeneration on each is the generation the pass saw, so a reader
// can tell a verdict on an older spec from one on the current.
func (p *pass) setProgress() {
	ready := meta.FindStatusCondition(p.status.Conditions, v1alpha1.ConditionReady)
	switch {
	case ready.Status == metav1.ConditionTrue:
		meta.RemoveStatusCondition(&p.status.Conditions, v1alpha1.ConditionReconciling)
		meta.RemoveStatusCondition(&p.status.Conditions, v1alpha1.ConditionStalled)
	case p.engineErr != nil || p.apiErr != nil:
		reason := v1alpha1.ReasonRetrying
		if p.engineErr != nil {
			reason = v1alpha1.ReasonEngineUnavailable
		}
		p.setCondition(v1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, "retrying with backoff: "+ready.Message)
		meta.RemoveStatusCondition(&p.status.Conditions, v1alpha1.ConditionStalled)
	default:
		reason := ready.Reason
		if _, c := firstFailing(p); c != nil {
			reason = c.Reason
		}
		p.setCondition(v1alpha1.ConditionStalled, metav1.ConditionTrue, reason, ready.Message)
		meta.RemoveStatusCondition(&p.status.Conditions, v1alpha1.ConditionReconciling)
	}
}

// firstFailure describes the first step condition that is not in its good
// state, as "<Type> is <Status> (<Reason>)"; "" when all are good.
func firstFailure(p *pass) string {
	typ, c := firstFailing(p)
	switch {
	case typ == "":
		return ""
	case c == nil:
		return typ + " is not set"
	}
	return fmt.Sprintf("%s is %s (%s)", typ, c.Status, c.Reason)
}

// firstFailing returns the type of the first step condition that is not
// in its good state and the condition (nil when unset); "" when all are
// good.
func firstFailing(p *pass) (string, *metav1.Condition) {
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
		if c == nil || c.Status != g.want {
			return g.typ, c
		}
	}
	return "", nil
}
