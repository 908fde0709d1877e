// Package kubetest starts the real kube-apiserver and etcd the
// control-plane tests run against (controller-runtime envtest), built from
// their Go modules by scripts/kube-tools.sh (docs/kube-tools.md).
package kubetest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Root is the repository's root directory (the one holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Assets returns the directory holding kube-apiserver, etcd and kubectl:
// $KUBEBUILDER_ASSETS when set (the Makefile exports it), else the last
// line scripts/kube-tools.sh prints. The script builds the binaries on
// first use, which takes minutes, and is a no-op afterwards; its progress
// goes to stderr.
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	root := Root()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "kube-tools.sh"))
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", errors.New("scripts/kube-tools.sh: " + err.Error())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	if dir == "" {
		return "", errors.New("scripts/kube-tools.sh printed no directory")
	}
	return dir, nil
}

// Start runs an API server and etcd for t, stopped when t ends, and
// returns the environment and a kubeconfig file for it. It skips t in
// -short mode.
func Start(t testing.TB) (*envtest.Environment, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs kube-apiserver and etcd; skipped in -short mode")
	}
	assets, err := Assets()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	if _, err := env.Start(); err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest stop: %v", err)
		}
	})
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return env, kubeconfig
}
