package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/kubetest"
)

type kubeFixture struct {
	t  *testing.T
	ts *httptest.Server
}

func (f *kubeFixture) Get(path string) (int, string) {
	resp, err := http.Get(f.ts.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// revenue asks the shop model for revenue: status, version and value.
func (f *kubeFixture) revenue() (int, string, string) {
	resp, err := http.Post(f.ts.URL+"/v1/models/shop/query", "application/json", strings.NewReader(`{"metrics":["revenue"]}`))
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		ModelVersion string  `json:"model_version"`
		Rows         [][]any `json:"rows"`
		Code         string  `json:"code"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		f.t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, r.Code, string(body)
	}
	return resp.StatusCode, r.ModelVersion, fmt.Sprint(r.Rows[0][0])
}

func (f *kubeFixture) ready() (int, map[string]server.ModelStatus, string) {
	code, body := f.Get("/readyz")
	var doc struct {
		Ready  bool                          `json:"ready"`
		Models map[string]server.ModelStatus `json:"models"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		f.t.Fatalf("readyz %d %s", code, body)
	}
	if doc.Ready != (code == http.StatusOK) {
		f.t.Fatalf("readyz %d says ready=%v", code, doc.Ready)
	}
	return code, doc.Models, body
}

// TestKubernetesMode drives the server through published ConfigMaps on a
// real API server: load, hot swap, corrupt and unknown-format updates that
// keep the last good version, name conflicts, namespace scoping, delete.
func TestKubernetesMode(t *testing.T) {
	_, kubeconfig := kubetest.Start(t)
	restCfg, err := server.KubeRESTConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"team-a", "team-b"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cms := func(ns string) interface {
		Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
		Update(context.Context, *corev1.ConfigMap, metav1.UpdateOptions) (*corev1.ConfigMap, error)
		Delete(context.Context, string, metav1.DeleteOptions) error
	} {
		return cs.CoreV1().ConfigMaps(ns)
	}

	// An unlabelled ConfigMap with a valid bundle is never loaded.
	v1, v2 := servertest.ShopVersion(t, nil), servertest.ShopVersion(t, servertest.DoubledRevenue)
	stray := servertest.ArtifactConfigMap("team-a", "stray", "shop", servertest.EncodeBundle(t, v2))
	stray.Labels = nil
	if _, err := cms("team-a").Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	store := server.NewStore(nil)
	w, err := server.WatchConfigMaps(ctx, cs, store, server.KubeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A second server scoped to team-b only.
	storeB := server.NewStore(nil)
	wB, err := server.WatchConfigMaps(ctx, cs, storeB, server.KubeOptions{Namespaces: []string{"team-b"}})
	if err != nil {
		t.Fatal(err)
	}
	// Stop both watchers before the API server stops.
	defer func() { cancel(); w.Wait(); wB.Wait() }()

	srv, err := server.New(server.Config{Engine: servertest.ShopEngine(t), Store: store, Synced: w.Synced})
	if err != nil {
		t.Fatal(err)
	}
	f := &kubeFixture{t: t, ts: httptest.NewServer(handlerOf(srv))}
	defer f.ts.Close()

	servertest.Eventually(t, "ready once the cache has synced", func() (bool, string) {
		code, _, body := f.ready()
		return code == http.StatusOK, body
	})
	if code, c, _ := f.revenue(); code != http.StatusNotFound || c != compiler.CodeUnknownModel {
		t.Fatalf("before publication: %d %s", code, c)
	}

	// Publish v1.
	cm, err := cms("team-a").Create(ctx, servertest.ArtifactConfigMap("team-a", "ossie-shop", "shop", servertest.EncodeBundle(t, v1)), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rev1 string
	servertest.Eventually(t, "v1 served", func() (bool, string) {
		code, version, val := f.revenue()
		rev1 = val
		return code == 200 && version == v1[0].Version, fmt.Sprint(code, version, val)
	})
	if rev1 != "144.5" {
		t.Errorf("v1 revenue %s, want 144.5", rev1)
	}
	// One namespace provides shop, so its bare name reaches it; a caller
	// who addressed namespace/name is offered namespace/name.
	if code, body := f.Get("/v1/namespaces/team-b/models/shop"); code != http.StatusNotFound || !strings.Contains(body, "loaded: team-a/shop") {
		t.Errorf("another namespace's name: %d %s", code, body)
	}

	// Hot swap to v2.
	cm.BinaryData[v1alpha1.ArtifactKey] = servertest.EncodeBundle(t, v2)
	if cm, err = cms("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "v2 served", func() (bool, string) {
		code, version, val := f.revenue()
		return code == 200 && version == v2[0].Version && val == "289", fmt.Sprint(code, version, val)
	})

	// Corrupt data: v2 keeps serving, /readyz and /metrics say why.
	cm.BinaryData[v1alpha1.ArtifactKey] = []byte("\x1f\x8bnot really gzip")
	if cm, err = cms("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "corrupt artifact reported", func() (bool, string) {
		code, models, body := f.ready()
		st := models["team-a/shop"]
		return code == 200 && st.Version == v2[0].Version && st.Source == "configmap team-a/ossie-shop" &&
			strings.Contains(st.Error, "artifact bundle"), body
	})
	if code, version, val := f.revenue(); code != 200 || version != v2[0].Version || val != "289" {
		t.Errorf("after a corrupt update: %d %s %s", code, version, val)
	}
	if _, m := f.Get("/metrics"); !strings.Contains(m, `ossie_server_artifact_load_errors_total{reason="decode"} 1`) ||
		!strings.Contains(m, `ossie_server_model_load_error{model="team-a/shop",source="configmap team-a/ossie-shop"} 1`) {
		t.Errorf("metrics do not count the refused artifact:\n%s", grepLines(m, "ossie_server_"))
	}

	// An artifact format from another release: refused the same way.
	future := compiler.NewBundle(v1)
	future.Format = "ossie.dev/artifact/v99"
	data, err := compiler.EncodeBundle(future)
	if err != nil {
		t.Fatal(err)
	}
	cm.BinaryData[v1alpha1.ArtifactKey] = data
	if cm, err = cms("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "unknown format reported", func() (bool, string) {
		_, models, body := f.ready()
		return strings.Contains(models["team-a/shop"].Error, "v99"), body
	})
	if code, version, _ := f.revenue(); code != 200 || version != v2[0].Version {
		t.Errorf("after an unknown format: %d %s", code, version)
	}

	// A good version clears the error.
	cm.BinaryData[v1alpha1.ArtifactKey] = servertest.EncodeBundle(t, v1)
	if _, err = cms("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "v1 served again, error cleared", func() (bool, string) {
		_, models, body := f.ready()
		st := models["team-a/shop"]
		return st.Version == v1[0].Version && st.Error == "", body
	})

	// Another namespace providing the same model name has its own
	// entry: neither team's model replaces the other's.
	if _, err := cms("team-b").Create(ctx, servertest.ArtifactConfigMap("team-b", "ossie-shop", "shop", servertest.EncodeBundle(t, v2)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "each namespace's model reported", func() (bool, string) {
		_, models, body := f.ready()
		a, b := models["team-a/shop"], models["team-b/shop"]
		return a.Source == "configmap team-a/ossie-shop" && a.Version == v1[0].Version &&
			b.Source == "configmap team-b/ossie-shop" && b.Version == v2[0].Version, body
	})
	servertest.Eventually(t, "the team-b server sees only team-b", func() (bool, string) {
		st := storeB.Status()
		return len(st) == 1 && st["team-b/shop"].Source == "configmap team-b/ossie-shop", fmt.Sprint(st)
	})
	if err := cms("team-b").Delete(ctx, "ossie-shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "the older ConfigMap serves again", func() (bool, string) {
		code, version, val := f.revenue()
		return code == 200 && version == v1[0].Version, fmt.Sprint(code, version, val)
	})
	servertest.Eventually(t, "the team-b server drops the model", func() (bool, string) {
		return len(storeB.Status()) == 0, fmt.Sprint(storeB.Status())
	})

	// Delete: the model is gone.
	if err := cms("team-a").Delete(ctx, "ossie-shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "deleted model no longer served", func() (bool, string) {
		code, c, body := f.revenue()
		return code == http.StatusNotFound && c == compiler.CodeUnknownModel, body
	})
	code, models, body := f.ready()
	if code != 200 || len(models) != 0 {
		t.Errorf("readyz after delete: %s", body)
	}
	if _, m := f.Get("/metrics"); !strings.Contains(m, "ossie_server_models_loaded 0") {
		t.Errorf("models_loaded after delete:\n%s", grepLines(m, "ossie_server_models"))
	}
}
