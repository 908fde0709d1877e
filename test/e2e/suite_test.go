// Package e2e_test is the control-plane suite of issue 3: a real
// kube-apiserver and etcd (controller-runtime envtest, binaries built by
// scripts/kube-tools.sh), the SemanticModel CRD from config/crd/bases, the
// operator manager and the semantic server in Kubernetes mode running
// in-process against them, and a PostgreSQL server started by test/pgtest
// that the suite stops and starts. Everything is driven through the API
// (one scenario through the kubectl binary); every scenario asserts the
// conditions, the published ConfigMap and the server's answers, which are
// compared with SQL run directly on PostgreSQL.
//
// Run it with `go test ./test/e2e` (add -v -ginkgo.v for the measured
// numbers). KUBEBUILDER_ASSETS names the binaries directory when set;
// otherwise the suite runs scripts/kube-tools.sh, which builds them once.
// -short skips the suite.
package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/httpapi"
	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// Namespaces. The main operator watches the first group; scenarios that
// need an operator of their own (a tiny artifact ceiling, restarts, the
// scale run) get namespaces no other operator watches, so two managers
// never reconcile the same model.
const (
	nsApply    = "e2e-apply"
	nsDrift    = "e2e-drift"
	nsEngine   = "e2e-engine"
	nsConflict = "e2e-conflict"
	nsDelete   = "e2e-delete"
	nsBench    = "e2e-bench"

	nsCeiling = "e2e-ceiling"
	nsRestart = "e2e-restart"
	nsControl = "e2e-control"
	nsScale   = "e2e-scale"
)

var mainNamespaces = []string{nsApply, nsDrift, nsEngine, nsConflict, nsDelete, nsBench}

// Timing of the operators under test: resync every 2 s (default 5 min) so
// "after several resyncs" takes seconds; engine retries from 100 ms capped
// at 2 s so recovery is seen quickly after PostgreSQL comes back.
const testResync = 2 * time.Second

func testOptions() operator.Options {
	return operator.Options{
		BackoffBase:   100 * time.Millisecond,
		BackoffMax:    2 * time.Second,
		DriftRecheck:  time.Second,
		EngineTimeout: 5 * time.Second,
	}
}

// pgDatabase is the database of the suite on the PostgreSQL server.
const pgDatabase = "e2e"

// The suite's world, set up once in BeforeSuite.
var (
	repoRoot       string
	scheme         *runtime.Scheme
	testEnv        *envtest.Environment
	restCfg        *rest.Config
	k8s            client.Client // direct, uncounted: setup and assertions
	clientset      *kubernetes.Clientset
	pg             *pgtest.Server
	pgDSN          string
	sqlDB          *pgxpool.Pool // the hand-written SQL side of every comparison
	kubectlPath    string
	kubeconfigPath string
	mainOp         *operatorInstance // watches mainNamespaces for the whole suite
	ossieURL       string            // the semantic server (Kubernetes mode)
	suiteCtx       context.Context   // lives until AfterSuite
	suiteLog       *slog.Logger
)

func TestE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the control-plane suite starts kube-apiserver, etcd and PostgreSQL")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "Ossie control plane (e2e)")
}

var _ = BeforeSuite(func() {
	begin := time.Now()
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(3 * time.Second)
	SetDefaultConsistentlyPollingInterval(100 * time.Millisecond)

	var cancel context.CancelFunc
	suiteCtx, cancel = context.WithCancel(context.Background())
	DeferCleanup(cancel)

	// Logs of controller-runtime, client-go (leader election) and the
	// server go to GinkgoWriter: shown for failed specs only.
	suiteLog = slog.New(slog.NewTextHandler(GinkgoWriter, &slog.HandlerOptions{Level: slog.LevelInfo}))
	logger := logr.FromSlogHandler(suiteLog.Handler())
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	root, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	repoRoot = root

	scheme = runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())

	By("starting PostgreSQL")
	pg, err = pgtest.Start()
	if errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv(pgtest.RequireEnv) != "1" {
		Skip(fmt.Sprintf("SKIPPING THE CONTROL-PLANE SUITE: %v (install PostgreSQL 15 or set OSSIE_PG_BIN; set %s=1 to make this a failure)", err, pgtest.RequireEnv))
	}
	Expect(err).NotTo(HaveOccurred(), "pgtest")
	DeferCleanup(func() { _ = pg.Stop() })
	Expect(pg.Exec(suiteCtx, "postgres", "CREATE DATABASE "+pgDatabase)).To(Succeed())
	pgDSN = pg.DSN(pgDatabase)
	sqlDB, err = pgxpool.New(suiteCtx, pgDSN)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(sqlDB.Close)

	By("starting kube-apiserver and etcd")
	assets, err := kubetest.Assets()
	Expect(err).NotTo(HaveOccurred())
	kubectlPath = filepath.Join(assets, "kubectl")
	Expect(kubectlPath).To(BeAnExistingFile(), "kubectl is built by scripts/kube-tools.sh next to kube-apiserver and etcd")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	restCfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "envtest")
	DeferCleanup(func() { Expect(testEnv.Stop()).To(Succeed()) })
	// The defaults (QPS 5) would make the client, not the operator, the
	// bottleneck of the scale run.
	restCfg.QPS, restCfg.Burst = 200, 400
	k8s, err = client.New(restCfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(restCfg)
	Expect(err).NotTo(HaveOccurred())

	user, err := testEnv.ControlPlane.AddUser(envtest.User{Name: "e2e-admin", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	kubeconfigPath = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfigPath, kubeconfig, 0o600)).To(Succeed())

	for _, ns := range append(mainNamespaces, nsCeiling, nsRestart, nsControl, nsScale) {
		Expect(k8s.Create(suiteCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}

	By("starting the operator")
	mainOp = startOperator(operatorConfig{
		name:       "main",
		namespaces: mainNamespaces,
		opts:       testOptions(),
		resync:     testResync,
		global:     true,
	})
	DeferCleanup(mainOp.stop)

	By("starting the semantic server in Kubernetes mode")
	store := server.NewStore(suiteLog)
	watcher, err := server.WatchConfigMaps(suiteCtx, clientset, store, server.KubeOptions{Logger: suiteLog})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		cancel()
		watcher.Wait()
	})
	srvEngine, err := postgres.Open(suiteCtx, postgres.Config{DSN: pgDSN, ConnectTimeout: 2 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srvEngine.Close)
	srv, err := server.New(server.Config{Engine: srvEngine, Store: store, Synced: watcher.Synced, Logger: suiteLog, QueryTimeout: 10 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	api, err := httpapi.New(srv, httpapi.Options{})
	Expect(err).NotTo(HaveOccurred())
	ts := httptest.NewServer(api)
	DeferCleanup(ts.Close)
	ossieURL = ts.URL
	Eventually(func() int {
		resp, err := http.Get(ossieURL + "/readyz")
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}).Should(Equal(http.StatusOK), "the server becomes ready once its ConfigMap cache has synced")

	AddReportEntry("suite setup", time.Since(begin).Round(time.Millisecond).String(), ReportEntryVisibilityAlways)
})
