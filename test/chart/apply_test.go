package chart_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// fieldManager is the field owner of the test's applies, as Helm's own.
const fieldManager = "helm"

// TestCRDsMatchGenerated fails when charts/ossie/crds is stale: it must hold
// exactly the files scripts/generate.sh writes to config/crd/bases
// (`make chart-crds` copies them).
func TestCRDsMatchGenerated(t *testing.T) {
	gen, err := filepath.Glob(filepath.Join(repoRoot, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(gen) == 0 {
		t.Fatalf("no generated CRDs in config/crd/bases (%v)", err)
	}
	inChart, err := filepath.Glob(filepath.Join(repoRoot, "charts", "ossie", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inChart) != len(gen) {
		t.Fatalf("charts/ossie/crds has %d files, config/crd/bases %d: run `make chart-crds`", len(inChart), len(gen))
	}
	for _, g := range gen {
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(repoRoot, "charts", "ossie", "crds", filepath.Base(g)))
		if err != nil {
			t.Fatalf("%v: run `make chart-crds`", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("charts/ossie/crds/%s differs from config/crd/bases: run `make chart-crds`", filepath.Base(g))
		}
	}
	r := mustRender(t, releaseNamespace, minimalValues)
	if len(r.crds) != len(gen) {
		t.Errorf("the chart loads %d CRDs from crds/, want %d", len(r.crds), len(gen))
	}
}

// minimalValues are the chart's defaults plus the one choice the chart
// refuses to make for the user: how the server authenticates callers.
var minimalValues = map[string]any{
	"server": map[string]any{"auth": map[string]any{"tokensSecret": map[string]any{"name": "ossie-server-tokens"}}},
}

// valueSets are the configurations every API-server test renders.
var valueSets = []struct {
	name      string
	namespace string
	vals      map[string]any
}{
	{"default", releaseNamespace, minimalValues},
	{"cluster-wide", "ossie-cluster", map[string]any{
		"rbac":     map[string]any{"clusterWide": true},
		"operator": map[string]any{"replicas": 2},
		"engine": map[string]any{
			"kind":           "trino",
			"dsnSecret":      map[string]any{"name": "trino"},
			"defaultCatalog": "hive", "defaultSchema": "sales",
		},
		"server": map[string]any{"auth": map[string]any{"anonymousRoles": []any{"viewer"}}},
	}},
	{"everything", "ossie-full", map[string]any{
		"watchNamespaces": []any{"team-a", "team-b"},
		"engine": map[string]any{
			"kind":           "postgres",
			"dsnSecret":      map[string]any{"name": "warehouse", "key": "url"},
			"passwordSecret": map[string]any{"name": "warehouse-password"},
			"defaultCatalog": "analytics", "defaultSchema": "public", "viewSchema": "governed",
			"viewGrants": map[string]any{"na_partner": "bi_na_partner", "analyst": "bi_analyst"},
		},
		"operator": map[string]any{"replicas": 3, "logLevel": "debug", "resync": "10m"},
		"server": map[string]any{
			"autoscaling":         map[string]any{"enabled": true, "minReplicas": 3, "maxReplicas": 6},
			"podDisruptionBudget": map[string]any{"minAvailable": nil, "maxUnavailable": "25%"},
			"auth": map[string]any{
				"tokensSecret":   map[string]any{"name": "server-tokens"},
				"proxySecret":    map[string]any{"name": "proxy"},
				"reloadInterval": "30s",
			},
			"service": map[string]any{"type": "LoadBalancer"},
			"sql":     map[string]any{"enabled": true},
		},
		"image":          map[string]any{"digest": "sha256:" + string(bytes.Repeat([]byte("ab"), 32))},
		"serviceMonitor": map[string]any{"enabled": true},
	}},
}

// TestRenderedObjectsApply renders each value set and applies every object
// with a server-side dry run, as `helm install --dry-run=server` would:
// the API server checks each against its schema, RBAC objects included.
// ServiceMonitor needs prometheus-operator's CRDs, absent here: it is
// rendered and decoded, not applied.
func TestRenderedObjectsApply(t *testing.T) {
	needAPIServer(t)
	ctx := context.Background()
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			r := mustRender(t, vs.namespace, vs.vals)
			if len(r.objects) < 8 {
				t.Fatalf("only %d objects rendered", len(r.objects))
			}
			for _, ns := range namespacesOf(r, vs.namespace) {
				ensureNamespace(t, ns)
			}
			for _, obj := range r.objects {
				if obj.GetAPIVersion() == "monitoring.coreos.com/v1" {
					continue
				}
				if err := apply(ctx, obj, true); err != nil {
					t.Errorf("%s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
			}
		})
	}
}

// namespacesOf lists the release namespace and every namespace a rendered
// object lives in.
func namespacesOf(r *rendered, release string) []string {
	seen := map[string]bool{release: true}
	out := []string{release}
	for _, o := range r.objects {
		if ns := o.GetNamespace(); ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}

func ensureNamespace(t testing.TB, name string) {
	t.Helper()
	_, err := suite.clientset.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("namespace %s: %v", name, err)
	}
}

// resourceFor maps obj to its dynamic client resource, discovering
// afresh so CRDs installed by the suite are known.
func resourceFor(obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(suite.clientset.Discovery()))
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			return nil, fmt.Errorf("namespaced %s without a namespace", gvk.Kind)
		}
		return suite.dynamic.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
	}
	if obj.GetNamespace() != "" {
		return nil, fmt.Errorf("cluster-scoped %s with namespace %q", gvk.Kind, obj.GetNamespace())
	}
	return suite.dynamic.Resource(m.Resource), nil
}

// apply server-side applies obj with strict field validation (unknown or
// duplicate fields are errors), as a dry run when dryRun is set.
func apply(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) error {
	ri, err := resourceFor(obj)
	if err != nil {
		return err
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	// ApplyOptions has no fieldValidation; apply through Patch to set it.
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, obj.GetName(), "application/apply-patch+yaml", data, metav1.PatchOptions{
		FieldManager: opts.FieldManager, Force: &opts.Force, DryRun: opts.DryRun, FieldValidation: "Strict",
	})
	return err
}

// installCRDs applies the chart's crds/ for real (Helm installs them before
// the templates) and waits until each is Established.
func installCRDs(ctx context.Context) error {
	c, err := loadChartErr()
	if err != nil {
		return err
	}
	r, err := render(c, releaseNamespace, minimalValues)
	if err != nil {
		return err
	}
	for _, crd := range r.crds {
		if err := apply(ctx, crd, false); err != nil {
			return fmt.Errorf("CRD %s: %w", crd.GetName(), err)
		}
		ri, err := resourceFor(crd)
		if err != nil {
			return err
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			live, err := ri.Get(ctx, crd.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not Established: %w", crd.GetName(), err)
		}
	}
	return nil
}

// TestDryRunApplyRejectsInvalidObjects shows the dry run above can fail:
// the API server refuses a rendered object with an unknown field or a
// wrong type, as it would refuse a broken template.
func TestDryRunApplyRejectsInvalidObjects(t *testing.T) {
	needAPIServer(t)
	ensureNamespace(t, releaseNamespace)
	breakers := map[string]func(o *unstructured.Unstructured){
		"unknown field": func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, true, "spec", "template", "spec", "runAsNonRoot")
		},
		"wrong type": func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "two", "spec", "replicas")
		},
		"invalid value": func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "Bad_Name", "spec", "template", "spec", "serviceAccountName")
		},
	}
	for name, breakIt := range breakers {
		t.Run(name, func(t *testing.T) {
			r := mustRender(t, releaseNamespace, minimalValues)
			dep := r.one(t, "Deployment", "ossie-server")
			if err := apply(context.Background(), dep, true); err != nil {
				t.Fatalf("the intact Deployment was refused: %v", err)
			}
			breakIt(dep)
			if err := apply(context.Background(), dep, true); err == nil {
				t.Errorf("the API server accepted the broken Deployment")
			}
		})
	}
}
