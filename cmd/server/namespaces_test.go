package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/kubetest"
)

// TestTwoTeamsSameModelName reproduces issue 13 finding 8 on a real
// kube-apiserver: teams a and b each publish a model named "sales" (a's
// counts orders, b's sums amounts). Before, the newer ConfigMap was served
// as /v1/models/sales to every caller; now each is served under its
// namespace, the bare name is 409 OSS5013 naming both paths, and a token
// limited to one namespace reads only its team's model.
func TestTwoTeamsSameModelName(t *testing.T) {
	_, kubeconfig := kubetest.Start(t)
	restCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(restCfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ns, metric := range map[string]string{"team-a": "a_orders: COUNT(orders.id)", "team-b": "b_amount: SUM(orders.amount)"} {
		name, expr, _ := strings.Cut(metric, ": ")
		doc := `version: "0.2.0.dev0"
semantic_model:
  - name: sales
    datasets:
      - name: orders
        source: orders
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}, datatype: Integer}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}, datatype: Decimal}
    metrics:
      - {name: ` + name + `, expression: {dialects: [{dialect: ANSI_SQL, expression: "` + expr + `"}]}}
`
		arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		bundle, err := compiler.EncodeBundle(compiler.NewBundle(arts))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ossie-sales", Labels: map[string]string{v1alpha1.LabelArtifact: "true", v1alpha1.LabelModel: "sales"}},
			BinaryData: map[string][]byte{v1alpha1.ArtifactKey: bundle},
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const admin, tokA, tokB = "admin-token-0123456789abcdef", "team-a-token-0123456789abcd", "team-b-token-0123456789abcd"
	tokens := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(tokens, []byte("tokens:\n"+
		"  - {name: admin, token: "+admin+", roles: [all]}\n"+
		"  - {name: a, token: "+tokA+", roles: [all], namespaces: [team-a]}\n"+
		"  - {name: b, token: "+tokB+", roles: [all], namespaces: [team-b]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const proxySecret = "proxy-secret-0123456789abcdef"
	secretFile := filepath.Join(t.TempDir(), "proxy-secret")
	if err := os.WriteFile(secretFile, []byte(proxySecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--kube", "--kubeconfig", kubeconfig, "--namespaces", "team-a,team-b", "--tokens-file", tokens,
			"--proxy-secret-file", secretFile, "--addr", addr})
	})
	srv.WaitReady(t, func() bool {
		a, _ := srv.Call("GET", "/v1/namespaces/team-a/models/sales", "", admin)
		b, _ := srv.Call("GET", "/v1/namespaces/team-b/models/sales", "", admin)
		return a == 200 && b == 200
	})
	for _, tc := range []struct{ path, want, not string }{
		{"/v1/namespaces/team-a/models/sales", "a_orders", "b_amount"},
		{"/v1/namespaces/team-b/models/sales", "b_amount", "a_orders"},
	} {
		if code, body := srv.Call("GET", tc.path, "", admin); code != 200 || !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) {
			t.Errorf("%s: %d %s", tc.path, code, body)
		}
	}
	if code, body := srv.Call("POST", "/v1/namespaces/team-b/models/sales/sql", `{"metrics":["b_amount"]}`, admin); code != 200 || !strings.Contains(body, "SUM(") {
		t.Errorf("team b's plan: %d %s", code, body)
	}
	if code, body := srv.Call("POST", "/v1/namespaces/team-a/models/sales/sql", `{"metrics":["b_amount"]}`, admin); code != 400 || !strings.Contains(body, "OSS4002") {
		t.Errorf("team b's metric through team a's model: %d %s", code, body)
	}
	code, body := srv.Call("GET", "/v1/models/sales", "", admin)
	if code != 409 || !strings.Contains(body, "OSS5013") || !strings.Contains(body, "/v1/namespaces/team-a/models/sales") || !strings.Contains(body, "/v1/namespaces/team-b/models/sales") {
		t.Errorf("bare name: %d %s", code, body)
	}
	// A credential limited to one namespace reads its team's model under
	// the bare name and never sees the other team's.
	for _, tc := range []struct{ tok, mine, own, other string }{{tokA, "a_orders", "team-a", "team-b"}, {tokB, "b_amount", "team-b", "team-a"}} {
		if code, body := srv.Call("GET", "/v1/models/sales", "", tc.tok); code != 200 || !strings.Contains(body, tc.mine) {
			t.Errorf("bare name for %s: %d %s", tc.mine, code, body)
		}
		// The models offered instead are addressed as the caller addressed
		// (namespace/name), and only the caller's.
		if code, body := srv.Call("GET", "/v1/namespaces/"+tc.other+"/models/sales", "", tc.tok); code != 404 || !strings.Contains(body, "OSS5003") ||
			!strings.Contains(body, "loaded: "+tc.own+"/sales") {
			t.Errorf("the other team's model for %s: %d %s", tc.mine, code, body)
		}
		if code, body := srv.Call("GET", "/v1/models", "", tc.tok); code != 200 || strings.Contains(body, tc.other) {
			t.Errorf("list for %s: %d %s", tc.mine, code, body)
		}
	}
	checkNamespacedMetadata(t, srv, admin)
	checkProxyNamespaces(t, srv, proxySecret)
	checkMCPNamespaces(t, srv, admin, tokA)
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}

// checkNamespacedMetadata: the model list and descriptions say which
// namespace publishes each model, and /readyz has one entry per
// namespace/name instead of one "sales" entry the newer team owns.
func checkNamespacedMetadata(t *testing.T, srv *servertest.Command, admin string) {
	t.Helper()
	code, body := srv.Call("GET", "/v1/models", "", admin)
	var list struct {
		Models []struct{ Name, Namespace string } `json:"models"`
	}
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil {
		t.Fatalf("list: %d %s", code, body)
	}
	got := map[string]bool{}
	for _, m := range list.Models {
		got[m.Namespace+"/"+m.Name] = true
	}
	if len(list.Models) != 2 || !got["team-a/sales"] || !got["team-b/sales"] {
		t.Errorf("list does not show both teams' models by namespace: %s", body)
	}
	for _, ns := range []string{"team-a", "team-b"} {
		var d struct{ Name, Namespace string }
		code, body := srv.Call("GET", "/v1/namespaces/"+ns+"/models/sales", "", admin)
		if err := json.Unmarshal([]byte(body), &d); code != 200 || err != nil || d.Namespace != ns || d.Name != "sales" {
			t.Errorf("detail of %s/sales: %d %s", ns, code, body)
		}
	}
	code, body = srv.Call("GET", "/readyz", "", "")
	var ready struct {
		Models map[string]struct{ Source, Version string } `json:"models"`
	}
	if err := json.Unmarshal([]byte(body), &ready); code != 200 || err != nil {
		t.Fatalf("readyz: %d %s", code, body)
	}
	a, b := ready.Models["team-a/sales"], ready.Models["team-b/sales"]
	if len(ready.Models) != 2 || a.Source != "configmap team-a/ossie-sales" || b.Source != "configmap team-b/ossie-sales" ||
		a.Version == "" || b.Version == "" || a.Version == b.Version {
		t.Errorf("readyz does not report each team's model: %s", body)
	}
}

// proxyCall is a GET of path as the trusted proxy, with the identity
// headers hdr.
func proxyCall(srv *servertest.Command, path, secret string, hdr map[string]string) (int, string) {
	h := http.Header{}
	h.Set("X-Ossie-Proxy-Secret", secret)
	for k, v := range hdr {
		h.Set(k, v)
	}
	return srv.CallWith("GET", path, "", h)
}

// checkProxyNamespaces: an identity from the authenticating proxy carries
// namespaces as a token does (X-Ossie-Namespace).
func checkProxyNamespaces(t *testing.T, srv *servertest.Command, secret string) {
	t.Helper()
	teamB := map[string]string{"X-Ossie-User": "bob", "X-Ossie-Role": "all", "X-Ossie-Namespace": "team-b"}
	if code, body := proxyCall(srv, "/v1/models/sales", secret, teamB); code != 200 || !strings.Contains(body, "b_amount") {
		t.Errorf("proxy team-b, bare name: %d %s", code, body)
	}
	if code, body := proxyCall(srv, "/v1/namespaces/team-a/models/sales", secret, teamB); code != 404 || !strings.Contains(body, "OSS5003") {
		t.Errorf("proxy team-b, team a's model: %d %s", code, body)
	}
	if code, body := proxyCall(srv, "/v1/models", secret, teamB); code != 200 || strings.Contains(body, "team-a") || !strings.Contains(body, "team-b") {
		t.Errorf("proxy team-b, list: %d %s", code, body)
	}
	both := map[string]string{"X-Ossie-Role": "all", "X-Ossie-Namespace": "team-a, team-b"}
	if code, body := proxyCall(srv, "/v1/models/sales", secret, both); code != 409 || !strings.Contains(body, "OSS5013") {
		t.Errorf("proxy with both namespaces, bare name: %d %s", code, body)
	}
	empty := map[string]string{"X-Ossie-Role": "all", "X-Ossie-Namespace": " , "}
	if code, body := proxyCall(srv, "/v1/models", secret, empty); code != 401 {
		t.Errorf("proxy with an empty namespace list: %d %s", code, body)
	}
}

// headerTransport adds headers to every request of the MCP client.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpTool calls tool over /mcp with token and returns the structured
// answer, or the error text of a refused call.
func mcpTool(t *testing.T, srv *servertest.Command, token, tool string, args map[string]any) (string, bool) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + srv.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport{"Authorization": "Bearer " + token}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), false
	}
	out, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), true
}

// checkMCPNamespaces: the MCP tools take a namespace, a bare name two
// namespaces publish is OSS5013 there too, and a token limited to one
// namespace sees only its team's model through MCP.
func checkMCPNamespaces(t *testing.T, srv *servertest.Command, admin, tokA string) {
	t.Helper()
	if out, ok := mcpTool(t, srv, admin, "list_models", map[string]any{}); !ok || !strings.Contains(out, `"namespace":"team-a"`) || !strings.Contains(out, `"namespace":"team-b"`) {
		t.Errorf("mcp list_models (admin): %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, admin, "describe_model", map[string]any{"model": "sales"}); ok || !strings.Contains(out, "OSS5013") {
		t.Errorf("mcp describe_model of the ambiguous bare name: %v %s", ok, out)
	}
	for ns, want := range map[string]string{"team-a": "a_orders", "team-b": "b_amount"} {
		out, ok := mcpTool(t, srv, admin, "describe_model", map[string]any{"model": "sales", "namespace": ns})
		if !ok || !strings.Contains(out, want) || !strings.Contains(out, `"namespace":"`+ns+`"`) {
			t.Errorf("mcp describe_model %s/sales: %v %s", ns, ok, out)
		}
	}
	if out, ok := mcpTool(t, srv, admin, "explain", map[string]any{"model": "sales", "namespace": "team-b", "metrics": []string{"b_amount"}}); !ok || !strings.Contains(out, "SUM(") {
		t.Errorf("mcp explain team-b/sales: %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, admin, "explain", map[string]any{"model": "sales", "namespace": "team-a", "metrics": []string{"b_amount"}}); ok || !strings.Contains(out, "OSS4002") {
		t.Errorf("mcp explain of team b's metric in team-a/sales: %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, tokA, "list_models", map[string]any{}); !ok || strings.Contains(out, "team-b") || !strings.Contains(out, "team-a") {
		t.Errorf("mcp list_models (team a): %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, tokA, "describe_model", map[string]any{"model": "sales"}); !ok || !strings.Contains(out, "a_orders") {
		t.Errorf("mcp describe_model sales (team a): %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, tokA, "describe_model", map[string]any{"model": "sales", "namespace": "team-b"}); ok || !strings.Contains(out, "OSS5003") || strings.Contains(out, "b_amount") {
		t.Errorf("mcp describe_model team-b/sales (team a): %v %s", ok, out)
	}
	if out, ok := mcpTool(t, srv, tokA, "query", map[string]any{"model": "sales", "namespace": "team-b", "metrics": []string{"b_amount"}}); ok || !strings.Contains(out, "OSS5003") {
		t.Errorf("mcp query team-b/sales (team a): %v %s", ok, out)
	}
}
