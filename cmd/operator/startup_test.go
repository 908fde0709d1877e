package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localproc"
)

// runOperatorEnv makes the test binary run the operator (TestMain).
const runOperatorEnv = "OSSIE_TEST_RUN_OPERATOR"

// TestStartupLogHasNoStackTrace starts the operator as a process against a
// real kube-apiserver with the CRD installed and lets it run past the 30
// seconds after which controller-runtime reports a logger that was never
// set, with a stack trace, on stderr (issue 25 item 4). Its stderr holds
// JSON log lines only, and it stops cleanly on SIGTERM.
func TestStartupLogHasNoStackTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts kube-apiserver and etcd and runs the operator for 35 s")
	}
	assets, err := kubetest.Assets()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ErrorIfCRDPathMissing: true,
		CRDDirectoryPaths: []string{filepath.Join(kubetest.Root(), "config", "crd", "bases")}}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "startup", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := localproc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "--kubeconfig="+kubeconfig, "--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(port), "--leader-elect=false")
	cmd.Env = append(os.Environ(), runOperatorEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the operator stopped early: %v\n%s", err, stderr.String())
	case <-time.After(35 * time.Second):
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	out := stderr.String()
	if strings.Contains(out, "never called") || strings.Contains(out, "goroutine ") || strings.Contains(out, ".go:") {
		t.Errorf("stderr has a stack trace:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("stderr line is not a JSON log line: %q", line)
		}
	}
	if !strings.Contains(out, `"msg":"starting"`) {
		t.Errorf("no start-up line:\n%s", out)
	}
}
