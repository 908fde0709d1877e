package chart_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// grant is one row of the RBAC table (DESIGN.md section 4, docs/install.md):
// verbs on one resource of one API group, optionally only on named objects.
type grant struct {
	group, resource string
	names           []string // nil: any object
	verbs           []string
}

// The table. A rendered rule passes only when every (group, resource,
// verb) it grants is in a row, on the row's names when the row has some.
// Widening the chart's RBAC means changing this table on purpose.
var (
	// operatorWatched: in each watched namespace, or cluster-wide.
	operatorWatched = []grant{
		{"ossie.dev", "semanticmodels", nil, []string{"get", "list", "watch", "update", "patch"}},
		{"ossie.dev", "semanticmodels/status", nil, []string{"get", "update", "patch"}},
		{"ossie.dev", "semanticmodels/finalizers", nil, []string{"update"}},
		{"", "configmaps", nil, []string{"get", "list", "watch", "create", "update", "delete"}},
		{"events.k8s.io", "events", nil, []string{"create", "patch"}},
	}
	// operatorLeaderElection: only in the release namespace. A Lease
	// cannot be limited by name on create (it does not exist yet).
	operatorLeaderElection = []grant{
		{"coordination.k8s.io", "leases", nil, []string{"create"}},
		{"coordination.k8s.io", "leases", []string{"ossie-operator.ossie.dev"}, []string{"get", "update", "patch"}},
		{"", "events", nil, []string{"create", "patch"}},
	}
	// serverWatched: in each watched namespace, or cluster-wide.
	serverWatched = []grant{
		{"", "configmaps", nil, []string{"get", "list", "watch"}},
	}
)

// ruleViolations lists what rules grant beyond allowed (empty: nothing).
func ruleViolations(rules []rbacv1.PolicyRule, allowed []grant) []string {
	var out []string
	for i, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			out = append(out, fmt.Sprintf("rule %d: nonResourceURLs %v", i, r.NonResourceURLs))
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if !permitted(allowed, g, res, v, r.ResourceNames) {
						out = append(out, fmt.Sprintf("rule %d: %s %s/%s names=%v", i, v, g, res, r.ResourceNames))
					}
				}
			}
		}
	}
	return out
}

func permitted(allowed []grant, group, resource, verb string, names []string) bool {
	for _, a := range allowed {
		if a.group != group || a.resource != resource || !slices.Contains(a.verbs, verb) {
			continue
		}
		if a.names == nil {
			return true
		}
		if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(a.names, n) }) {
			return true
		}
	}
	return false
}

// rbacViolations checks every Role and ClusterRole of r through the
// bindings that grant it: a role bound to the operator's ServiceAccount
// may hold operatorWatched (plus operatorLeaderElection in a Role of the
// release namespace), one bound to the server's only serverWatched.
// Unbound roles, bindings to other subjects and roles bound to both are
// violations too.
func rbacViolations(r *rendered, namespace string) []string {
	opSA, srvSA := "ossie-operator", "ossie-server"
	roles := map[string]*unstructured.Unstructured{} // kind/namespace/name
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range r.find(kind) {
			roles[kind+"/"+o.GetNamespace()+"/"+o.GetName()] = o
		}
	}
	var out []string
	boundTo := map[string][]string{}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		for _, o := range r.find(kind) {
			var b rbacv1.RoleBinding // same shape as ClusterRoleBinding
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
				out = append(out, fmt.Sprintf("%s %s: %v", kind, o.GetName(), err))
				continue
			}
			key := b.RoleRef.Kind + "/" + o.GetNamespace() + "/" + b.RoleRef.Name
			if b.RoleRef.Kind == "ClusterRole" {
				key = "ClusterRole//" + b.RoleRef.Name
			}
			if _, ok := roles[key]; !ok {
				out = append(out, fmt.Sprintf("%s %s binds %s, not rendered by the chart", kind, o.GetName(), key))
			}
			for _, s := range b.Subjects {
				if s.Kind != "ServiceAccount" || s.Namespace != namespace || (s.Name != opSA && s.Name != srvSA) {
					out = append(out, fmt.Sprintf("%s %s binds subject %s %s/%s", kind, o.GetName(), s.Kind, s.Namespace, s.Name))
					continue
				}
				boundTo[key] = append(boundTo[key], s.Name)
			}
		}
	}
	for key, o := range roles {
		var role rbacv1.Role // same shape as ClusterRole (no aggregation used)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
			out = append(out, fmt.Sprintf("%s: %v", key, err))
			continue
		}
		if _, agg := o.Object["aggregationRule"]; agg {
			out = append(out, key+": aggregationRule")
		}
		subjects := slices.Compact(slices.Sorted(slices.Values(boundTo[key])))
		var allowed []grant
		switch {
		case len(subjects) != 1:
			out = append(out, fmt.Sprintf("%s is bound to %v, want exactly one ServiceAccount", key, subjects))
			continue
		case subjects[0] == srvSA:
			allowed = serverWatched
		case strings.HasPrefix(key, "Role/"+namespace+"/"):
			allowed = append(slices.Clone(operatorWatched), operatorLeaderElection...)
		default:
			allowed = operatorWatched
		}
		for _, v := range ruleViolations(role.Rules, allowed) {
			out = append(out, key+": "+v)
		}
	}
	slices.Sort(out)
	return out
}

// TestRBACNoWiderThanTable renders each value set and checks every rule
// against the table, and where the rules live: Roles in exactly the
// watched namespaces by default, ClusterRoles only when cluster-wide.
func TestRBACNoWiderThanTable(t *testing.T) {
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			r := mustRender(t, vs.namespace, vs.vals)
			if v := rbacViolations(r, vs.namespace); len(v) > 0 {
				t.Errorf("RBAC wider than the table:\n%s", strings.Join(v, "\n"))
			}
			var roleNS []string
			for _, o := range r.find("Role") {
				roleNS = append(roleNS, o.GetNamespace()+"/"+o.GetName())
			}
			slices.Sort(roleNS)
			clusterRoles := len(r.find("ClusterRole")) + len(r.find("ClusterRoleBinding"))
			var want []string
			switch vs.name {
			case "default":
				want = []string{"ossie-system/ossie-operator", "ossie-system/ossie-operator-leader-election", "ossie-system/ossie-server"}
			case "cluster-wide":
				want = []string{"ossie-cluster/ossie-operator-leader-election"}
			case "everything":
				want = []string{"ossie-full/ossie-operator-leader-election", "team-a/ossie-operator", "team-a/ossie-server", "team-b/ossie-operator", "team-b/ossie-server"}
			}
			if !slices.Equal(roleNS, want) {
				t.Errorf("Roles %v, want %v", roleNS, want)
			}
			if wantCluster := vs.name == "cluster-wide"; (clusterRoles == 4) != wantCluster || (!wantCluster && clusterRoles != 0) {
				t.Errorf("%d ClusterRoles and ClusterRoleBindings, cluster-wide=%v", clusterRoles, wantCluster)
			}
		})
	}
}

// TestRBACCheckFailsOnWiderRules shows the check above can fail: each
// widening of a rendered rule is reported.
func TestRBACCheckFailsOnWiderRules(t *testing.T) {
	widen := map[string]func(rules []any) []any{
		"extra verb": func(rules []any) []any {
			r := rules[3].(map[string]any) // configmaps
			r["verbs"] = append(r["verbs"].([]any), "deletecollection")
			return rules
		},
		"extra resource": func(rules []any) []any {
			r := rules[3].(map[string]any)
			r["resources"] = append(r["resources"].([]any), "secrets")
			return rules
		},
		"wildcard": func(rules []any) []any {
			return append(rules, map[string]any{"apiGroups": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}})
		},
		"lease by any name": func(rules []any) []any {
			return append(rules, map[string]any{"apiGroups": []any{"coordination.k8s.io"}, "resources": []any{"leases"}, "verbs": []any{"update"}})
		},
	}
	for name, f := range widen {
		t.Run(name, func(t *testing.T) {
			r := mustRender(t, releaseNamespace, minimalValues)
			role := r.one(t, "Role", "ossie-operator")
			rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
			if err := unstructured.SetNestedSlice(role.Object, f(rules), "rules"); err != nil {
				t.Fatal(err)
			}
			if v := rbacViolations(r, releaseNamespace); len(v) == 0 {
				t.Errorf("widened rules passed the check")
			}
		})
	}
}
