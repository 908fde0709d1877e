package operator

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// publish owns Published and status.publishedVersion. It writes the
// current bundle to the ConfigMap of the contract in api/v1alpha1/labels.go
// when, and only when, the spec is valid, compiled and bound without drift,
// and the ConfigMap's content differs (bundle bytes, our labels, our
// annotation, controller reference): an unchanged model causes no write.
//
// publishedVersion is read from the ConfigMap this SemanticModel controls,
// so it changes only when the operator writes one (and is cleared if the
// ConfigMap is removed by someone else). The ConfigMap is never touched when:
//   - another owner holds the name: Published=False, NameConflict;
//   - the bundle exceeds Options.MaxArtifactBytes compressed:
//     Published=False, ArtifactTooLarge;
//   - an earlier step failed: Published=False, Blocked (or True when the
//     ConfigMap already holds this very version).
//
// In every case the version already published keeps serving. The model
// holds v1alpha1.FinalizerArtifact from before its ConfigMap is first
// written, so deleting the model deletes the ConfigMap (finalize) even
// where no garbage collector runs. A ConfigMap left controlled by a
// deleted SemanticModel of the same name (one removed before that
// finalizer existed, or whose finalizer was removed by hand) is taken
// over, not a NameConflict: no other object can hold that name.
func (r *Reconciler) publish(ctx context.Context, p *pass) {
	cm, owned, err := r.loadConfigMap(ctx, p)
	if err != nil {
		p.apiErr = err
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionUnknown, v1alpha1.ReasonPublishFailed, "cannot read ConfigMap "+p.cmName+": "+err.Error())
		return
	}
	if cm != nil && !owned {
		p.status.PublishedVersion = ""
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonNameConflict,
			fmt.Sprintf("ConfigMap %s exists and is not controlled by this SemanticModel; it is left untouched: delete or rename it to publish", p.cmName))
		return
	}
	if cm != nil && !controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerArtifact) {
		if err := r.setFinalizer(ctx, p.sm, v1alpha1.FinalizerArtifact, true); err != nil {
			p.apiErr = err
			p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionUnknown, v1alpha1.ReasonPublishFailed, "cannot add the finalizer "+v1alpha1.FinalizerArtifact+": "+err.Error())
			return
		}
	}
	p.status.PublishedVersion = ""
	if cm != nil && metav1.IsControlledBy(cm, p.sm) {
		p.status.PublishedVersion = cm.Annotations[v1alpha1.AnnotationVersion]
	}

	if !p.bound {
		// Unbound, p.data lacks the engine's types that the published bundle
		// carries (compiler.WithEngineTypes), so the version alone says
		// whether the current spec is the one serving.
		if cm != nil && p.compiled && p.status.PublishedVersion == p.bundle.Version {
			p.published = true
			// Views and rollups follow what serves: the ConfigMap's bundle,
			// bound when it was written.
			if b, err := compiler.DecodeBundle(cm.BinaryData[v1alpha1.ArtifactKey], 0); err == nil && b.Version == p.bundle.Version {
				p.bundle = b
			}
			p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished,
				fmt.Sprintf("version %s is in ConfigMap %s", p.bundle.Version, p.cmName))
			return
		}
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked,
			fmt.Sprintf("the current spec is not published (%s); %s", blockedBy(p), p.lastGood()))
		return
	}
	if len(p.data) > r.Options.MaxArtifactBytes {
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonArtifactTooLarge,
			fmt.Sprintf("the artifact of version %s is %d bytes compressed, over the limit of %d bytes (--max-artifact-bytes); %s",
				p.bundle.Version, len(p.data), r.Options.MaxArtifactBytes, p.lastGood()))
		return
	}

	desired := r.desiredConfigMap(p, cm)
	if err := controllerutil.SetControllerReference(p.sm, desired, r.Scheme); err != nil {
		p.apiErr = err
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonPublishFailed, err.Error())
		return
	}
	switch {
	case cm == nil:
		// The cache may still hold a model that was just deleted; creating
		// its ConfigMap now would publish it again until the garbage
		// collector notices. Confirm the owner exists, reading around the
		// cache, before the one write that can resurrect it.
		if gone, gerr := r.ownerGone(ctx, p.sm); gerr == nil && gone {
			return
		}
		// The finalizer must be in place before the ConfigMap it deletes.
		if !controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerArtifact) {
			err = r.setFinalizer(ctx, p.sm, v1alpha1.FinalizerArtifact, true)
		}
		if err == nil {
			err = r.Client.Create(ctx, desired, client.FieldOwner(FieldManager))
		}
		p.wrote = err == nil
	case !sameContent(cm, desired):
		err = r.Client.Update(ctx, desired, client.FieldOwner(FieldManager))
		p.wrote = err == nil
	}
	if err != nil {
		p.apiErr = err
		p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonPublishFailed,
			fmt.Sprintf("cannot write ConfigMap %s: %v; %s", p.cmName, err, p.lastGood()))
		return
	}
	p.published = true
	p.status.PublishedVersion = p.bundle.Version
	p.setCondition(v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished,
		fmt.Sprintf("version %s is in ConfigMap %s", p.bundle.Version, p.cmName))
}

// ownerGone reports whether sm has been deleted (or replaced by a new
// object of the same name) according to the API server itself.
func (r *Reconciler) ownerGone(ctx context.Context, sm *v1alpha1.SemanticModel) (bool, error) {
	if r.APIReader == nil {
		return false, nil
	}
	live := &v1alpha1.SemanticModel{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(sm), live)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return live.UID != sm.UID || !live.DeletionTimestamp.IsZero(), nil
}

// loadConfigMap returns the ConfigMap with our name, if any, and whether
// this SemanticModel controls it. The operator's cache holds only
// ConfigMaps it labelled, so a miss is confirmed with the API reader before
// creating: a foreign ConfigMap must be detected, not clobbered.
func (r *Reconciler) loadConfigMap(ctx context.Context, p *pass) (*corev1.ConfigMap, bool, error) {
	key := client.ObjectKey{Namespace: p.sm.Namespace, Name: p.cmName}
	cm := &corev1.ConfigMap{}
	err := r.Client.Get(ctx, key, cm)
	if apierrors.IsNotFound(err) && r.APIReader != nil {
		err = r.APIReader.Get(ctx, key, cm)
	}
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return cm, metav1.IsControlledBy(cm, p.sm) || staleOwner(cm, p.sm) != nil, nil
}

// staleOwner returns cm's controller reference when it names a
// SemanticModel called like sm with another UID, on a ConfigMap this
// operator labelled: that controller was deleted (two live objects never
// share a namespace and name) and its ConfigMap was never cleaned up.
func staleOwner(cm *corev1.ConfigMap, sm *v1alpha1.SemanticModel) *metav1.OwnerReference {
	ref := metav1.GetControllerOf(cm)
	if ref == nil || cm.Labels[v1alpha1.LabelManagedBy] != v1alpha1.ManagedByOperator ||
		ref.Kind != "SemanticModel" || ref.APIVersion != v1alpha1.GroupVersion.String() ||
		ref.Name != sm.Name || ref.UID == sm.UID {
		return nil
	}
	return ref
}

// desiredConfigMap is the ConfigMap of the contract for the current bundle.
// Labels and annotations set by others (e.g. a GitOps tool) are kept; ours
// are overwritten; binaryData and data are ours alone (data holds only
// the rollup states the rollups step writes).
func (r *Reconciler) desiredConfigMap(p *pass, existing *corev1.ConfigMap) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	if existing != nil {
		cm = existing.DeepCopy()
		if stale := staleOwner(existing, p.sm); stale != nil {
			uid := stale.UID
			cm.OwnerReferences = slices.DeleteFunc(cm.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == uid })
		}
	} else {
		cm.Name, cm.Namespace = p.cmName, p.sm.Namespace
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	maps.Copy(cm.Labels, ourLabels(p))
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[v1alpha1.AnnotationVersion] = p.bundle.Version
	cm.Data = rollupData(existing) // the rollups step's
	cm.BinaryData = map[string][]byte{v1alpha1.ArtifactKey: p.data}
	return cm
}

func ourLabels(p *pass) map[string]string {
	return map[string]string{
		v1alpha1.LabelManagedBy: v1alpha1.ManagedByOperator,
		v1alpha1.LabelArtifact:  "true",
		v1alpha1.LabelModel:     v1alpha1.LabelValue(p.sm.Name),
		v1alpha1.LabelVersion:   v1alpha1.VersionLabel(p.bundle.Version),
	}
}

// sameContent compares what publish controls: binaryData, data, our labels
// and annotation, and the owner references (the controller reference).
func sameContent(have, want *corev1.ConfigMap) bool {
	if !maps.Equal(have.Data, want.Data) || len(have.BinaryData) != len(want.BinaryData) {
		return false
	}
	for k, v := range want.BinaryData {
		if !bytes.Equal(have.BinaryData[k], v) {
			return false
		}
	}
	if !maps.Equal(have.Labels, want.Labels) || !maps.Equal(have.Annotations, want.Annotations) {
		return false
	}
	if len(have.OwnerReferences) != len(want.OwnerReferences) {
		return false
	}
	for i := range want.OwnerReferences {
		a, b := have.OwnerReferences[i], want.OwnerReferences[i]
		if a.UID != b.UID || a.Kind != b.Kind || a.APIVersion != b.APIVersion || a.Name != b.Name ||
			!ptrEqual(a.Controller, b.Controller) || !ptrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion) {
			return false
		}
	}
	return true
}

func ptrEqual[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// blockedBy names the first failed step for messages.
func blockedBy(p *pass) string {
	switch {
	case !p.valid:
		return "the spec is not valid"
	case !p.compiled:
		return "the spec does not compile"
	case p.engineErr != nil:
		return "the engine is unavailable, bindings cannot be checked"
	case p.drift:
		return "drift: tables or columns the model reads are missing"
	}
	return "not bound"
}
