package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--kube", "--kubeconfig", kubeconfig, "--namespaces", "team-a,team-b", "--tokens-file", tokens, "--addr", addr})
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
	for _, tc := range []struct{ tok, mine, other string }{{tokA, "a_orders", "team-b"}, {tokB, "b_amount", "team-a"}} {
		if code, body := srv.Call("GET", "/v1/models/sales", "", tc.tok); code != 200 || !strings.Contains(body, tc.mine) {
			t.Errorf("bare name for %s: %d %s", tc.mine, code, body)
		}
		if code, body := srv.Call("GET", "/v1/namespaces/"+tc.other+"/models/sales", "", tc.tok); code != 404 || !strings.Contains(body, "OSS5003") {
			t.Errorf("the other team's model for %s: %d %s", tc.mine, code, body)
		}
		if code, body := srv.Call("GET", "/v1/models", "", tc.tok); code != 200 || strings.Contains(body, tc.other) {
			t.Errorf("list for %s: %d %s", tc.mine, code, body)
		}
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}
