package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/load"
)

// The shop fixture and helpers below are shared by the tests of the query
// core (package server) and of its front ends (server/httpapi): they
// import nothing of the server, so the core's own tests can use them.

// DataPath is the path of name in server/testdata, the model files and
// tables of the server's tests, wherever the test runs.
func DataPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", name)
}

// ShopTables are the rows of testdata/shop.yaml and slow.yaml.
var ShopTables = func() string {
	b, err := os.ReadFile(DataPath("shop.sql"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// SameRows compares row sets ignoring order; numbers with relative
// tolerance 1e-9 (the shared cases' convention).
func SameRows(got, want [][]any) error {
	key := func(r []any) string { return fmt.Sprint(r...) }
	g := append([][]any(nil), got...)
	w := append([][]any(nil), want...)
	sort.Slice(g, func(i, j int) bool { return key(g[i]) < key(g[j]) })
	sort.Slice(w, func(i, j int) bool { return key(w[i]) < key(w[j]) })
	if len(g) != len(w) {
		return fmt.Errorf("%d rows, want %d\n got %v\nwant %v", len(g), len(w), g, w)
	}
	for i := range g {
		if len(g[i]) != len(w[i]) {
			return fmt.Errorf("row %d: %v, want %v", i, g[i], w[i])
		}
		for j := range g[i] {
			a, b := g[i][j], w[i][j]
			if af, ok := a.(float64); ok {
				bf, ok := b.(float64)
				if !ok || math.Abs(af-bf) > 1e-9*math.Max(1, math.Abs(bf)) {
					return fmt.Errorf("row %d col %d: %v, want %v", i, j, a, b)
				}
				continue
			}
			if a != b {
				return fmt.Errorf("row %d col %d: %v, want %v", i, j, a, b)
			}
		}
	}
	return nil
}

// MustQuery parses a query body (plan.ParseQuery) or fails the test.
func MustQuery(t testing.TB, s string) *plan.Query {
	t.Helper()
	q, probs := plan.ParseQuery([]byte(s))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	return q
}

// JSONRows is rows as a JSON client decodes them (numbers float64,
// dates strings), to compare with an answer read over HTTP or MCP.
func JSONRows(t *testing.T, rows [][]any) [][]any {
	t.Helper()
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	_ = json.Unmarshal(b, &out)
	return out
}

// ArtifactConfigMap is a ConfigMap as the operator publishes it.
func ArtifactConfigMap(ns, name, model string, data []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			v1alpha1.LabelManagedBy: v1alpha1.ManagedByOperator, v1alpha1.LabelArtifact: "true", v1alpha1.LabelModel: v1alpha1.LabelValue(model)}},
		BinaryData: map[string][]byte{v1alpha1.ArtifactKey: data},
	}
}

// EncodeBundle is arts as the operator publishes them (compiler.EncodeBundle).
func EncodeBundle(t *testing.T, arts []*compiler.Artifact) []byte {
	t.Helper()
	b, err := compiler.EncodeBundle(compiler.NewBundle(arts))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Eventually polls cond every 50 ms for up to 30 s; cond returns whether
// it holds and what it saw, shown on failure.
func Eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within 30s; last seen: %s", what, saw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ShopVersion compiles testdata/shop.yaml after edit (nil: unchanged), so
// tests get distinct versions of the same model.
func ShopVersion(t testing.TB, edit func(string) string) []*compiler.Artifact {
	t.Helper()
	data, err := os.ReadFile(DataPath("shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	if edit != nil {
		src = edit(src)
	}
	arts, probs := compiler.Load([]byte(src), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	return arts
}

// DoubledRevenue is a second version of shop whose revenue is twice the
// first one's, so an answer shows which planner produced it.
func DoubledRevenue(s string) string {
	return strings.Replace(s, "expression: SUM(orders.amount)}", "expression: SUM(orders.amount) * 2}", 1)
}

// ShopEngine is an in-memory DuckDB holding ShopTables, closed when the
// test ends.
func ShopEngine(t testing.TB) *duckdb.Engine {
	t.Helper()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Exec(context.Background(), ShopTables); err != nil {
		t.Fatal(err)
	}
	return eng
}

// WideRows is the size of the wide_t table (WideTable, the model of
// testdata/wide.yaml): its answers by k are far larger than the output
// buffer, so they stream and end with trailers.
const WideRows = 40000

// WideTable creates wide_t.
var WideTable = `CREATE TABLE wide_t AS SELECT range AS k,
  'label ' || (range % 7) || CASE WHEN range % 11 = 0 THEN ' "quoted", ünï' ELSE '' END AS label,
  CAST(DATE '2024-01-01' + CAST(range % 400 AS INTEGER) AS DATE) AS day,
  CASE WHEN range % 13 = 0 THEN NULL ELSE range / 4.0 END AS x
FROM range(` + strconv.Itoa(WideRows) + `)`

// Version is the version of the model named name among arts (a server's
// Models), "" when none is.
func Version(arts []*compiler.Artifact, name string) string {
	for _, a := range arts {
		if a.Name == name {
			return a.Version
		}
	}
	return ""
}

// Shop is ShopEngine with the models of testdata/shop.yaml and slow.yaml
// compiled; with wide, also wide_t (WideTable) and testdata/wide.yaml.
func Shop(t testing.TB, wide bool) (*duckdb.Engine, []*compiler.Artifact) {
	t.Helper()
	eng := ShopEngine(t)
	files := []string{DataPath("shop.yaml"), DataPath("slow.yaml")}
	if wide {
		if err := eng.Exec(context.Background(), WideTable); err != nil {
			t.Fatal(err)
		}
		files = append(files, DataPath("wide.yaml"))
	}
	arts, err := load.Models(files, compiler.CompileOptions{})
	if err != nil {
		t.Fatalf("load.Models: %v", err)
	}
	return eng, arts
}
