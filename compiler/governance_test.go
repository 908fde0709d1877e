package compiler

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/expr"
)

var updateGovernance = flag.Bool("update-governance", false, "rewrite testdata/governance/invalid.problems")

func readGovFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/governance/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every governance rule broken once yields every problem at once, each
// with its code, path and line:column in the governance file.
func TestGovernanceProblems(t *testing.T) {
	arts, probs := LoadGoverned(readGovFixture(t, "model.yaml"), readGovFixture(t, "invalid.yaml"), CompileOptions{})
	if arts != nil {
		t.Fatal("an invalid governance compiled")
	}
	var lines []string
	for _, p := range probs {
		lines = append(lines, p.String())
	}
	got := strings.Join(lines, "\n") + "\n"
	if *updateGovernance {
		if err := os.WriteFile("testdata/governance/invalid.problems", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := string(readGovFixture(t, "invalid.problems"))
	if got != want {
		t.Errorf("problems differ from testdata/governance/invalid.problems (-update-governance to accept):\n got:\n%s\nwant:\n%s", got, want)
	}
	for _, code := range []string{CodeDuplicateName, CodeInvalidName, CodeUnknownReference, CodeBadPattern, CodeUnknownDataset,
		CodeUnknownAttribute, CodeBadRowFilter, CodeExprSyntax, CodeBadMask} {
		if !strings.Contains(got, " "+code+":") {
			t.Errorf("no %s among the problems", code)
		}
	}
	for _, p := range probs {
		if !strings.HasPrefix(p.Path, "governance.") || p.Line == 0 {
			t.Errorf("problem without a governance path or position: %v", p)
		}
	}
}

// ParseGovernance is strict like Parse: unknown keys with a did you mean,
// wrong types, missing keys, invalid mask kinds.
func TestParseGovernanceStrict(t *testing.T) {
	g, probs := ParseGovernance([]byte(`
roles:
  - name: a
    row_filter: []
    masks:
      - {field: x.y, mask: hide, keep_first: -1, allow_aggregates: "yes"}
      - {mask: hash}
    metrics: {allow: revenue}
views: [{name: v}]
`))
	want := []string{
		`4:5: governance.roles[0].row_filter: error OSS1002: unknown key ` + "`row_filter`" + ` in role; did you mean ` + "`row_filters`" + `?`,
		`6:28: governance.roles[0].masks[0].mask: error OSS1007: "hide" is not a valid mask kind`,
		`6:46: governance.roles[0].masks[0].keep_first: error OSS1003: must be a whole number from 0 to 1000`,
		`6:68: governance.roles[0].masks[0].allow_aggregates: error OSS1003: must be true or false`,
		`7:9: governance.roles[0].masks[1]: error OSS1005: mask is missing required key ` + "`field`",
		`8:22: governance.roles[0].metrics.allow: error OSS1003: must be a list of strings`,
	}
	if len(probs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(probs), len(want), probs)
	}
	for i, w := range want {
		if !strings.HasPrefix(probs[i].String(), w) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i, probs[i], w)
		}
	}
	if len(g.Views) != 1 || string(g.Views[0]) != `{"name":"v"}` {
		t.Errorf("views not carried: %s", g.Views)
	}
	if _, probs := ParseGovernance([]byte("roles: [\n")); len(probs) != 1 || probs[0].Code != CodeSyntax {
		t.Errorf("broken YAML: %v", probs)
	}
}

// A valid governance compiles into every artifact, changes the version
// (and only governance changes do so beyond the model), and survives the
// bundle encoding with its row filters parsed and `allow: []` kept apart
// from an absent allow list.
func TestGovernanceCompiles(t *testing.T) {
	doc, gov := readGovFixture(t, "model.yaml"), readGovFixture(t, "valid.yaml")
	plain, probs := Load(doc, CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	arts, probs := LoadGoverned(doc, gov, CompileOptions{})
	if len(probs) > 0 {
		t.Fatalf("valid governance: %v", probs)
	}
	g := arts[0].Governance
	if g == nil || len(g.Roles) != 7 || len(g.Attributes) != 1 {
		t.Fatalf("governance not compiled: %+v", g)
	}
	if arts[0].Version == plain[0].Version {
		t.Error("governance did not change the artifact version")
	}
	again, _ := LoadGoverned(doc, append([]byte("# reformatted\n"), gov...), CompileOptions{})
	if again[0].Version != arts[0].Version {
		t.Error("a comment in the governance file changed the version")
	}
	changed, _ := LoadGoverned(doc, []byte(strings.Replace(string(gov), "refunds.amount < 10", "refunds.amount < 11", 1)), CompileOptions{})
	if changed[0].Version == arts[0].Version {
		t.Error("a changed row filter kept the version")
	}
	rf := g.Role("regional").RowFilters[0]
	if rf.Dataset != "customers" || !strings.Contains(rf.SQL, "{{ caller.region }}") {
		t.Fatalf("row filter: %+v", rf)
	}
	var refs []expr.Ref
	refs = expr.Refs(rf.Expr.Node)
	if len(refs) != 2 || refs[0] != (expr.Ref{Qualifier: "customers", Name: "region", Quoted: true}) || refs[1] != (expr.Ref{Qualifier: CallerQualifier, Name: "region", Quoted: true}) {
		t.Errorf("row filter refs: %#v", refs)
	}

	// `allow: []` (nothing) must not decode as an absent list (everything).
	none, probs := LoadGoverned(doc, []byte("roles: [{name: nobody, metrics: {allow: []}}]"), CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	enc, err := EncodeBundle(NewBundle(none))
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeBundle(enc, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := b.Artifacts[0].Governance.Role("nobody").Metrics
	if m == nil || m.Allow == nil || len(m.Allow) != 0 {
		t.Errorf("allow: [] decoded as %#v", m)
	}
	js, _ := json.Marshal(b.Artifacts[0].Governance)
	js2, _ := json.Marshal(none[0].Governance)
	if string(js) != string(js2) {
		t.Errorf("governance changed through the bundle:\n%s\n%s", js, js2)
	}
}

// A document with several models: each artifact keeps the rules naming its
// own members; a rule naming a member of no model is a problem.
func TestGovernanceSeveralModels(t *testing.T) {
	doc := []byte(`version: "0.2.0.dev0"
semantic_model:
  - name: a
    datasets:
      - {name: x, source: s.x, fields: [{name: k, expression: {dialects: [{dialect: ANSI_SQL, expression: k}]}}]}
    metrics:
      - {name: nx, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(x.k)}]}}
  - name: b
    datasets:
      - {name: y, source: s.y, fields: [{name: k, expression: {dialects: [{dialect: ANSI_SQL, expression: k}]}}]}
`)
	gov := []byte(`roles:
  - name: r
    row_filters: [{dataset: x, expression: "k > 1"}, {dataset: y, expression: "k < 5"}]
    masks: [{field: y.k, mask: hash}]
`)
	arts, probs := LoadGoverned(doc, gov, CompileOptions{})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	ra, rb := arts[0].Governance.Role("r"), arts[1].Governance.Role("r")
	if len(ra.RowFilters) != 1 || ra.RowFilters[0].Dataset != "x" || len(ra.Masks) != 0 {
		t.Errorf("model a: %+v", ra)
	}
	if len(rb.RowFilters) != 1 || rb.RowFilters[0].Dataset != "y" || len(rb.Masks) != 1 {
		t.Errorf("model b: %+v", rb)
	}
	_, probs = LoadGoverned(doc, []byte(`roles: [{name: r, row_filters: [{dataset: z, expression: "k > 1"}]}]`), CompileOptions{})
	if len(probs) != 1 || probs[0].Code != CodeUnknownDataset {
		t.Errorf("unknown dataset: %v", probs)
	}
}

// A row filter reading a dataset its own reaches by several many-to-one
// paths is refused: which related row applies (the buyer's region or the
// seller's) is not the filter's to choose, and picking one silently would
// narrow rows by the wrong customer. One path stays allowed.
func TestRowFilterAcrossParallelPathsRefused(t *testing.T) {
	col := func(n string) string {
		return "{name: " + n + ", expression: {dialects: [{dialect: ANSI_SQL, expression: " + n + "}]}}"
	}
	doc := `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - {name: lines, source: lines, primary_key: [id], fields: [` + col("id") + `, ` + col("order_id") + `]}
      - {name: orders, source: orders, primary_key: [id], fields: [` + col("id") + `, ` + col("buyer_id") + `, ` + col("seller_id") + `, ` + col("shop_id") + `]}
      - {name: customers, source: customers, primary_key: [id], fields: [` + col("id") + `, ` + col("region") + `]}
      - {name: shops, source: shops, primary_key: [id], fields: [` + col("id") + `, ` + col("region") + `]}
    relationships:
      - {name: line_order, from: lines, to: orders, from_columns: [order_id], to_columns: [id]}
      - {name: order_buyer, from: orders, to: customers, from_columns: [buyer_id], to_columns: [id]}
      - {name: order_seller, from: orders, to: customers, from_columns: [seller_id], to_columns: [id]}
      - {name: order_shop, from: orders, to: shops, from_columns: [shop_id], to_columns: [id]}
`
	gov := `roles:
  - name: r
    row_filters:
      - {dataset: orders, expression: "customers.region = 'EU'"}
      - {dataset: lines, expression: "customers.region = 'EU'"}
      - {dataset: lines, expression: "shops.region = 'EU'"}
`
	_, probs := LoadGoverned([]byte(doc), []byte(gov), CompileOptions{})
	var got []string
	for _, p := range probs {
		if p.Code == CodeBadRowFilter {
			got = append(got, p.Path+": "+p.Message)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "row_filters[0]") || !strings.Contains(got[1], "row_filters[1]") ||
		!strings.Contains(got[0], "several many-to-one paths (order_buyer; order_seller)") ||
		!strings.Contains(got[1], "(line_order then order_buyer; line_order then order_seller)") {
		t.Errorf("want the two filters reading customers refused, naming both paths; got %d problems:\n%s\nall: %v", len(got), strings.Join(got, "\n"), probs)
	}
}
