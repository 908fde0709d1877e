package operator

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// reconcilePredicate lets through SemanticModel events that may change the
// outcome: creation, deletion (the deletion timestamp being set, which
// starts finalization), a new generation (spec change), a changed
// AnnotationReconcileRequest, and the periodic resync of the cache (an
// update whose old and new resourceVersion are equal). Status-only and
// other metadata writes, including the operator's own, are dropped.
func reconcilePredicate() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return true
			}
			return e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() ||
				e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
				e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero() ||
				e.ObjectOld.GetAnnotations()[v1alpha1.AnnotationReconcileRequest] != e.ObjectNew.GetAnnotations()[v1alpha1.AnnotationReconcileRequest]
		},
	}
}

// CacheOptions are the manager cache options the operator expects:
// namespaces limits the watch (empty: all namespaces), resync is the
// period after which every model is reconciled again (0: DefaultResync),
// and only ConfigMaps labelled managed-by=ossie-operator are cached, so the
// operator does not hold every ConfigMap of the cluster in memory.
func CacheOptions(namespaces []string, resync time.Duration) cache.Options {
	if resync <= 0 {
		resync = DefaultResync
	}
	o := cache.Options{
		SyncPeriod: &resync,
		ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{v1alpha1.LabelManagedBy: v1alpha1.ManagedByOperator})},
		},
	}
	if len(namespaces) > 0 {
		o.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			o.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return o
}
