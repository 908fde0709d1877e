package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// KubeOptions configures WatchConfigMaps.
type KubeOptions struct {
	// Namespaces to watch; empty watches all namespaces (needs cluster-wide
	// list/watch on ConfigMaps; otherwise list/watch in each namespace).
	Namespaces []string
	// MaxBundleBytes bounds the uncompressed JSON of one bundle (0: the
	// compiler's default, 64 MiB), so a hostile ConfigMap cannot exhaust
	// memory through a gzip bomb.
	MaxBundleBytes int64
	// Logger receives loads, refusals and removals; nil discards.
	Logger *slog.Logger
}

// ConfigMapWatcher keeps a Store in step with the published artifact
// ConfigMaps (the contract in api/v1alpha1/labels.go: label
// ossie.dev/artifact=true, bundle in binaryData["artifact.json.gz"]) through client-go shared
// informers: every bundle in binaryData["artifact.json.gz"] is decoded and
// all its artifacts swapped in at once; a bundle that cannot be decoded or
// planned leaves the last good version serving (Store.Fail); a deleted
// ConfigMap takes its models with it.
type ConfigMapWatcher struct {
	store     *Store
	opts      KubeOptions
	log       *slog.Logger
	factories []informers.SharedInformerFactory
	regs      []cache.ResourceEventHandlerRegistration
}

// WatchConfigMaps starts watching and returns at once; the watch runs
// until ctx is done. Use Synced (e.g. as Config.Synced) to know when the
// initial list has been loaded into store, and Wait after cancelling ctx.
func WatchConfigMaps(ctx context.Context, cs kubernetes.Interface, store *Store, opts KubeOptions) (*ConfigMapWatcher, error) {
	if cs == nil || store == nil {
		return nil, errors.New("server: WatchConfigMaps needs a clientset and a store")
	}
	w := &ConfigMapWatcher{store: store, opts: opts, log: opts.Logger}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	namespaces := slices.Compact(slices.Sorted(slices.Values(opts.Namespaces)))
	if len(namespaces) == 0 || slices.Contains(namespaces, metav1.NamespaceAll) {
		namespaces = []string{metav1.NamespaceAll}
	}
	selector := v1alpha1.LabelArtifact + "=true"
	for _, ns := range namespaces {
		// No resync: watches deliver every change, and re-decoding
		// unchanged bundles on a timer would only repeat warnings.
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0,
			informers.WithNamespace(ns),
			informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = selector }),
			informers.WithTransform(stripManagedFields))
		inf := f.Core().V1().ConfigMaps().Informer()
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: w.onAdd,
			UpdateFunc: func(oldObj, newObj any) {
				o, ok1 := oldObj.(*corev1.ConfigMap)
				n, ok2 := newObj.(*corev1.ConfigMap)
				if ok1 && ok2 && o.ResourceVersion == n.ResourceVersion {
					return
				}
				w.onAdd(newObj)
			},
			DeleteFunc: w.onDelete,
		})
		if err != nil {
			return nil, fmt.Errorf("server: ConfigMap informer: %w", err)
		}
		w.factories = append(w.factories, f)
		w.regs = append(w.regs, reg)
	}
	for _, f := range w.factories {
		f.Start(ctx.Done())
	}
	return w, nil
}

// stripManagedFields drops what the watcher never reads before objects
// enter the informer cache.
func stripManagedFields(obj any) (any, error) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		cm.ManagedFields = nil
	}
	return obj, nil
}

// Synced reports whether every namespace's initial list has been delivered
// to the store.
func (w *ConfigMapWatcher) Synced() bool {
	for _, r := range w.regs {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// WaitForSync blocks until Synced or ctx is done and reports Synced.
func (w *ConfigMapWatcher) WaitForSync(ctx context.Context) bool {
	syncs := make([]cache.InformerSynced, len(w.regs))
	for i, r := range w.regs {
		syncs[i] = r.HasSynced
	}
	return cache.WaitForCacheSync(ctx.Done(), syncs...)
}

// Wait blocks until the informers have stopped; call it after cancelling
// the ctx given to WatchConfigMaps.
func (w *ConfigMapWatcher) Wait() {
	for _, f := range w.factories {
		f.Shutdown()
	}
}

func sourceOf(cm *corev1.ConfigMap) Source {
	return Source{
		Key:     "configmap " + cm.Namespace + "/" + cm.Name,
		UID:     string(cm.UID),
		Created: cm.CreationTimestamp.Time,
		Model:   cm.Labels[v1alpha1.LabelModel],

		Namespace: cm.Namespace,
	}
}

func (w *ConfigMapWatcher) onAdd(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	src := sourceOf(cm)
	states, err := parseRollupStates(cm.Data[v1alpha1.RollupsKey])
	if err != nil {
		w.log.Warn("rollup states ignored: the base tables answer", "source", src.Key, "error", err)
	}
	w.store.SetRollups(src.Key, states)
	data, ok := cm.BinaryData[v1alpha1.ArtifactKey]
	if !ok {
		w.store.Fail(src, LoadErrorDecode, fmt.Errorf("binaryData has no %q", v1alpha1.ArtifactKey))
		return
	}
	b, err := compiler.DecodeBundle(data, w.opts.MaxBundleBytes)
	if err != nil {
		w.store.Fail(src, LoadErrorDecode, err)
		return
	}
	if err := w.store.Set(src, b.Artifacts); err != nil {
		return // Set has recorded, logged and counted it
	}
	names := make([]string, len(b.Artifacts))
	for i, a := range b.Artifacts {
		names[i] = a.Name
	}
	w.log.Info("artifact loaded", "source", src.Key, "version", b.Version, "models", names)
}

func (w *ConfigMapWatcher) onDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	src := sourceOf(cm)
	if w.store.Remove(src.Key, src.UID) {
		w.store.SetRollups(src.Key, nil)
		w.log.Info("artifact removed", "source", src.Key)
	}
}

// KubeRESTConfig returns the API server connection: from the kubeconfig
// file at path when given; else the in-cluster service account; else the
// standard kubeconfig loading rules ($KUBECONFIG, then ~/.kube/config).
func KubeRESTConfig(path string) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	switch {
	case path != "":
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
	default:
		cfg, err = rest.InClusterConfig()
		if errors.Is(err, rest.ErrNotInCluster) {
			cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
				clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes client configuration: %w", err)
	}
	cfg.UserAgent = "ossie-server"
	return cfg, nil
}
