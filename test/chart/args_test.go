package chart_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// secretsOfValueSets are the Secrets the value sets name, with content the
// binaries accept as configuration (the engines they point at do not run).
var secretsOfValueSets = map[string]map[string]map[string]string{
	releaseNamespace: {"ossie-server-tokens": {"tokens": "tokens:\n  - name: a\n    token: aaaaaaaaaaaaaaaaaaaaaaaa\n    roles: [analyst]\n"}},
	"ossie-cluster":  {"trino": {"dsn": "http://ossie@127.0.0.1:1?catalog=hive&schema=sales"}},
	"ossie-full": {
		"warehouse":          {"url": "postgres://ossie@127.0.0.1:1/analytics?connect_timeout=1"},
		"warehouse-password": {"password": "not-used"},
		"server-tokens":      {"tokens": "tokens:\n  - name: a\n    token: aaaaaaaaaaaaaaaaaaaaaaaa\n    roles: [analyst]\n"},
		"proxy":              {"secret": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
	},
}

// TestRenderedArgsAreAccepted runs the operator and server binaries with
// the arguments rendered for every value set (Secrets mounted as the
// kubelet would). Both exit with status 2 on a usage error — an unknown
// flag, a bad value, a forbidden combination — before doing anything else;
// any other outcome (running, or failing later to reach an engine that is
// not there) means the chart and the binaries agree on the flags.
func TestRenderedArgsAreAccepted(t *testing.T) {
	needAPIServer(t)
	buildBinaries(t)
	ctx := context.Background()
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			ensureNamespace(t, vs.namespace)
			for name, data := range secretsOfValueSets[vs.namespace] {
				_, err := suite.clientset.CoreV1().Secrets(vs.namespace).Create(ctx, &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: data,
				}, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatal(err)
				}
			}
			r := mustRender(t, vs.namespace, vs.vals)
			for _, dep := range r.find("Deployment") {
				p := startPod(t, dep, nil)
				select {
				case <-p.exited:
				case <-time.After(3 * time.Second):
				}
				p.stop()
				var exit *exec.ExitError
				if errors.As(p.exitErr, &exit) && exit.ExitCode() == 2 {
					t.Errorf("%s refused its rendered arguments:\n%s", dep.GetName(), p.output())
				}
			}
		})
	}
	// The control: an argument the binaries do not know is seen.
	t.Run("unknown flag is caught", func(t *testing.T) {
		bogus := map[string]any{"extraArgs": []any{"--no-such-flag"}}
		r := mustRender(t, releaseNamespace, merge(minimalValues, map[string]any{"operator": bogus, "server": bogus}))
		for _, dep := range r.find("Deployment") {
			p := startPod(t, dep, nil)
			select {
			case <-p.exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s ran with an unknown flag", dep.GetName())
			}
			var exit *exec.ExitError
			if !errors.As(p.exitErr, &exit) || exit.ExitCode() != 2 {
				t.Errorf("%s with an unknown flag: %v, want exit status 2", dep.GetName(), p.exitErr)
			}
		}
	})
}
