package chart_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func deployment(t *testing.T, r *rendered, name string) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.one(t, "Deployment", name).Object, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDeploymentsHardened: for every value set, both pods run as non-root
// with the default seccomp profile, a read-only root filesystem, no
// privilege escalation and every capability dropped, with resources and
// HTTP probes (operator on its probe port 8081).
func TestDeploymentsHardened(t *testing.T) {
	for _, vs := range valueSets {
		r := mustRender(t, vs.namespace, vs.vals)
		for _, name := range []string{"ossie-operator", "ossie-server"} {
			d := deployment(t, r, name)
			ps := d.Spec.Template.Spec
			where := vs.name + "/" + name
			if ps.SecurityContext == nil || ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot ||
				ps.SecurityContext.SeccompProfile == nil || ps.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("%s: pod securityContext %+v", where, ps.SecurityContext)
			}
			if ps.HostNetwork || ps.HostPID || ps.HostIPC {
				t.Errorf("%s: host namespaces", where)
			}
			for _, v := range ps.Volumes {
				if v.HostPath != nil {
					t.Errorf("%s: hostPath volume %s", where, v.Name)
				}
			}
			c := ps.Containers[0]
			sc := c.SecurityContext
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
				sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				(sc.Privileged != nil && *sc.Privileged) || sc.Capabilities == nil ||
				!slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
				t.Errorf("%s: container securityContext %+v", where, sc)
			}
			if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("%s: no memory request/limit", where)
			}
			if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
				c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				t.Errorf("%s: probes %+v %+v", where, c.LivenessProbe, c.ReadinessProbe)
			}
			if name == "ossie-operator" {
				port := c.ReadinessProbe.HTTPGet.Port.StrVal
				if i := slices.IndexFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == port }); i < 0 || c.Ports[i].ContainerPort != 8081 {
					t.Errorf("%s: probes on port %q, want 8081", where, port)
				}
				standbys := d.Spec.Replicas != nil && *d.Spec.Replicas > 1
				if standbys && !slices.Contains(c.Args, "--leader-elect") {
					t.Errorf("%s: %d replicas without --leader-elect", where, *d.Spec.Replicas)
				}
			}
		}
	}
	if d := deployment(t, mustRender(t, releaseNamespace, minimalValues), "ossie-operator"); *d.Spec.Replicas != 1 {
		t.Errorf("default operator replicas %d, want 1 active", *d.Spec.Replicas)
	}
}
