package operator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine"
)

// finalize runs for a SemanticModel being deleted. Under
// viewReclaimPolicy delete (the default) it drops every view the model
// owns — those recorded in AnnotationViews and those in the view schema
// whose comment carries its uid — and only then removes FinalizerViews,
// letting the deletion complete; a view whose name is now held by
// something else is left alone. Under retain it removes the finalizer at
// once. While the engine cannot drop a view, the error is returned and
// the pass retried with backoff (the resource stays, Terminating; removing
// the finalizer by hand abandons the views).
//
// Rollup tables are caches, dropped under either policy: FinalizerRollups
// is removed once every table in the write schema whose comment carries
// the model's uid is gone.
//
// First of all the status says the model is going (Ready False and
// Reconciling True, reason Deleting), and the ConfigMap it controls is
// deleted (FinalizerArtifact), so the server stops serving the model
// before anything else is attempted.
func (r *Reconciler) finalize(ctx context.Context, sm *v1alpha1.SemanticModel) (ctrl.Result, error) {
	if err := r.markDeleting(ctx, sm); err != nil {
		return ctrl.Result{}, fmt.Errorf("write status of deleted model: %w", err)
	}
	if controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerArtifact) {
		if err := r.deleteConfigMap(ctx, sm); err != nil {
			return ctrl.Result{}, fmt.Errorf("delete ConfigMap of deleted model: %w", err)
		}
		if err := r.setFinalizer(ctx, sm, v1alpha1.FinalizerArtifact, false); err != nil {
			return ctrl.Result{}, fmt.Errorf("remove finalizer %s: %w", v1alpha1.FinalizerArtifact, err)
		}
		log.FromContext(ctx).Info("ConfigMap deleted", "configMap", v1alpha1.ConfigMapName(sm.Name))
	}
	if controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerRollups) {
		dropped, err := r.dropOwnedRollups(ctx, sm)
		if err != nil {
			if r.Recorder != nil {
				r.Recorder.Eventf(sm, nil, corev1.EventTypeWarning, EventRollupFailed, "Finalize", "%s",
					capMessage("cannot drop the rollup tables of the deleted model (retrying): "+err.Error(), maxEventNote))
			}
			return ctrl.Result{}, fmt.Errorf("drop rollup tables of deleted model: %w", err)
		}
		if err := r.setFinalizer(ctx, sm, v1alpha1.FinalizerRollups, false); err != nil {
			return ctrl.Result{}, fmt.Errorf("remove finalizer %s: %w", v1alpha1.FinalizerRollups, err)
		}
		log.FromContext(ctx).Info("rollup tables dropped", "dropped", dropped)
	}
	if !controllerutil.ContainsFinalizer(sm, v1alpha1.FinalizerViews) {
		return ctrl.Result{}, nil
	}
	var dropped []string
	if sm.Spec.ViewReclaimPolicy != v1alpha1.ViewReclaimRetain {
		var err error
		dropped, err = r.dropOwnedViews(ctx, sm)
		if err != nil {
			if r.Recorder != nil {
				r.Recorder.Eventf(sm, nil, corev1.EventTypeWarning, EventViewFailed, "Finalize", "%s",
					capMessage("cannot drop the views of the deleted model (retrying): "+err.Error(), maxEventNote))
			}
			return ctrl.Result{}, fmt.Errorf("drop views of deleted model: %w", err)
		}
	}
	if err := r.setViewMetadata(ctx, sm, nil, false); err != nil {
		return ctrl.Result{}, fmt.Errorf("remove finalizer %s: %w", v1alpha1.FinalizerViews, err)
	}
	log.FromContext(ctx).Info("views reclaimed", "policy", string(sm.Spec.ViewReclaimPolicy), "dropped", dropped)
	return ctrl.Result{}, nil
}

// markDeleting writes Ready False and Reconciling True (reason Deleting)
// and removes Stalled, unless the status already says so, so `kubectl get
// sm` and kstatus readers never show a model being deleted as Ready. A
// model already gone is no error.
func (r *Reconciler) markDeleting(ctx context.Context, sm *v1alpha1.SemanticModel) error {
	status := *sm.Status.DeepCopy()
	set := func(typ, msg string, st metav1.ConditionStatus) {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: typ, Status: st, Reason: v1alpha1.ReasonDeleting,
			Message: msg, ObservedGeneration: sm.Generation})
	}
	set(v1alpha1.ConditionReady, "the model is being deleted; its ConfigMap, views and rollup tables are being removed", metav1.ConditionFalse)
	set(v1alpha1.ConditionReconciling, "removing the ConfigMap, views and rollup tables of the deleted model", metav1.ConditionTrue)
	meta.RemoveStatusCondition(&status.Conditions, v1alpha1.ConditionStalled)
	// Deletion with finalizers bumps metadata.generation: the verdict is on it.
	status.ObservedGeneration = sm.Generation
	if equality.Semantic.DeepEqual(sm.Status, status) {
		return nil
	}
	if err := r.writeStatus(ctx, sm, status); err != nil {
		return client.IgnoreNotFound(err)
	}
	// The finalizer patches that follow are optimistic-locked: read the
	// resource version the status write produced, around the cache.
	return client.IgnoreNotFound(r.reader().Get(ctx, client.ObjectKeyFromObject(sm), sm))
}

// reader reads around the cache when an API reader is configured.
func (r *Reconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// deleteConfigMap deletes the ConfigMap sm controls, if any; one held by
// another owner is left alone.
func (r *Reconciler) deleteConfigMap(ctx context.Context, sm *v1alpha1.SemanticModel) error {
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: sm.Namespace, Name: v1alpha1.ConfigMapName(sm.Name)}
	if err := r.reader().Get(ctx, key, cm); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !metav1.IsControlledBy(cm, sm) {
		return nil
	}
	// Preconditions: delete exactly the ConfigMap just read as ours.
	err := r.Client.Delete(ctx, cm, client.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion})
	return client.IgnoreNotFound(err)
}

// dropOwnedViews drops the views sm owns and returns their names; the
// first failure ends it (the finalizer stays).
func (r *Reconciler) dropOwnedViews(ctx context.Context, sm *v1alpha1.SemanticModel) ([]string, error) {
	refs := recordedViews(sm)
	if r.Engine == nil {
		if len(refs) == 0 {
			return nil, nil
		}
		return nil, errors.New("no engine is configured")
	}
	viewer, ok := r.Engine.(engine.Viewer)
	if !ok {
		return nil, nil // it cannot have views
	}
	schemas := []string{}
	if r.Options.ViewSchema != "" {
		schemas = append(schemas, r.Options.ViewSchema)
	}
	for _, ref := range refs {
		if !slices.Contains(schemas, ref.Schema) {
			schemas = append(schemas, ref.Schema)
		}
	}
	q := r.Engine.Dialect().QuoteIdent
	var dropped []string
	for _, s := range schemas {
		path, err := engine.ViewSchemaPath(s)
		if err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, r.Options.EngineTimeout)
		rels, err := viewer.Relations(cctx, path)
		cancel()
		if err != nil {
			return dropped, fmt.Errorf("list views of %s: %s", engine.QuotePath(q, path...), engineMessage(err))
		}
		names := make([]string, 0, len(rels))
		for name := range rels {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			rel := rels[name]
			if o, ours := parseOwner(rel.Comment); !rel.View || !ours || !o.owns(sm) {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, r.Options.EngineTimeout)
			err := viewer.DropView(cctx, path, name)
			cancel()
			full := engine.QuotePath(q, append(slices.Clone(path), name)...)
			if err != nil {
				return dropped, fmt.Errorf("drop view %s: %s", full, engineMessage(err))
			}
			dropped = append(dropped, full)
		}
	}
	return dropped, nil
}

// dropOwnedRollups drops the rollup tables (and build tables left
// behind) of the write schema that sm built, and returns their names; the
// first failure ends it.
func (r *Reconciler) dropOwnedRollups(ctx context.Context, sm *v1alpha1.SemanticModel) ([]string, error) {
	mat, ok := r.Engine.(engine.Materializer)
	if !ok {
		return nil, nil // it cannot have rollup tables
	}
	path, err := engine.ViewSchemaPath(r.Options.ViewSchema)
	if err != nil {
		return nil, nil
	}
	d := r.Engine.Dialect()
	cctx, cancel := context.WithTimeout(ctx, r.Options.EngineTimeout)
	rels, err := mat.Relations(cctx, path)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %s", engine.QuotePath(d.QuoteIdent, path...), engineMessage(err))
	}
	var dropped []string
	for _, name := range slices.Sorted(maps.Keys(rels)) {
		rel := rels[name]
		if c, ok := parseRollupComment(rel.Comment); rel.View || !ok || !c.owner.owns(sm) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, r.Options.EngineTimeout)
		err := mat.DropTable(cctx, path, name)
		cancel()
		if err != nil {
			return dropped, fmt.Errorf("drop table %s: %s", engine.TablePath(d, path, name), engineMessage(err))
		}
		dropped = append(dropped, engine.TablePath(d, path, name))
	}
	return dropped, nil
}

// viewsChangedNote is the note of the ViewsApplied event.
func viewsChangedNote(changed []string) string {
	return strings.Join(changed, "; ")
}
