package chart_test

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// server.sql.enabled exposes the SQL endpoint: --pg-addr on the server,
// a container port and a Service port named sql; off by default.
func TestSQLEndpointPort(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		vals := minimalValues
		if enabled {
			vals = merge(minimalValues, map[string]any{"server": map[string]any{"sql": map[string]any{"enabled": true}}})
		}
		r := mustRender(t, releaseNamespace, vals)
		var args, ports []string
		for _, dep := range r.find("Deployment") {
			cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
			for _, c := range cs {
				a, _, _ := unstructured.NestedStringSlice(c.(map[string]any), "args")
				args = append(args, a...)
				ps, _, _ := unstructured.NestedSlice(c.(map[string]any), "ports")
				for _, p := range ps {
					ports = append(ports, fmt.Sprintf("%v:%v", p.(map[string]any)["name"], p.(map[string]any)["containerPort"]))
				}
			}
		}
		var svc []string
		for _, s := range r.find("Service") {
			ps, _, _ := unstructured.NestedSlice(s.Object, "spec", "ports")
			for _, p := range ps {
				svc = append(svc, fmt.Sprintf("%v:%v", p.(map[string]any)["name"], p.(map[string]any)["port"]))
			}
		}
		if got := slices.Contains(args, "--pg-addr=:15432"); got != enabled {
			t.Errorf("enabled=%t: server args %v", enabled, args)
		}
		if got := slices.Contains(ports, "sql:15432"); got != enabled {
			t.Errorf("enabled=%t: container ports %v", enabled, ports)
		}
		if got := slices.Contains(svc, "sql:5432"); got != enabled {
			t.Errorf("enabled=%t: service ports %v", enabled, svc)
		}
	}
}
