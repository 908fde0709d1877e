package ossiectl

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// edit returns testdata/shop.yaml with each old→new replacement applied
// exactly once (a replacement that does not apply fails the test).
func edit(t *testing.T, pairs ...string) string {
	t.Helper()
	s := string(readFile(t, "testdata/shop.yaml"))
	for i := 0; i < len(pairs); i += 2 {
		if strings.Count(s, pairs[i]) != 1 {
			t.Fatalf("%q occurs %d times in shop.yaml", pairs[i], strings.Count(s, pairs[i]))
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type diffJSON struct {
	Changes []change    `json:"changes"`
	Summary diffSummary `json:"summary"`
}

func TestDiffClassifiesChanges(t *testing.T) {
	type want struct {
		kind, object, name, newName string
		breaking                    bool
	}
	cases := []struct {
		name  string
		edits []string
		want  []want
	}{
		{"metric removed", []string{
			"      - name: avg_amount\n        expression: {dialects: [{dialect: ANSI_SQL, expression: AVG(orders.amount)}]}\n", ""},
			[]want{{"removed", "metric", "avg_amount", "", true}}},
		{"metric renamed", []string{"- name: order_count", "- name: orders_placed"},
			[]want{{"renamed", "metric", "order_count", "orders_placed", true}}},
		{"metric expression changed", []string{"expression: SUM(orders.amount)}", "expression: SUM(orders.amount) - 1}"},
			[]want{{"changed", "metric", "revenue", "", true}}},
		{"metric reformatted only", []string{"expression: SUM(orders.amount)}", "expression: \"SUM(orders.amount)  \"}"},
			nil},
		{"metric added", []string{"    metrics:\n", "    metrics:\n      - name: max_amount\n        expression: {dialects: [{dialect: ANSI_SQL, expression: MAX(orders.amount)}]}\n"},
			[]want{{"added", "metric", "max_amount", "", false}}},
		{"dimension field removed", []string{
			"          - name: state\n            expression: {dialects: [{dialect: ANSI_SQL, expression: state}]}\n            datatype: String\n", ""},
			[]want{{"removed", "field", "customers.state", "", true}}},
		{"dimension field renamed", []string{"- name: state", "- name: region"},
			[]want{{"renamed", "field", "customers.state", "customers.region", true}}},
		{"field datatype and description changed", []string{"description: placed, shipped or returned", "description: placed or shipped"},
			[]want{{"changed", "field", "orders.status", "", false}}},
		{"join keys changed", []string{"to_columns: [customer_id]", "to_columns: [state]"},
			[]want{{"changed", "relationship", "orders_to_customers", "", true}}},
		{"relationship renamed", []string{"- name: orders_to_customers", "- name: order_customer"},
			[]want{{"renamed", "relationship", "orders_to_customers", "order_customer", true}}},
		{"dataset source changed", []string{"source: customers", "source: crm.customers"},
			[]want{{"changed", "dataset", "customers", "", false}}},
		{"model description changed", []string{"description: Orders of a small shop", "description: Orders of a shop"},
			[]want{{"changed", "model", "shop", "", false}}},
		// Ossie extensions: a zone changes which rows a day holds; rollups
		// change only how answers are found; other vendors' are not read.
		{"model time zone declared", []string{"    datasets:\n", "    custom_extensions:\n      - {vendor_name: OSSIE, data: '{\"timezone\": \"America/New_York\"}'}\n    datasets:\n"},
			[]want{{"changed", "model", "shop", "", true}}},
		{"model rollups declared", []string{"    datasets:\n", "    custom_extensions:\n      - {vendor_name: OSSIE, data: '{\"rollups\": [{\"name\": \"by_state\", \"measures\": [\"revenue\"], \"dimensions\": [\"customers.state\"]}]}'}\n    datasets:\n"},
			[]want{{"changed", "model", "shop", "", false}}},
		{"dataset time zone declared", []string{"        source: orders\n", "        source: orders\n        custom_extensions: [{vendor_name: OSSIE, data: '{\"timezone\": \"Europe/Amsterdam\"}'}]\n"},
			[]want{{"changed", "dataset", "orders", "", true}}},
		{"metric of another vendor's extension", []string{"      - name: avg_amount\n", "      - name: avg_amount\n        custom_extensions: [{vendor_name: ACME, data: '{\"format\": \"$0.00\"}'}]\n"},
			[]want{{"changed", "metric", "avg_amount", "", false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			newFile := writeTemp(t, "new.yaml", edit(t, tc.edits...))
			code, out, errs := run(t, "", "diff", "testdata/shop.yaml", newFile, "-f", "json")
			if code != ExitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			var got diffJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(got.Changes) != len(tc.want) {
				t.Fatalf("changes %+v, want %+v", got.Changes, tc.want)
			}
			breaking := 0
			for i, w := range tc.want {
				c := got.Changes[i]
				if c.Kind != w.kind || c.Object != w.object || c.Name != w.name || c.NewName != w.newName || c.Breaking != w.breaking || c.Model != "shop" {
					t.Errorf("change %+v, want %+v", c, w)
				}
				if c.Breaking {
					breaking++
					if c.Reason == "" {
						t.Errorf("breaking change without a reason: %+v", c)
					}
				}
			}
			if got.Summary.Breaking != breaking {
				t.Errorf("summary %+v", got.Summary)
			}
			code, _, errs = run(t, "", "diff", "--fail-on", "breaking", "testdata/shop.yaml", newFile)
			if wantCode := map[bool]int{true: ExitProblems, false: ExitOK}[breaking > 0]; code != wantCode {
				t.Errorf("--fail-on breaking: exit %d, want %d\n%s", code, wantCode, errs)
			}
		})
	}
}

func TestDiffTextOutput(t *testing.T) {
	newFile := writeTemp(t, "new.yaml", edit(t, "- name: order_count", "- name: orders_placed", "source: customers", "source: crm.customers"))
	code, out, _ := run(t, "", "diff", "testdata/shop.yaml", newFile)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := "          changed  dataset  shop/customers                     source customers -> crm.customers\n" +
		"BREAKING  renamed  metric   shop/order_count -> orders_placed  queries and views naming this metric fail\n" +
		"2 changes (0 added, 0 removed, 1 changed, 1 renamed); 1 breaking\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	code, out, _ = run(t, "", "diff", "testdata/shop.yaml", "testdata/shop.yaml", "--fail-on", "any")
	if code != ExitOK || out != "no changes\n" {
		t.Errorf("same file: exit %d %q", code, out)
	}
}

// REV:PATH arguments are read from git, as in CI comparing a branch with
// its base.
func TestDiffGitRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	if err := os.MkdirAll(filepath.Join(repo, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(repo, "models", "shop.yaml")
	if err := os.WriteFile(model, readFile(t, "testdata/shop.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "shop")
	if err := os.WriteFile(model, []byte(edit(t, "expression: SUM(orders.amount)}", "expression: SUM(orders.amount) * 2}")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	code, out, errs := run(t, "", "diff", "HEAD:models/shop.yaml", "models/shop.yaml", "--fail-on", "breaking")
	if code != ExitProblems || !strings.Contains(out, `BREAKING  changed  metric  shop/revenue  expression "SUM(orders.amount)" -> "SUM(orders.amount) * 2"`) ||
		!strings.Contains(errs, "1 breaking change (--fail-on breaking)") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "", "diff", "nosuchrev:models/shop.yaml", "models/shop.yaml")
	if code != ExitProblems || !strings.Contains(errs, "git show nosuchrev:models/shop.yaml") || !strings.Contains(errs, "Next:") {
		t.Errorf("bad revision: exit %d\n%s", code, errs)
	}
}

func TestDiffBadInput(t *testing.T) {
	code, _, errs := run(t, "", "diff", "testdata/broken.yaml", "testdata/shop.yaml")
	if code != ExitProblems || !strings.Contains(errs, "testdata/broken.yaml:") || !strings.Contains(errs, "cannot be read as an Ossie document") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if code, _, _ := run(t, "", "diff", "testdata/shop.yaml"); code != ExitUsage {
		t.Errorf("one argument: exit %d", code)
	}
	if code, _, _ := run(t, "", "diff", "--fail-on", "sometimes", "testdata/shop.yaml", "testdata/shop.yaml"); code != ExitUsage {
		t.Errorf("bad --fail-on: exit %d", code)
	}
}

// Between SemanticModel manifests, views and roles are compared too: BI
// tools read views directly, so a removed or changed view breaks them.
func TestDiffManifestViewsAndRoles(t *testing.T) {
	dir := t.TempDir()
	oldSM := filepath.Join(dir, "old.sm.yaml")
	if code, _, errs := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop", "--governance", "testdata/manifest/governance.yaml", "-o", oldSM); code != ExitOK {
		t.Fatal(errs)
	}
	gov := strings.NewReplacer("metrics: [revenue]", "metrics: [revenue, order_count]",
		"  - name: field_sales\n    metrics: {allow: [\"order_count\", \"revenue\"]}\n    row_filters:\n      - dataset: customers\n        expression: \"state = {{ caller.region }}\"\n", "").
		Replace(string(readFile(t, "testdata/manifest/governance.yaml")))
	gov += "  - name: orders_by_state\n    role: analyst\n    metrics: [order_count]\n    dimensions: [{field: customers.state}]\n"
	newSM := filepath.Join(dir, "new.sm.yaml")
	if code, _, errs := run(t, "", "manifest", "testdata/shop.yaml", "--name", "shop", "--governance", writeTemp(t, "gov.yaml", gov), "-o", newSM); code != ExitOK {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "", "diff", oldSM, newSM, "-f", "json")
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, errs)
	}
	var got diffJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"changed view revenue_by_state true", "added view orders_by_state false", "removed role field_sales true"}
	var have []string
	for _, c := range got.Changes {
		have = append(have, c.Kind+" "+c.Object+" "+c.Name+" "+map[bool]string{true: "true", false: "false"}[c.Breaking])
	}
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
	}
	// The next step speaks of views and roles, not of metric names.
	code, _, errs = run(t, "", "diff", oldSM, newSM, "--fail-on", "breaking")
	if code != ExitProblems || !strings.Contains(errs, "keep the view's name, role and columns") || !strings.Contains(errs, "keep the role until") || strings.Contains(errs, "add new metrics") {
		t.Errorf("breaking hint: exit %d %s", code, errs)
	}
}
