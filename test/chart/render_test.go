package chart_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// releaseNamespace is where every test installs the chart.
const (
	releaseName      = "ossie"
	releaseNamespace = "ossie-system"
)

// loadChart reads charts/ossie the way `helm install ./charts/ossie` does.
func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	c, err := loadChartErr()
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return c
}

func loadChartErr() (*chart.Chart, error) {
	return loader.Load(filepath.Join(repoRoot, "charts", "ossie"))
}

// renderValues merges vals over the chart's values.yaml, checks them
// against values.schema.json (as `helm install` does) and returns the
// values the templates see.
func renderValues(c *chart.Chart, namespace string, vals map[string]any) (chartutil.Values, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}
	return chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{
		Name: releaseName, Namespace: namespace, Revision: 1, IsInstall: true,
	}, caps)
}

// rendered is the output of one `helm template`: the objects of the
// templates in manifest order, NOTES.txt, and the CRDs of crds/.
type rendered struct {
	objects []*unstructured.Unstructured
	notes   string
	crds    []*unstructured.Unstructured
}

// render is `helm template` with the Helm Go library: values merged and
// schema-checked, templates rendered strictly (a reference to a missing
// value is an error), manifests split and decoded.
func render(c *chart.Chart, namespace string, vals map[string]any) (*rendered, error) {
	values, err := renderValues(c, namespace, vals)
	if err != nil {
		return nil, err
	}
	files, err := engine.Engine{Strict: true}.Render(c, values)
	if err != nil {
		return nil, err
	}
	out := &rendered{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		content := files[name]
		switch {
		case strings.HasSuffix(name, "NOTES.txt"):
			out.notes = content
			continue
		case !strings.HasSuffix(name, ".yaml"):
			continue
		}
		objs, err := decodeManifests(name, content)
		if err != nil {
			return nil, err
		}
		out.objects = append(out.objects, objs...)
	}
	for _, f := range c.CRDObjects() {
		objs, err := decodeManifests(f.Filename, string(f.File.Data))
		if err != nil {
			return nil, err
		}
		out.crds = append(out.crds, objs...)
	}
	return out, nil
}

func decodeManifests(file, content string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	manifests := releaseutil.SplitManifests(content)
	keys := slices.Collect(maps.Keys(manifests))
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	for _, key := range keys {
		m := manifests[key]
		if strings.TrimSpace(m) == "" {
			continue
		}
		var obj map[string]any
		if err := yaml.UnmarshalStrict([]byte(m), &obj); err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", file, err, m)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("%s: object without kind, apiVersion or name:\n%s", file, m)
		}
		out = append(out, u)
	}
	return out, nil
}

func mustRender(t testing.TB, namespace string, vals map[string]any) *rendered {
	t.Helper()
	r, err := render(loadChart(t), namespace, vals)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	return r
}

// find returns the rendered objects of one kind.
func (r *rendered) find(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.objects {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the single object of kind named name, failing otherwise.
func (r *rendered) one(t testing.TB, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range r.find(kind) {
		if o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}
