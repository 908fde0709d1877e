package operator_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// The suite runs every test against a real kube-apiserver and etcd
// (envtest), built by scripts/kube-tools.sh on first use, with the CRD from
// config/crd/bases installed. With -short, or when the binaries cannot be
// built, envtest-backed tests are skipped with the reason.
var (
	suite struct {
		cfg       *rest.Config
		scheme    *runtime.Scheme
		clientset *kubernetes.Clientset
		events    events.EventBroadcaster
		skip      string // why envtest is not available
	}
	repoRoot string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := runSuite(m)
	pgtest.StopShared()
	trinoserver.StopShared()
	os.Exit(code)
}

func runSuite(m *testing.M) int {
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = root
	suite.scheme = runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(suite.scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := v1alpha1.AddToScheme(suite.scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if testing.Short() {
		suite.skip = "-short: no kube-apiserver"
		return m.Run()
	}

	assets, err := kubetest.Assets()
	if err != nil {
		fmt.Fprintln(os.Stderr, "operator tests: cannot build the control-plane binaries:", err)
		return 1
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		BinaryAssetsDirectory: assets,
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "operator tests: envtest:", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "operator tests: stopping envtest:", err)
		}
	}()
	suite.cfg = cfg
	suite.clientset, err = kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	suite.events = events.NewBroadcaster(&events.EventSinkImpl{Interface: suite.clientset.EventsV1()})
	if err := suite.events.StartRecordingToSinkWithContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer suite.events.Shutdown()
	return m.Run()
}

// needEnv skips t when the API server is not running.
func needEnv(t testing.TB) {
	t.Helper()
	if suite.cfg == nil {
		t.Skip(suite.skip)
	}
}

// writeCounter counts every API write made through a client: create,
// update, patch, apply and delete, on objects and on subresources.
type writeCounter struct{ n atomic.Int64 }

func (w *writeCounter) Load() int64 { return w.n.Load() }
func (w *writeCounter) Reset()      { w.n.Store(0) }

// countingClient returns a direct (uncached) client to the test API server
// whose writes are counted by w.
func countingClient(t testing.TB, w *writeCounter) client.Client {
	t.Helper()
	c, err := client.NewWithWatch(suite.cfg, client.Options{Scheme: suite.scheme})
	if err != nil {
		t.Fatal(err)
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w.n.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w.n.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w.n.Add(1)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			w.n.Add(1)
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w.n.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Apply(ctx, obj, opts...)
		},
	})
}

// newNamespace creates a namespace for one test.
func newNamespace(t testing.TB, c client.Client) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "ossie-test-"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}
