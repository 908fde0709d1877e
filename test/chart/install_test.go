package chart_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// binaries are the operator and server built for this run (buildBinaries).
var binaries struct {
	once sync.Once
	dir  string // created and removed by TestMain
	err  error
}

var semanticModels = schema.GroupVersionResource{Group: "ossie.dev", Version: "v1alpha1", Resource: "semanticmodels"}

// installNamespace is the release namespace of TestInstalledChartRuns; no
// other test uses it, so its RBAC objects are the only ones there.
const installNamespace = "ossie-run"

// installValues: chart defaults, plus a DuckDB database file in an
// emptyDir (copied in before start, as an init container would) and a short
// resync so "after several resyncs" takes seconds.
var installValues = map[string]any{
	"engine": map[string]any{"duckdb": map[string]any{"path": "/data/warehouse.duckdb"}},
	"operator": map[string]any{
		"resync":            "2s",
		"extraVolumes":      []any{map[string]any{"name": "data", "emptyDir": map[string]any{}}},
		"extraVolumeMounts": []any{map[string]any{"name": "data", "mountPath": "/data"}},
	},
	"server": map[string]any{
		"auth":              map[string]any{"tokensSecret": map[string]any{"name": "ossie-server-tokens"}},
		"extraVolumes":      []any{map[string]any{"name": "data", "emptyDir": map[string]any{}}},
		"extraVolumeMounts": []any{map[string]any{"name": "data", "mountPath": "/data"}},
	},
}

// TestInstalledChartRuns installs the chart's ServiceAccounts and RBAC for
// real, then runs the operator and the server binaries (built from
// cmd/operator and cmd/server) with exactly the rendered arguments, each
// as its ServiceAccount. It shows the chart's RBAC is enough: the
// operator takes the Lease, reconciles the flights example to Ready,
// publishes its ConfigMap and records events; the server syncs that
// ConfigMap and answers a query with the numbers DuckDB gives directly.
// It shows the operator never writes the spec (ArgoCD would report
// OutOfSync otherwise): generation and spec are unchanged after several
// resyncs, and no managedFields entry of the operator covers spec. And it
// asks the API server what the ServiceAccounts may not do.
func TestInstalledChartRuns(t *testing.T) {
	needAPIServer(t)
	buildBinaries(t)
	ctx := context.Background()
	r := mustRender(t, installNamespace, installValues)
	ensureNamespace(t, installNamespace)
	for _, o := range r.objects {
		switch o.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding":
			if err := apply(ctx, o, false); err != nil {
				t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	db := flightsDatabase(t)
	copyDB := func(p *pod) { copyFile(t, db, filepath.Join(p.root, "data", "warehouse.duckdb")) }

	// The model, applied by a user.
	sm := &unstructured.Unstructured{}
	raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", "flights", "semanticmodel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &sm.Object); err != nil {
		t.Fatal(err)
	}
	sm.SetNamespace(installNamespace)
	models := suite.dynamic.Resource(semanticModels).Namespace(installNamespace)
	created, err := models.Create(ctx, sm, metav1.CreateOptions{FieldManager: "kubectl"})
	if err != nil {
		t.Fatal(err)
	}

	op := startPod(t, r.one(t, "Deployment", "ossie-operator"), copyDB)
	op.waitHTTP200(t, "probes", "/healthz", time.Minute)
	op.waitHTTP200(t, "probes", "/readyz", time.Minute)

	// Ready, as the operator's ServiceAccount made it.
	var ready *unstructured.Unstructured
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		ready, err = models.Get(ctx, "flights", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return conditionStatus(ready, "Ready") == "True", nil
	})
	if err != nil {
		t.Fatalf("flights never Ready: %v; conditions: %v", err, conditionsOf(ready))
	}
	cm, err := suite.clientset.CoreV1().ConfigMaps(installNamespace).Get(ctx, "ossie-flights", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("artifact ConfigMap: %v", err)
	}
	if got, want := cm.Annotations["ossie.dev/version"], nestedString(ready, "status", "publishedVersion"); got == "" || got != want {
		t.Errorf("ConfigMap version %q, status.publishedVersion %q", got, want)
	}

	if status, msg := argoHealth(t, ready.Object); status != "Healthy" {
		t.Errorf("ArgoCD health of the Ready model: %s %q", status, msg)
	}

	// Leader election through the Lease the RBAC names.
	lease, err := suite.clientset.CoordinationV1().Leases(installNamespace).Get(ctx, "ossie-operator.ossie.dev", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("Lease has no holder")
	}
	// Events (events.k8s.io) on the model.
	waitFor(t, "a Published event on flights", func() bool {
		evs, err := suite.clientset.EventsV1().Events(installNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		return slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
			return e.Reason == "Published" && e.Regarding.Name == "flights" && e.ReportingController == "ossie-operator"
		})
	})
	body := op.waitHTTP200(t, "metrics", "/metrics", 10*time.Second)
	if !strings.Contains(body, `ossie_operator_reconcile_total{result="ready"}`) {
		t.Errorf("operator metrics lack ossie_operator_reconcile_total{result=\"ready\"}")
	}

	// The spec is the user's alone: after more resyncs (2 s each), the
	// generation and the spec are those created, and no field manager of
	// the operator owns any spec field.
	time.Sleep(5 * time.Second)
	after, err := models.Get(ctx, "flights", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.GetGeneration() != created.GetGeneration() {
		t.Errorf("generation %d after reconciling, %d when created: the spec was written", after.GetGeneration(), created.GetGeneration())
	}
	if !reflect.DeepEqual(after.Object["spec"], created.Object["spec"]) {
		t.Errorf("the spec changed while reconciling")
	}
	for _, mf := range after.GetManagedFields() {
		if mf.Manager == "kubectl" {
			continue
		}
		if mf.FieldsV1 == nil || strings.Contains(string(mf.FieldsV1.Raw), `"f:spec"`) {
			t.Errorf("field manager %q (%s, subresource %q) owns spec fields: %s", mf.Manager, mf.Operation, mf.Subresource, mf.FieldsV1)
		}
	}

	// The server, as its ServiceAccount, with the token file from the
	// Secret the values name, serves what the operator published.
	const token = "chart-test-token-0123456789abcdef"
	_, err = suite.clientset.CoreV1().Secrets(installNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "ossie-server-tokens"},
		StringData: map[string]string{"tokens": "tokens:\n  - name: chart-test\n    token: " + token + "\n    roles: [analyst]\n"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := startPod(t, r.one(t, "Deployment", "ossie-server"), copyDB)
	srv.waitHTTP200(t, "http", "/readyz", time.Minute)
	if code, _, err := srv.get("http", "/v1/models"); err != nil || code != http.StatusUnauthorized {
		t.Errorf("GET /v1/models without a token: %d %v, want 401", code, err)
	}
	call := func(method, path, body string) (*http.Response, error) {
		req, err := http.NewRequest(method, "http://"+srv.ports["http"]+path, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}
	resp, err := call(http.MethodGet, "/v1/models", "")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(list), `"flights"`) {
		t.Fatalf("GET /v1/models: %d %s", resp.StatusCode, list)
	}
	resp, err = call(http.MethodPost, "/v1/models/flights/query", `{"metrics": ["flight_count"]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		ModelVersion string  `json:"model_version"`
		Rows         [][]any `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("query: %d %v", resp.StatusCode, err)
	}
	want := directCount(t, db)
	if len(answer.Rows) != 1 || len(answer.Rows[0]) != 1 || fmt.Sprint(answer.Rows[0][0]) != fmt.Sprint(want) {
		t.Errorf("flight_count answered %v, DuckDB counts %d", answer.Rows, want)
	}
	if answer.ModelVersion != cm.Annotations["ossie.dev/version"] {
		t.Errorf("server answered with version %s, published %s", answer.ModelVersion, cm.Annotations["ossie.dev/version"])
	}

	// What the ServiceAccounts may not do, asked of the API server.
	opUser, srvUser := serviceAccountUser(installNamespace, "ossie-operator"), serviceAccountUser(installNamespace, "ossie-server")
	for _, c := range []struct {
		user                                       string
		verb, group, resource, subresource, ns, nm string
		want                                       bool
	}{
		{opUser, "update", "coordination.k8s.io", "leases", "", installNamespace, "ossie-operator.ossie.dev", true},
		{opUser, "update", "coordination.k8s.io", "leases", "", installNamespace, "someone-else", false},
		{opUser, "get", "", "secrets", "", installNamespace, "", false},
		// The finalizer deletes a deleted model's ConfigMap itself (no garbage
		// collector is assumed), so the operator may delete ConfigMaps in its
		// namespaces, and nowhere else.
		{opUser, "delete", "", "configmaps", "", installNamespace, "ossie-flights", true},
		{opUser, "delete", "", "configmaps", "", "default", "ossie-flights", false},
		{opUser, "list", "ossie.dev", "semanticmodels", "", "default", "", false},
		{opUser, "delete", "ossie.dev", "semanticmodels", "", installNamespace, "flights", false},
		{opUser, "update", "ossie.dev", "semanticmodels", "status", installNamespace, "flights", true},
		{srvUser, "watch", "", "configmaps", "", installNamespace, "", true},
		{srvUser, "create", "", "configmaps", "", installNamespace, "", false},
		{srvUser, "list", "ossie.dev", "semanticmodels", "", installNamespace, "", false},
		{srvUser, "get", "", "secrets", "", installNamespace, "", false},
		{srvUser, "list", "", "configmaps", "", "default", "", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   c.user,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + installNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: c.ns, Verb: c.verb, Group: c.group, Resource: c.resource, Subresource: c.subresource, Name: c.nm,
			},
		}}
		res, err := suite.clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.Allowed != c.want {
			t.Errorf("%s %s %s/%s %s in %q: allowed=%v, want %v", c.user, c.verb, c.group, c.resource, c.nm, c.ns, res.Status.Allowed, c.want)
		}
	}
}

// buildBinaries builds cmd/operator and cmd/server once per run, with
// cgo as the Dockerfile does (without its -trimpath and -ldflags, which
// change no behaviour but would rebuild every dependency instead of reusing
// the build cache), checks their --version, and maps the image paths the
// chart runs to them.
func buildBinaries(t *testing.T) {
	t.Helper()
	binaries.once.Do(func() {
		for _, name := range []string{"operator", "server"} {
			out := filepath.Join(binaries.dir, name)
			cmd := exec.Command("go", "build", "-o", out, "./cmd/"+name)
			cmd.Dir = repoRoot
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
			if b, err := cmd.CombinedOutput(); err != nil {
				binaries.err = fmt.Errorf("building cmd/%s: %v\n%s", name, err, b)
				return
			}
			v, err := exec.Command(out, "--version").Output()
			if err != nil || !strings.HasPrefix(string(v), name+" ") {
				binaries.err = fmt.Errorf("%s --version: %q %v", name, v, err)
				return
			}
			imageBin["/usr/local/bin/"+name] = out
		}
	})
	if binaries.err != nil {
		t.Fatal(binaries.err)
	}
}

// flightsDatabase writes the flights example tables into a DuckDB file.
func flightsDatabase(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warehouse.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	data := filepath.Join(repoRoot, "examples", "flights", "data")
	for _, stmt := range []string{
		fmt.Sprintf(`CREATE TABLE flights AS SELECT * FROM read_parquet('%s')`, filepath.Join(data, "flights-sample.parquet")),
		fmt.Sprintf(`CREATE TABLE airports AS SELECT * FROM read_csv('%s')`, filepath.Join(data, "airports.csv")),
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// directCount is the expected flight_count: COUNT(*) of the flights table.
func directCount(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM flights`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func conditionStatus(o *unstructured.Unstructured, typ string) string {
	for _, c := range conditionsOf(o) {
		if c["type"] == typ {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}

func conditionsOf(o *unstructured.Unstructured) []map[string]any {
	if o == nil {
		return nil
	}
	raw, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	var out []map[string]any
	for _, c := range raw {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func nestedString(o *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(o.Object, path...)
	return s
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
