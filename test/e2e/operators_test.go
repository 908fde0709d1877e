package e2e_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
)

// operatorConfig is one operator "process": a controller-runtime manager
// with its own engine connection, cache and API client, set up as
// cmd/operator sets it up.
type operatorConfig struct {
	name       string
	namespaces []string // watched; the first also holds the leader Lease
	opts       operator.Options
	resync     time.Duration
	// leaderElectionID turns leader election on with that Lease name.
	leaderElectionID string
	// global uses operator.Setup (metrics on controller-runtime's
	// registry, as cmd/operator does). Only one instance per process may:
	// the others get a registry of their own.
	global bool
}

// operatorInstance is a running operator.
type operatorInstance struct {
	cfg     operatorConfig
	api     *apiCounter
	rec     *operator.Reconciler
	metrics prometheus.Gatherer
	mgr     ctrl.Manager
	eng     *countingEngine
	cancel  context.CancelFunc
	done    chan error
	stopped bool
}

// Leader election timing for the restart scenario: fast enough that a
// released Lease is taken within a second.
var (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 300 * time.Millisecond
)

// startOperator starts an operator and returns once its manager runs
// (leadership may come later; see Elected).
func startOperator(c operatorConfig) *operatorInstance {
	GinkgoHelper()
	pgEngine, err := postgres.Open(suiteCtx, postgres.Config{DSN: pgDSN, ConnectTimeout: 2 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	eng := &countingEngine{Engine: pgEngine, describes: map[string]int{}}
	o := &operatorInstance{cfg: c, api: newAPICounter(), eng: eng, done: make(chan error, 1)}
	skipNameValidation := true // several managers run the "semanticmodel" controller in one process
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         operator.CacheOptions(c.namespaces, c.resync),
		NewClient:                     o.api.newClient,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		Controller:                    config.Controller{SkipNameValidation: &skipNameValidation},
		LeaderElection:                c.leaderElectionID != "",
		LeaderElectionID:              c.leaderElectionID,
		LeaderElectionNamespace:       c.namespaces[0],
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
	})
	Expect(err).NotTo(HaveOccurred())
	o.mgr = mgr
	if c.global {
		o.rec, err = operator.Setup(mgr, eng, c.opts)
		Expect(err).NotTo(HaveOccurred())
		o.metrics = ctrlmetrics.Registry
	} else {
		reg := prometheus.NewRegistry()
		m, err := operator.NewMetrics(reg)
		Expect(err).NotTo(HaveOccurred())
		o.rec = operator.New(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetScheme(), eng, mgr.GetEventRecorder(operator.FieldManager), m, c.opts)
		Expect(o.rec.SetupWithManager(mgr)).To(Succeed())
		o.metrics = reg
	}
	ctx, cancel := context.WithCancel(suiteCtx)
	o.cancel = cancel
	go func() {
		defer GinkgoRecover()
		o.done <- mgr.Start(ctx)
	}()
	return o
}

// stop cancels the manager (releasing its Lease) and waits for it to end.
func (o *operatorInstance) stop() {
	GinkgoHelper()
	if o.stopped {
		return
	}
	o.stopped = true
	o.cancel()
	var err error
	Eventually(o.done).Should(Receive(&err), "operator %s did not stop", o.cfg.name)
	Expect(err).NotTo(HaveOccurred(), "operator %s", o.cfg.name)
	_ = o.eng.Close()
}

// apiCounter wraps a manager's client and counts what the operator does
// through it: every write (create, update, patch, apply, delete, on
// objects and subresources) per namespace, and every read of a
// SemanticModel per model, which is one per reconcile pass (the pass
// starts by reading its model).
type apiCounter struct {
	mu     sync.Mutex
	writes map[string][]string // namespace → "verb Kind/name"
	passes map[string]int      // "namespace/name" → SemanticModel reads
}

func newAPICounter() *apiCounter {
	return &apiCounter{writes: map[string][]string{}, passes: map[string]int{}}
}

// newClient is a client.NewClientFunc: the manager's usual client (reads
// from its cache) behind the counting interceptor.
func (a *apiCounter) newClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, opts)
	if err != nil {
		return nil, err
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*v1alpha1.SemanticModel); ok {
				a.mu.Lock()
				a.passes[key.String()]++
				a.mu.Unlock()
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			a.wrote("create", obj)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			a.wrote("update", obj)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			a.wrote("patch", obj)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			a.wroteIn("", "apply (server-side)")
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			a.wrote("delete", obj)
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			a.wroteIn("", fmt.Sprintf("deleteAllOf %T", obj))
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			a.wrote(sub+" create", obj)
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			a.wrote(sub+" update", obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			a.wrote(sub+" patch", obj)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			a.wroteIn("", sub+" apply (server-side)")
			return c.SubResource(sub).Apply(ctx, obj, opts...)
		},
	}), nil
}

func (a *apiCounter) wrote(verb string, obj client.Object) {
	a.wroteIn(obj.GetNamespace(), fmt.Sprintf("%s %T %s", verb, obj, obj.GetName()))
}

func (a *apiCounter) wroteIn(ns, what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.writes[ns] = append(a.writes[ns], what)
}

// writesIn returns the writes made so far in namespace ns. Writes whose
// namespace is unknown (server-side apply, deleteAllOf) are included too,
// so they can never hide.
func (a *apiCounter) writesIn(ns string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append(append([]string(nil), a.writes[ns]...), a.writes[""]...)
}

// allWrites returns every write the operator made, sorted.
func (a *apiCounter) allWrites() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, w := range a.writes {
		out = append(out, w...)
	}
	sort.Strings(out)
	return out
}

// passesOf returns how many reconcile passes read model ns/name.
func (a *apiCounter) passesOf(ns, name string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.passes[client.ObjectKey{Namespace: ns, Name: name}.String()]
}

// elected reports whether o holds leadership (always, without election).
func (o *operatorInstance) elected() bool {
	select {
	case <-o.mgr.Elected():
		return true
	default:
		return false
	}
}

// countingEngine is the PostgreSQL engine of an operator, counting what
// the operator asks of it: Describe per table path, and statements.
type countingEngine struct {
	*postgres.Engine
	mu        sync.Mutex
	describes map[string]int // "schema.table" → calls
	stmts     int            // Query and Exec calls
}

func (e *countingEngine) Describe(ctx context.Context, table []string) ([]engine.Column, error) {
	e.mu.Lock()
	e.describes[strings.Join(table, ".")]++
	e.mu.Unlock()
	return e.Engine.Describe(ctx, table)
}

func (e *countingEngine) Query(ctx context.Context, sql string, maxRows int) (*engine.Result, error) {
	e.mu.Lock()
	e.stmts++
	e.mu.Unlock()
	return e.Engine.Query(ctx, sql, maxRows)
}

func (e *countingEngine) Exec(ctx context.Context, sql string) error {
	e.mu.Lock()
	e.stmts++
	e.mu.Unlock()
	return e.Engine.Exec(ctx, sql)
}

// calls returns the Describe calls on tables under schema and the
// statements run so far.
func (e *countingEngine) calls(schema string) (describes, stmts int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for t, n := range e.describes {
		if strings.HasPrefix(t, schema+".") {
			describes += n
		}
	}
	return describes, e.stmts
}
