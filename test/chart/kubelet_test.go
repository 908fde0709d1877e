package chart_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// This file is a small stand-in for the kubelet: it runs the one container
// of a rendered Deployment as a local process, with the command, arguments
// and environment the chart rendered, its volumes laid out in a directory
// (emptyDir: empty; secret: the Secret's items read from the API server)
// and its mount paths rewritten to that directory. The process talks to
// the API server as the pod's ServiceAccount (a kubeconfig impersonating
// system:serviceaccount:NS:NAME), so the chart's RBAC is what it gets.
// Listen addresses become free loopback ports (several tests share the
// machine).

// pod is one running container.
type pod struct {
	name    string
	root    string            // volumes live in root/<volume name>
	ports   map[string]string // container port name -> 127.0.0.1:port
	cmd     *exec.Cmd
	mu      sync.Mutex
	logs    bytes.Buffer
	exited  chan struct{}
	exitErr error
}

// imageBin maps the image's binary paths to the binaries built by the test.
var imageBin = map[string]string{}

// startPod runs the container of deployment dep. prepare runs after the
// volumes are laid out and before the process starts (to put data files in
// an emptyDir, as an init container would).
func startPod(t *testing.T, dep *unstructured.Unstructured, prepare func(p *pod)) *pod {
	t.Helper()
	var d struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(dep.Object, &d); err != nil {
		t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 || len(spec.InitContainers) > 0 {
		t.Fatalf("%s: want exactly one container", dep.GetName())
	}
	c := spec.Containers[0]
	p := &pod{name: dep.GetName(), root: t.TempDir(), ports: map[string]string{}, exited: make(chan struct{})}

	// Volumes.
	mounts := map[string]string{} // mountPath -> local dir
	for _, v := range spec.Volumes {
		dir := filepath.Join(p.root, v.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		switch {
		case v.EmptyDir != nil:
		case v.Secret != nil:
			s, err := suite.clientset.CoreV1().Secrets(dep.GetNamespace()).Get(context.Background(), v.Secret.SecretName, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: volume %s: %v", p.name, v.Name, err)
			}
			for _, it := range v.Secret.Items {
				data, ok := s.Data[it.Key]
				if !ok {
					t.Fatalf("%s: Secret %s has no key %s", p.name, s.Name, it.Key)
				}
				if err := os.WriteFile(filepath.Join(dir, it.Path), data, 0o400); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("%s: volume %s: only emptyDir and secret volumes are emulated", p.name, v.Name)
		}
	}
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" {
			t.Fatalf("%s: subPath is not emulated", p.name)
		}
		mounts[m.MountPath] = filepath.Join(p.root, m.Name)
	}
	rewrite := func(s string) string {
		for mp, dir := range mounts {
			if s == mp || strings.HasPrefix(s, mp+"/") {
				return dir + strings.TrimPrefix(s, mp)
			}
			if i := strings.Index(s, "="+mp); i >= 0 && (len(s) == i+1+len(mp) || s[i+1+len(mp)] == '/') {
				return s[:i+1] + dir + s[i+1+len(mp):]
			}
		}
		return s
	}

	// Ports: every containerPort gets a free loopback port; flags that
	// bind one are pointed at it.
	portByNumber := map[int32]string{}
	for _, cp := range c.Ports {
		addr := freeAddr(t)
		p.ports[cp.Name] = addr
		portByNumber[cp.ContainerPort] = addr
	}
	var args []string
	for _, a := range c.Args {
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(v, ":") {
			n, err := strconv.Atoi(v[1:])
			if addr, known := portByNumber[int32(n)]; err == nil && known {
				args = append(args, k+"="+addr)
				continue
			}
		}
		args = append(args, rewrite(a))
	}
	if len(c.Command) != 1 || imageBin[c.Command[0]] == "" {
		t.Fatalf("%s: command %v is not a binary of the image", p.name, c.Command)
	}

	env := []string{"PATH=/usr/bin:/bin", "KUBECONFIG=" + saKubeconfig(t, p.root, dep.GetNamespace(), spec.ServiceAccountName)}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			t.Fatalf("%s: env %s: valueFrom is not emulated", p.name, e.Name)
		}
		env = append(env, e.Name+"="+rewrite(e.Value))
	}
	if prepare != nil {
		prepare(p)
	}
	p.cmd = exec.Command(imageBin[c.Command[0]], args...)
	p.cmd.Env = env
	p.cmd.Dir = p.root
	if c.WorkingDir != "" {
		p.cmd.Dir = rewrite(c.WorkingDir)
	}
	p.cmd.Stdout = p
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exitErr = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s %s\n%s", p.name, strings.Join(args, " "), p.output())
		}
	})
	return p
}

func (p *pod) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.Write(b)
}

func (p *pod) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// stop sends SIGTERM, as the kubelet does, and waits for the exit.
func (p *pod) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// get fetches path from the container port named port.
func (p *pod) get(port, path string) (int, string, error) {
	resp, err := http.Get("http://" + p.ports[port] + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String(), err
}

// waitHTTP200 polls path until it answers 200, failing if the process
// exits or timeout passes.
func (p *pod) waitHTTP200(t *testing.T, port, path string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.exited:
			t.Fatalf("%s exited: %v", p.name, p.exitErr)
		default:
		}
		code, body, err := p.get(port, path)
		if err == nil && code == http.StatusOK {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: not 200 after %v (last: %d %v %s)", p.name, path, timeout, code, err, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// saKubeconfig writes a kubeconfig that reaches the test API server with
// the suite's admin credentials, impersonating ServiceAccount sa of
// namespace ns with the groups the API server gives ServiceAccounts.
func saKubeconfig(t *testing.T, dir, ns, sa string) string {
	t.Helper()
	cfg := suite.cfg
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
		Impersonate:       serviceAccountUser(ns, sa),
		ImpersonateGroups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "sa", Namespace: ns}
	kc.CurrentContext = "sa"
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func serviceAccountUser(ns, sa string) string {
	return fmt.Sprintf("system:serviceaccount:%s:%s", ns, sa)
}
