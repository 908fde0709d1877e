package ossiectl

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

// A manifest made from a document validates and compiles to the same
// artifact version as the document itself.
func TestManifestRoundTrip(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop.sm.yaml")
	code, stdout, errs := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop", "--namespace", "analytics",
		"--governance", "testdata/manifest/governance.yaml", "-o", out)
	if code != ExitOK || stdout != "" || !strings.Contains(errs, "wrote "+out) {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	manifest := readFile(t, out)
	golden(t, "manifest/shop.sm.yaml", manifest)

	code, stdout, errs = run(t, "", "validate", out, "testdata/shop.yaml")
	if code != ExitOK || stdout != "2 documents valid (0.2.0.dev0: 2)\n" {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, errs)
	}
	// The manifest compiles, as the operator will, to the version of the
	// document governed by the governance file.
	arts, probs := compiler.LoadGoverned(readFile(t, "testdata/shop.yaml"), readFile(t, "testdata/manifest/governance.yaml"), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	code, wrapped, errs := run(t, "", "compile", "--version-only", out)
	if code != ExitOK || wrapped != arts[0].Version+"\n" {
		t.Errorf("manifest compiles to %q, the governed document to %q (exit %d %s)", wrapped, arts[0].Version, code, errs)
	}
	// Without governance, the plain document's version exactly.
	_, sm, _ := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop")
	_, plain, _ := run(t, "", "compile", "--version-only", "testdata/shop.yaml")
	code, wrapped, errs = run(t, "", "compile", "--version-only", writeTemp(t, "ungoverned.sm.yaml", sm))
	if code != ExitOK || plain != wrapped || !strings.HasPrefix(plain, "sha256:") || plain == arts[0].Version+"\n" {
		t.Errorf("versions differ: plain %q, manifest %q (exit %d %s)", plain, wrapped, code, errs)
	}

	// JSON documents become YAML manifests; stdout by default.
	code, stdout, errs = run(t, "", "manifest", "testdata/small.json", "--name", "small")
	if code != ExitOK || !strings.Contains(stdout, "kind: SemanticModel") || strings.Contains(stdout, "namespace:") {
		t.Fatalf("json: exit %d\n%s%s", code, stdout, errs)
	}
	if code, out, errs := run(t, "", "validate", writeTemp(t, "small.sm.yaml", stdout)); code != ExitOK || !strings.Contains(out, "(0.1.1: 1)") {
		t.Errorf("json manifest: exit %d\n%s%s", code, out, errs)
	}
}

// Problems in a manifest carry the manifest's paths and line numbers.
func TestValidateManifestProblems(t *testing.T) {
	_, manifest, _ := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop")
	broken := strings.Replace(manifest, "expression: SUM(orders.amount)}", "expression: SUM(ordrs.amount)}", 1)
	p := writeTemp(t, "broken.sm.yaml", broken)
	code, out, _ := run(t, "", "validate", p)
	if code != ExitProblems {
		t.Fatalf("exit %d\n%s", code, out)
	}
	m := regexp.MustCompile(`broken\.sm\.yaml:(\d+):\d+: (spec\.semantic_model\[0\]\.metrics\[1\]\S*): error OSS\d+`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no manifest-located problem in\n%s", out)
	}
	line, _ := strconv.Atoi(m[1])
	lines := strings.Split(broken, "\n")
	if line < 1 || line > len(lines) || !strings.Contains(lines[line-1], "expression") && !strings.Contains(lines[line-1], "revenue") {
		t.Errorf("%s reported at line %d: %q", m[2], line, lines[line-1])
	}
	// A wrong apiVersion is named as such.
	p = writeTemp(t, "old.sm.yaml", strings.Replace(manifest, "ossie.dev/v1alpha1", "ossie.dev/v0", 1))
	if code, out, _ := run(t, "", "validate", p); code != ExitProblems || !strings.Contains(out, `apiVersion "ossie.dev/v0" is not read by this build`) {
		t.Errorf("apiVersion: exit %d\n%s", code, out)
	}
}

// A key given twice in a manifest's spec is the document's problem, at
// the second key, and the rest of the spec is still read (before, the
// manifest was then read as a plain document: OSS1006 for a missing
// version at 1:1).
func TestValidateManifestDuplicateKey(t *testing.T) {
	p := writeTemp(t, "dup.sm.yaml", "apiVersion: ossie.dev/v1alpha1\nkind: SemanticModel\nmetadata: {name: m}\nspec:\n"+
		"  version: \"0.2.0.dev0\"\n  semantic_model:\n    - name: a\n      name: b\n      datasets: 3\n")
	code, out, _ := run(t, "", "validate", p)
	for _, want := range []string{
		"dup.sm.yaml:8:7: spec.semantic_model[0].name: error OSS1004: ",
		"dup.sm.yaml:9:7: spec.semantic_model[0].datasets: error OSS1003: ",
	} {
		if code != ExitProblems || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "OSS1006") {
		t.Errorf("the spec's version was not read:\n%s", out)
	}
}

func TestManifestBadInput(t *testing.T) {
	dir := t.TempDir()
	badGov := writeTemp(t, "gov.yaml", "roles:\n  - name: a\n    colour: red\n")
	badRef := writeTemp(t, "ref.yaml", "roles:\n  - name: a\n    row_filters:\n      - dataset: nowhere\n        expression: x = 1\n")
	badView := writeTemp(t, "view.yaml", "roles: [{name: a}]\nviews:\n  - {name: v, role: boss, metrics: [revenue]}\n")
	out := filepath.Join(dir, "x.yaml")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"testdata/shop.yaml"}, ExitUsage, `"name" not set`},
		{[]string{"testdata/shop.yaml", "--name", "Not_A_Name"}, ExitUsage, "is not a Kubernetes object name"},
		{[]string{"testdata/shop.yaml", "--name", "x", "--namespace", "a.b"}, ExitUsage, "is not a namespace name"},
		{[]string{"testdata/broken.yaml", "--name", "x", "-o", out}, ExitProblems, "nothing was written. Next: fix them in the files named"},
		{[]string{"testdata/shop.yaml", "--name", "x", "--governance", badGov, "-o", out}, ExitProblems, `unknown field "colour"`},
		{[]string{"testdata/shop.yaml", "--name", "x", "--governance", filepath.Join(dir, "nope.yaml")}, ExitProblems, "cannot read the governance file"},
		{[]string{"testdata/shop.yaml", "--name", "x", "--governance", badRef, "-o", out}, ExitProblems, badRef + ":"},
		{[]string{"testdata/shop.yaml", "--name", "x", "--governance", badView, "-o", out}, ExitProblems, `views[0].role: error OSS2009: role "boss" is not declared in governance.roles`},
	} {
		code, stdout, errs := run(t, "", append([]string{"manifest"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, stdout, errs)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a manifest was written despite the problems")
	}
	// A manifest is not wrapped twice.
	_, sm, _ := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop")
	if code, _, errs := run(t, "", "manifest", writeTemp(t, "sm.yaml", sm), "--name", "shop"); code != ExitProblems || !strings.Contains(errs, "already a SemanticModel manifest") {
		t.Errorf("manifest of a manifest: exit %d %s", code, errs)
	}
}

// Views are planned under their roles by the operator's own code
// (compiler/views): manifest and validate refuse what the operator would,
// every problem at once, with paths views[i].metrics[j].
func TestManifestPlansViews(t *testing.T) {
	gov := writeTemp(t, "gov.yaml", `roles:
  - name: analyst
  - name: counter
    metrics: {allow: [order_count]}
  - name: local
    row_filters:
      - dataset: customers
        expression: "state = {{ caller.region }}"
attributes:
  - name: region
views:
  - {name: ok, role: analyst, metrics: [revenue], dimensions: [{field: customers.state}]}
  - {name: typo, role: analyst, metrics: [order_count, revenu]}
  - {name: hidden, role: counter, metrics: [revenue]}
  - {name: ghost, role: boss, metrics: [revenue]}
  - {name: percaller, role: local, metrics: [revenue]}
`)
	out := filepath.Join(t.TempDir(), "x.yaml")
	code, _, errs := run(t, "", "manifest", "testdata/shop.yaml", "--name", "x", "--governance", gov, "-o", out)
	if code != ExitProblems {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{
		`views[1].metrics[1]: error OSS4`, // unknown metric, did you mean
		`views[2].metrics[0]: error OSS4`, // a metric the role may not read
		`views[3].role: error OSS2009`,
		`views[4].role: error OSS2017`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("missing %q in\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "views[0]") {
		t.Errorf("the good view was refused:\n%s", errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("written despite the problems")
	}

	// The same views in a hand-written manifest: validate refuses them too,
	// at spec.views paths with the manifest's line numbers.
	_, sm, _ := run(t, "", "manifest", "testdata/shop.yaml", "--name", "x", "--governance", "testdata/manifest/governance.yaml")
	bad := strings.Replace(sm, "      metrics:\n        - revenue\n", "      metrics:\n        - revenu\n", 1)
	if bad == sm {
		t.Fatal("fixture: no view metric to break")
	}
	code, stdout, _ := run(t, "", "validate", writeTemp(t, "bad.sm.yaml", bad))
	if code != ExitProblems || !regexp.MustCompile(`bad\.sm\.yaml:\d+:\d+: spec\.views\[0\]\.metrics\[0\]: error OSS4\d+`).MatchString(stdout) {
		t.Errorf("validate manifest view: exit %d\n%s", code, stdout)
	}
	// And with a --governance file next to a plain document.
	code, stdout, _ = run(t, "", "validate", "--governance", gov, "testdata/shop.yaml")
	if code != ExitProblems || !strings.Contains(stdout, "governance.views[1].metrics[1]") || !strings.Contains(stdout, gov+":") {
		t.Errorf("validate --governance views: exit %d\n%s", code, stdout)
	}
}
