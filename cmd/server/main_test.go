package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
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
		{[]string{"--models", "../../server/testdata/broken.yaml,../../server/testdata/badversion.yaml"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--duckdb", t.TempDir() + "/no/such/dir/x.duckdb"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--addr", "256.0.0.1:bad"}, 1},
		{[]string{"--kube", "--kubeconfig", t.TempDir() + "/no-such-kubeconfig"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "oracle"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "postgres"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--engine", "postgres", "--dsn-file", t.TempDir() + "/missing"}, 1},
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
	if testing.Short() {
		t.Skip("needs kube-apiserver and etcd; skipped in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tools := exec.Command("bash", "scripts/kube-tools.sh")
	tools.Dir = root
	tools.Stderr = os.Stderr
	out, err := tools.Output()
	if err != nil {
		t.Fatalf("scripts/kube-tools.sh: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	env := &envtest.Environment{BinaryAssetsDirectory: lines[len(lines)-1]}
	if _, err := env.Start(); err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
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

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--kube", "--kubeconfig", kubeconfig, "--namespaces", "watched", "--addr", addr})
	}()

	var ready struct {
		Ready  bool `json:"ready"`
		Models map[string]struct {
			Version string `json:"version"`
			Source  string `json:"source"`
		} `json:"models"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && json.Unmarshal(body, &ready) == nil && len(ready.Models) > 0 {
				break
			}
		}
		select {
		case code := <-done:
			t.Fatalf("server exited with %d", code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready with the published model within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(ready.Models) != 1 || ready.Models["shop"].Source != "configmap watched/ossie-shop" || ready.Models["shop"].Version != arts[0].Version {
		t.Errorf("readyz models %+v", ready.Models)
	}
	resp, err := http.Post("http://"+addr+"/v1/models/shop/sql", "application/json", strings.NewReader(`{"metrics":["revenue"]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "SUM(") {
		t.Errorf("sql: %d %s", resp.StatusCode, body)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d after cancel", code)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("server did not stop")
	}
}
