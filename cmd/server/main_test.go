package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/kubetest"
)

func TestRunRefusesBadStarts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"--bogus"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "extra"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--kube"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--namespaces", "a"}, 2},
		{[]string{"--models", "../../server/testdata/broken.yaml,../../server/testdata/badversion.yaml", "--no-auth"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--no-auth", "--duckdb", t.TempDir() + "/no/such/dir/x.duckdb"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--no-auth", "--addr", "256.0.0.1:bad"}, 1},
		{[]string{"--kube", "--addr", "127.0.0.1:0", "--kubeconfig", t.TempDir() + "/no-such-kubeconfig"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "oracle"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "trino"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "trino", "--dsn-env", "A", "--duckdb", "x.duckdb"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "trino", "--dsn-file", t.TempDir() + "/missing", "--addr", "127.0.0.1:0"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "postgres"}, 2},
		// The engine's memory: a size DuckDB reads, for DuckDB only.
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine-memory-limit", "lots"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine-memory-limit", "512"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine-threads", "-1"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "postgres", "--dsn-env", "A", "--engine-memory-limit", "1GiB"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--no-auth", "--engine", "postgres", "--dsn-file", t.TempDir() + "/missing"}, 1},
		// Authentication: none configured is loopback-only (the default
		// --addr is loopback); --no-auth is exclusive; a missing or broken
		// credentials file stops the start.
		{[]string{"--models", "../../server/testdata/shop.yaml", "--addr", ":8080"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--addr", "0.0.0.0:0"}, 2},
		{[]string{"--kube", "--addr", ":0"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--no-auth", "--anonymous-role", "x"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--tokens-file", t.TempDir() + "/missing.yaml"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--proxy-secret-file", "../../server/testdata/shop.yaml", "--tokens-file", "../../server/testdata/shop.yaml"}, 1},
		// Governance: local mode only; a missing or invalid file stops the start.
		{[]string{"--kube", "--governance", "../../server/testdata/shop.governance.yaml", "--addr", "127.0.0.1:0"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--governance", t.TempDir() + "/none.yaml", "--addr", "127.0.0.1:0"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--governance", "../../server/testdata/shop.yaml", "--addr", "127.0.0.1:0"}, 1},
	} {
		if got := run(context.Background(), tc.args); got != tc.code {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.code)
		}
	}
}

// TestKubeMode runs the command against a real kube-apiserver (envtest,
// binaries from scripts/kube-tools.sh): it becomes ready once its cache has
// synced, serves a model published in a watched namespace, ignores one in
// another namespace, and stops cleanly.
func TestKubeMode(t *testing.T) {
	_, kubeconfig := kubetest.Start(t)
	restCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(restCfg)

	data, err := os.ReadFile("../../server/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(data, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	bundle, err := compiler.EncodeBundle(compiler.NewBundle(arts))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"watched", "other"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ossie-shop", Labels: map[string]string{v1alpha1.LabelArtifact: "true", v1alpha1.LabelModel: "shop"}},
			BinaryData: map[string][]byte{v1alpha1.ArtifactKey: bundle},
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--kube", "--kubeconfig", kubeconfig, "--namespaces", "watched", "--addr", addr})
	})

	var ready struct {
		Ready  bool `json:"ready"`
		Models map[string]struct {
			Version string `json:"version"`
			Source  string `json:"source"`
		} `json:"models"`
	}
	srv.WaitReady(t, func() bool {
		code, body := srv.Call("GET", "/readyz", "", "")
		return code == 200 && json.Unmarshal([]byte(body), &ready) == nil && len(ready.Models) > 0
	})
	if len(ready.Models) != 1 || ready.Models["watched/shop"].Source != "configmap watched/ossie-shop" || ready.Models["watched/shop"].Version != arts[0].Version {
		t.Errorf("readyz models %+v", ready.Models)
	}
	if code, body := srv.Call("POST", "/v1/models/shop/sql", `{"metrics":["revenue"]}`, ""); code != 200 || !strings.Contains(body, "SUM(") {
		t.Errorf("sql: %d %s", code, body)
	}

	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}

// TestLocalModeAuthenticated serves a governed model behind a tokens file
// through run: no token is 401, a token plans under its role (the SQL
// carries its row filter, the metadata lacks its hidden metric).
func TestLocalModeAuthenticated(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	const token = "cmd-server-test-token-0123456789"
	if err := os.WriteFile(tokens, []byte("tokens:\n  - {name: ca, token: "+token+", roles: [state_analyst], attributes: {state: CA}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--governance", "../../server/testdata/shop.governance.yaml",
			"--tokens-file", tokens, "--addr", addr})
	})
	srv.WaitServing(t)
	if code, body := srv.Call("GET", "/v1/models/shop", "", ""); code != 401 || !strings.Contains(body, "OSS5005") {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, body := srv.Call("GET", "/v1/models/shop", "", token); code != 200 || strings.Contains(body, "avg_amount") || !strings.Contains(body, "revenue") {
		t.Errorf("detail under the role: %d %s", code, body)
	}
	// The SQL preview is refused exactly when the caller is governed, so a
	// 403 OSS5007 proves the governance file and the token's role arrived.
	if code, body := srv.Call("POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.state"]}`, token); code != 403 || !strings.Contains(body, "OSS5007") {
		t.Errorf("sql under the role: %d %s", code, body)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}

// TestHelpAndStartChecks: --help exits 0 with the flags and examples
// listed on stdout (the --password-file text says what engine/postgres
// does: it replaces the connection string's password); a usage error is
// one line and a hint, not the flag list; the standard library's
// single-dash spelling still parses; a --duckdb file that does not exist
// stops the start naming the path and how to create it, unless
// --create-duckdb; --debug-errors is refused with authentication.
func TestHelpAndStartChecks(t *testing.T) {
	var out, help strings.Builder
	if code := runTo(context.Background(), []string{"--help"}, &help, &out); code != 0 {
		t.Errorf("--help exit %d", code)
	}
	if h := help.String(); !strings.Contains(h, "replaces the connection string's password") || !strings.Contains(h, "--create-duckdb") ||
		!strings.Contains(h, "Examples:") || !strings.Contains(h, "Exit status:") || !strings.Contains(h, `(default "127.0.0.1:8080")`) {
		t.Errorf("help:\n%s", h)
	}
	out.Reset()
	if code := runTo(context.Background(), []string{"--engine=postgres", "--models=../../server/testdata/shop.yaml"}, &help, &out); code != 2 ||
		strings.Count(out.String(), "\n") != 2 || !strings.Contains(out.String(), "Run 'server --help' for usage and examples.") {
		t.Errorf("usage error: exit %d\n%s", code, out.String())
	}
	// -models, -addr=..., -no-auth as flag.FlagSet took them; ctx is done,
	// so a start that parses stops at once with 0.
	done, stop := context.WithCancel(context.Background())
	stop()
	out.Reset()
	if code := runTo(done, []string{"-models", "../../server/testdata/shop.yaml", "-addr=127.0.0.1:0", "-no-auth"}, &help, &out); code != 0 {
		t.Errorf("single-dash flags: exit %d %s", code, out.String())
	}

	missing := filepath.Join(t.TempDir(), "flights.duckdb")
	out.Reset()
	code := runTo(context.Background(), []string{"--models", "../../server/testdata/shop.yaml", "--duckdb", missing, "--addr", "127.0.0.1:0"}, &help, &out)
	if code != 1 || !strings.Contains(out.String(), missing) || !strings.Contains(out.String(), "go run ./examples/flights/demo --db") {
		t.Errorf("missing --duckdb: exit %d %s", code, out.String())
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("refused start created %s", missing)
	}

	// --create-duckdb: DuckDB creates the file and the server starts (and
	// stops at once: ctx is already done).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	if code := runTo(ctx, []string{"--models", "../../server/testdata/shop.yaml", "--duckdb", missing, "--create-duckdb", "--addr", "127.0.0.1:0"}, &help, &out); code != 0 {
		t.Errorf("--create-duckdb exit %d %s", code, out.String())
	}
	if _, err := os.Stat(missing); err != nil {
		t.Errorf("--create-duckdb: %v", err)
	}

	for _, args := range [][]string{
		{"--models", "../../server/testdata/shop.yaml", "--create-duckdb"},
		{"--models", "../../server/testdata/shop.yaml", "--debug-errors", "--tokens-file", "x.yaml"},
		{"--kube", "--debug-errors", "--addr", "127.0.0.1:0"},
		{"--kube", "--rollups", "--addr", "127.0.0.1:0"}, // the operator builds them
	} {
		out.Reset()
		if code := runTo(context.Background(), args, &help, &out); code != 2 {
			t.Errorf("%q: exit %d %s", args, code, out.String())
		}
	}
}

// lockedBuffer is a log sink the serving goroutine writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLocalModeReloads: the server swaps in an edited model file, and
// SIGHUP reloads at once instead of stopping it.
func TestLocalModeReloads(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "shop.yaml")
	orig, err := os.ReadFile("../../server/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	srv := servertest.Start(t, func(addr string) int {
		return runTo(ctx, []string{"--models", model, "--addr", addr}, io.Discard, logs)
	})
	srv.WaitServing(t)
	if err := os.WriteFile(model, []byte(strings.Replace(string(orig), "Orders of a small shop", "Orders of a bigger shop", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, body := srv.Call("GET", "/v1/models", "", "")
		if strings.Contains(body, "bigger shop") && strings.Contains(logs.String(), `"signal":"hangup"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reload within 20s: %s\n%s", body, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}
