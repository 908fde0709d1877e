package chart_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// On DuckDB each pod's engine gets --engine-memory-limit from
// engine.duckdb (the operator's under its 1Gi pod limit by default); the
// networked engines, which refuse the flag, get none.
func TestEngineMemoryLimitArgs(t *testing.T) {
	for _, vs := range valueSets {
		r := mustRender(t, vs.namespace, vs.vals)
		engine, _ := vs.vals["engine"].(map[string]any)
		duck := engine == nil || engine["kind"] == nil || engine["kind"] == "duckdb"
		for _, dep := range r.find("Deployment") {
			cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
			args, _, _ := unstructured.NestedStringSlice(cs[0].(map[string]any), "args")
			want := ""
			if duck {
				want = "--engine-memory-limit=1GiB"
				if strings.HasSuffix(dep.GetName(), "operator") {
					want = "--engine-memory-limit=512MiB"
				}
			}
			got := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "--engine-memory-limit") })
			switch {
			case want == "" && got >= 0:
				t.Errorf("%s/%s on a networked engine has %s", vs.name, dep.GetName(), args[got])
			case want != "" && (got < 0 || args[got] != want):
				t.Errorf("%s/%s args %v, want %s", vs.name, dep.GetName(), args, want)
			}
		}
	}
}
