package localcluster_test

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localcluster"
)

// lateEnvtestEnv makes the test binary run startEnvtestLate (TestMain).
const lateEnvtestEnv = "OSSIE_TEST_LATE_ENVTEST"

// startEnvtestLate starts and stops etcd and kube-apiserver 31 s after
// the process started, as Start does once the binaries are built, with or
// without the logger Start sets. It returns the exit code.
func startEnvtestLate(withLogger bool) int {
	if withLogger {
		localcluster.SetEnvtestLogger(io.Discard)
	}
	time.Sleep(31 * time.Second)
	assets, err := kubetest.Assets()
	if err != nil {
		return 3
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	if _, err := env.Start(); err != nil {
		return 4
	}
	if err := env.Stop(); err != nil {
		return 5
	}
	return 0
}

// TestNoLoggerStackTrace (issue 25 item 4): the cluster's control plane
// starts after the binaries are built, more than 30 s into the process,
// and controller-runtime then printed "log.SetLogger(...) was never
// called" with a stack trace. With the logger Start sets, stderr is
// empty; without it (the old code) the warning is there, which shows the
// check can fail.
func TestNoLoggerStackTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits 31 s, then starts kube-apiserver and etcd twice")
	}
	if _, err := kubetest.Assets(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	out := map[string]string{}
	var mu sync.Mutex
	for _, mode := range []string{"with-logger", "without"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), lateEnvtestEnv+"="+mode)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("%s: %v\n%s", mode, err, stderr.String())
			}
			mu.Lock()
			out[mode] = stderr.String()
			mu.Unlock()
		}()
	}
	wg.Wait()
	if s := out["with-logger"]; s != "" {
		t.Errorf("stderr with the logger Start sets:\n%s", s)
	}
	if s := out["without"]; !strings.Contains(s, "log.SetLogger(...) was never called") {
		t.Errorf("without a logger the warning was expected (the check cannot fail otherwise); stderr:\n%s", s)
	}
}
