// Package chart_test checks charts/ossie: it renders the chart with the
// Helm Go library (helm.sh/helm/v3, the code `helm template` and `helm
// install` run) for several value sets, checks values.schema.json refuses
// bad values, applies every rendered object with a server-side dry run to a
// real kube-apiserver and etcd (envtest), asserts the RBAC rules grant no
// more than the table in rbac_test.go, and runs the operator and server
// binaries with the rendered arguments as the chart's ServiceAccounts
// (impersonation) to prove the rules are also enough.
//
// It is a module of its own (test/chart/go.mod, the main module replaced
// by ../..) so Helm's dependencies never enter the main module. `make test`
// runs it; alone: cd test/chart && go test ./... (KUBEBUILDER_ASSETS names
// the control-plane binaries; else scripts/kube-tools.sh builds them).
// -short runs only the tests that need no API server.
package chart_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

var (
	repoRoot string
	suite    struct {
		cfg       *rest.Config
		clientset *kubernetes.Clientset
		dynamic   *dynamic.DynamicClient
		skip      string // why no API server runs
	}
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = root
	if binaries.dir, err = os.MkdirTemp("", "ossie-chart-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binaries.dir)
	if testing.Short() {
		suite.skip = "-short: no kube-apiserver"
		return m.Run()
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		if assets, err = kubeAssets(root); err != nil {
			fmt.Fprintln(os.Stderr, "chart tests: cannot build the control-plane binaries:", err)
			return 1
		}
	}
	// No CRDDirectoryPaths: the tests install the chart's own crds/.
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart tests: envtest:", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "chart tests: stopping envtest:", err)
		}
	}()
	suite.cfg = cfg
	if suite.clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if suite.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := installCRDs(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "chart tests: installing the chart's CRDs:", err)
		return 1
	}
	return m.Run()
}

// needAPIServer skips t when the suite runs without a kube-apiserver.
func needAPIServer(t *testing.T) {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
}

// kubeAssets runs scripts/kube-tools.sh (idempotent) and returns the
// directory it prints last.
func kubeAssets(root string) (string, error) {
	cmd := exec.Command(filepath.Join(root, "scripts", "kube-tools.sh"))
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}
