package operator

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Event reasons. Events are emitted on transitions only, never on a pass
// that changes nothing, so a healthy model produces no event traffic.
const (
	EventPublished         = "Published"         // Normal: a new version is in the ConfigMap
	EventDriftDetected     = "DriftDetected"     // Warning: DriftDetected turned True
	EventRecovered         = "Recovered"         // Normal: drift or an engine outage cleared
	EventEngineUnavailable = "EngineUnavailable" // Warning: the engine stopped answering
	EventValidationFailed  = "ValidationFailed"  // Warning: a new spec is invalid
	EventArtifactTooLarge  = "ArtifactTooLarge"  // Warning: publication refused for size
	EventNameConflict      = "NameConflict"      // Warning: our ConfigMap name or a view name is taken
	EventViewsApplied      = "ViewsApplied"      // Normal: views were created, replaced or dropped
	EventViewFailed        = "ViewFailed"        // Warning: the engine refused a view's DDL
	EventRollupsBuilt      = "RollupsBuilt"      // Normal: rollup tables were built, refreshed or dropped
	EventRollupFailed      = "RollupFailed"      // Warning: a rollup build failed (the old table stays)
)

// emitTransitions compares the status before and after a pass and records
// one event per transition (Published: each ConfigMap write). Notes are capped to the events.k8s.io limit;
// they hold condition messages, which never contain credentials.
func (r *Reconciler) emitTransitions(p *pass) {
	if r.Recorder == nil {
		return
	}
	sm, before, after := p.sm, &p.sm.Status, &p.status
	emit := func(typ, reason, action, note string) {
		r.Recorder.Eventf(sm, nil, typ, reason, action, "%s", capMessage(note, maxEventNote))
	}
	oldC := func(t string) *metav1.Condition { return meta.FindStatusCondition(before.Conditions, t) }
	newC := func(t string) *metav1.Condition { return meta.FindStatusCondition(after.Conditions, t) }

	if v := newC(v1alpha1.ConditionValidated); v != nil && v.Status == metav1.ConditionFalse {
		if o := oldC(v1alpha1.ConditionValidated); o == nil || o.Status != metav1.ConditionFalse || before.ObservedGeneration != after.ObservedGeneration {
			emit(corev1.EventTypeWarning, EventValidationFailed, "Validate", v.Message)
		}
	}

	o, d := oldC(v1alpha1.ConditionDriftDetected), newC(v1alpha1.ConditionDriftDetected)
	if d != nil {
		switch {
		case d.Status == metav1.ConditionTrue && (o == nil || o.Status != metav1.ConditionTrue):
			emit(corev1.EventTypeWarning, EventDriftDetected, "CheckDrift", d.Message)
		case d.Reason == v1alpha1.ReasonEngineUnavailable && (o == nil || o.Reason != v1alpha1.ReasonEngineUnavailable):
			emit(corev1.EventTypeWarning, EventEngineUnavailable, "CheckDrift", d.Message)
		case d.Status == metav1.ConditionFalse && o != nil &&
			(o.Status == metav1.ConditionTrue || o.Reason == v1alpha1.ReasonEngineUnavailable):
			emit(corev1.EventTypeNormal, EventRecovered, "CheckDrift", d.Message)
		}
	}

	if pub := newC(v1alpha1.ConditionPublished); pub != nil && pub.Status == metav1.ConditionFalse &&
		(pub.Reason == v1alpha1.ReasonArtifactTooLarge || pub.Reason == v1alpha1.ReasonNameConflict) {
		if op := oldC(v1alpha1.ConditionPublished); op == nil || op.Reason != pub.Reason {
			emit(corev1.EventTypeWarning, pub.Reason, "Publish", pub.Message)
		}
	}
	if v := newC(v1alpha1.ConditionViewsReady); v != nil && v.Status == metav1.ConditionFalse &&
		(v.Reason == v1alpha1.ReasonNameConflict || v.Reason == v1alpha1.ReasonViewFailed) {
		if ov := oldC(v1alpha1.ConditionViewsReady); ov == nil || ov.Reason != v.Reason || ov.Message != v.Message {
			emit(corev1.EventTypeWarning, v.Reason, "ApplyViews", v.Message)
		}
	}
	if v := newC(v1alpha1.ConditionRollupsReady); v != nil && v.Reason == v1alpha1.ReasonRollupFailed {
		if ov := oldC(v1alpha1.ConditionRollupsReady); ov == nil || ov.Reason != v.Reason || ov.Message != v.Message {
			emit(corev1.EventTypeWarning, EventRollupFailed, "BuildRollups", v.Message)
		}
	}
	if len(p.rollupsChanged) > 0 {
		emit(corev1.EventTypeNormal, EventRollupsBuilt, "BuildRollups", strings.Join(p.rollupsChanged, "; "))
	}
	if len(p.viewsChanged) > 0 {
		emit(corev1.EventTypeNormal, EventViewsApplied, "ApplyViews", viewsChangedNote(p.viewsChanged))
	}
	if p.wrote {
		emit(corev1.EventTypeNormal, EventPublished, "Publish", "published version "+after.PublishedVersion+" in ConfigMap "+v1alpha1.ConfigMapName(sm.Name))
	}
}
