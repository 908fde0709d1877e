package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/views"
	"github.com/ossie-dev/ossie/engine"
)

// Reconciler reconciles SemanticModel resources. Build it with New (or let
// Setup build it from a manager); the zero value is not usable.
type Reconciler struct {
	// Client reads SemanticModels and ConfigMaps (the manager's cache) and
	// writes ConfigMaps and status.
	Client client.Client
	// APIReader reads around the cache: the operator's cache holds only
	// ConfigMaps it labelled, so a foreign ConfigMap squatting on our name
	// is found here. Nil means Client sees everything.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Engine answers the drift check (Describe per dataset).
	Engine engine.Engine
	// Recorder emits events on condition transitions; nil emits none.
	Recorder events.EventRecorder
	// Metrics; nil records none.
	Metrics *Metrics
	Options Options
	// Clock tells the time for rollup refresh schedules; nil is time.Now.
	Clock func() time.Time
}

// New returns a Reconciler with opts defaulted.
func New(c client.Client, apiReader client.Reader, scheme *runtime.Scheme, eng engine.Engine, rec events.EventRecorder, m *Metrics, opts Options) *Reconciler {
	return &Reconciler{Client: c, APIReader: apiReader, Scheme: scheme, Engine: eng, Recorder: rec, Metrics: m, Options: opts.withDefaults()}
}

// Setup builds a Reconciler from mgr (cached client, API reader, event
// recorder, metrics registered with the controller-runtime registry) and
// registers it with mgr. The manager's cache should come from
// CacheOptions so that only the operator's ConfigMaps are cached.
func Setup(mgr ctrl.Manager, eng engine.Engine, opts Options) (*Reconciler, error) {
	m, err := NewMetrics(ctrlMetricsRegistry())
	if err != nil {
		return nil, err
	}
	r := New(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetScheme(), eng, mgr.GetEventRecorder(FieldManager), m, opts)
	return r, r.SetupWithManager(mgr)
}

// SetupWithManager watches SemanticModels (spec changes, the reconcile
// request annotation and periodic resyncs; not status-only writes) and the
// ConfigMaps they own. Retries back off exponentially from
// Options.BackoffBase to Options.BackoffMax.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	o := r.Options
	return ctrl.NewControllerManagedBy(mgr).
		Named("semanticmodel").
		For(&v1alpha1.SemanticModel{}, builder.WithPredicates(reconcilePredicate())).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: o.MaxConcurrentReconciles,
			RateLimiter:             workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](o.BackoffBase, o.BackoffMax),
		}).
		Complete(r)
}

// pass is the state of one reconcile pass, shared by the steps in order.
// Each step reads what earlier steps left and sets its own condition.
type pass struct {
	sm     *v1alpha1.SemanticModel
	status v1alpha1.SemanticModelStatus // being built; starts as a copy of sm.Status

	parsed    *compiler.Parsed
	valid     bool
	arts      []*compiler.Artifact // compiled while validating views; reused by compile
	viewPlans []views.Plan         // spec.views planned for the engine (valid specs only)
	compiled  bool
	bundle    *compiler.Bundle
	data      []byte // EncodeBundle(bundle)

	bound     bool  // the engine answered and nothing is missing
	engineErr error // the engine could not be asked (not drift)
	drift     bool

	cmName       string
	published    bool     // the ConfigMap holds the current bundle
	wrote        bool     // this pass created or updated the ConfigMap
	viewsChanged []string // view DDL run by this pass ("applied ...", "dropped ...")

	rollupsChanged []string      // rollup builds and drops of this pass
	requeue        time.Duration // the next scheduled rollup refresh; 0: none
	apiErr         error         // a Kubernetes API failure worth retrying
}

// step is one stage of the pipeline; it owns one condition.
type step func(r *Reconciler, ctx context.Context, p *pass)

// steps run in this order on every pass; each reads what the earlier ones
// left in the pass.
var steps = []step{
	(*Reconciler).validate,
	(*Reconciler).compile,
	(*Reconciler).bind,
	(*Reconciler).publish,
	(*Reconciler).views,
	(*Reconciler).rollups,
	(*Reconciler).ready,
}

// ErrEngineUnavailable is wrapped by the error Reconcile returns when the
// engine could not be asked, so controller-runtime retries the request
// with the rate limiter's exponential backoff. It is never drift.
var ErrEngineUnavailable = errors.New("engine unavailable")

// Reconcile runs the steps on one SemanticModel and writes its status when
// it changed. It is level-triggered: the outcome depends only on the spec,
// the engine and the ConfigMap as they are now. Errors (engine
// unavailable, API failures) are retried with backoff; an invalid or
// drifted spec is not an error (it is retried when the spec changes, on
// resync and, for drift, after Options.DriftRecheck).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	sm := &v1alpha1.SemanticModel{}
	if err := r.Client.Get(ctx, req.NamespacedName, sm); err != nil {
		if apierrors.IsNotFound(err) {
			// Its ConfigMap went before it (FinalizerArtifact); forget its series.
			r.Metrics.forget(req.Namespace, req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !sm.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, sm)
	}

	p := &pass{sm: sm, status: *sm.Status.DeepCopy(), cmName: v1alpha1.ConfigMapName(sm.Name)}
	for _, s := range steps {
		s(r, ctx, p)
	}
	p.status.ObservedGeneration = sm.Generation

	changed := !equality.Semantic.DeepEqual(sm.Status, p.status)
	if changed {
		if err := r.writeStatus(ctx, sm, p.status); err != nil {
			r.Metrics.observe(resultError, time.Since(start))
			return ctrl.Result{}, fmt.Errorf("write status: %w", err)
		}
	}
	r.emitTransitions(p)
	result := p.result()
	r.Metrics.record(sm, p, result, time.Since(start))
	log.FromContext(ctx).V(1).Info("reconciled", "result", result, "statusWritten", changed, "attemptedVersion", p.status.AttemptedVersion, "publishedVersion", p.status.PublishedVersion)

	switch {
	case p.apiErr != nil:
		return ctrl.Result{}, p.apiErr
	case p.engineErr != nil:
		// The engine's message is safe to log (engine.Error contract).
		return ctrl.Result{}, fmt.Errorf("%w: %v", ErrEngineUnavailable, p.engineErr)
	case p.drift && r.Options.DriftRecheck > 0 && (p.requeue == 0 || r.Options.DriftRecheck < p.requeue):
		return ctrl.Result{RequeueAfter: r.Options.DriftRecheck}, nil
	case p.requeue > 0:
		return ctrl.Result{RequeueAfter: p.requeue}, nil
	}
	return ctrl.Result{}, nil
}

// writeStatus stores status with one Update of the status subresource,
// refetching and retrying on a conflict. A newer generation arriving in
// between is fine: status says which generation it describes, and the new
// generation gets its own pass.
func (r *Reconciler) writeStatus(ctx context.Context, sm *v1alpha1.SemanticModel, status v1alpha1.SemanticModelStatus) error {
	obj := sm.DeepCopy()
	first := true
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			if err := r.Client.Get(ctx, client.ObjectKeyFromObject(sm), obj); err != nil {
				return err
			}
			if equality.Semantic.DeepEqual(obj.Status, status) {
				return nil
			}
		}
		first = false
		obj.Status = status
		return r.Client.Status().Update(ctx, obj, client.FieldOwner(FieldManager))
	})
}

// setCondition sets one condition for the current generation, keeping its
// lastTransitionTime when the status did not change.
func (p *pass) setCondition(typ string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&p.status.Conditions, metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            capMessage(message, maxConditionMessage),
		ObservedGeneration: p.sm.Generation,
	})
}

// lastGood says which published version keeps serving, for messages.
func (p *pass) lastGood() string {
	if p.status.PublishedVersion == "" {
		return "nothing is published"
	}
	return "version " + p.status.PublishedVersion + " keeps serving"
}

// Reconcile outcomes, the `result` label of the metrics.
const (
	resultReady             = "ready"
	resultInvalid           = "invalid"
	resultDrift             = "drift"
	resultEngineUnavailable = "engine_unavailable"
	resultNotReady          = "not_ready"
	resultError             = "error"
)

func (p *pass) result() string {
	switch {
	case p.apiErr != nil:
		return resultError
	case !p.valid || !p.compiled:
		return resultInvalid
	case p.engineErr != nil:
		return resultEngineUnavailable
	case p.drift:
		return resultDrift
	case meta.IsStatusConditionTrue(p.status.Conditions, v1alpha1.ConditionReady):
		return resultReady
	}
	return resultNotReady
}
