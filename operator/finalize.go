package operator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
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
func (r *Reconciler) finalize(ctx context.Context, sm *v1alpha1.SemanticModel) (ctrl.Result, error) {
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
