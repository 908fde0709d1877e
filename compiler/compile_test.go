package compiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/expr"
	"sigs.k8s.io/yaml"
)

// checkResolved asserts the artifact invariants the planner relies on: every
// metric Ref names a field of an existing dataset (Qualifier set) or a
// metric listed in DependsOn (Qualifier empty), and every field Ref is a
// bare column.
func checkResolved(t *testing.T, art *Artifact) {
	t.Helper()
	for _, d := range art.Datasets {
		for _, f := range d.Fields {
			if f.Expr.Node == nil {
				t.Errorf("field %s.%s has no tree", d.Name, f.Name)
			}
			for _, r := range expr.Refs(f.Expr.Node) {
				if r.Qualifier != "" {
					t.Errorf("field %s.%s keeps qualified ref %v", d.Name, f.Name, r)
				}
			}
		}
	}
	for _, m := range art.Metrics {
		for _, r := range expr.Refs(m.Expr.Node) {
			if r.Qualifier == "" {
				if art.Metric(r.Name) == nil || !slices.Contains(m.DependsOn, r.Name) {
					t.Errorf("metric %s: bare ref %q is not a dependency metric", m.Name, r.Name)
				}
				continue
			}
			ds := art.Dataset(r.Qualifier)
			if ds == nil || ds.Field(r.Name) == nil {
				t.Errorf("metric %s: ref %s.%s names no field", m.Name, r.Qualifier, r.Name)
			}
			if !slices.Contains(m.Datasets, r.Qualifier) {
				t.Errorf("metric %s: reads %s but Datasets is %v", m.Name, r.Qualifier, m.Datasets)
			}
		}
		if len(m.Datasets) == 0 {
			t.Errorf("metric %s reads no dataset", m.Name)
		}
	}
}

// Every shared semantic case (../shared/cases, copied to testdata) must
// compile without any problem.
func TestCompileSharedCases(t *testing.T) {
	files, err := filepath.Glob("testdata/validate/cases/*.yaml")
	if err != nil || len(files) < 13 {
		t.Fatalf("shared cases missing: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			arts, probs := Load(data, CompileOptions{})
			if len(probs) > 0 {
				t.Fatalf("problems:\n%s", probs.Error())
			}
			if len(arts) != 1 {
				t.Fatalf("got %d artifacts", len(arts))
			}
			checkResolved(t, arts[0])
		})
	}
}

func TestCompileFlightsExample(t *testing.T) {
	data, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		t.Skip("examples/flights/model.yaml not present")
	}
	arts, probs := Load(data, CompileOptions{})
	if len(probs) > 0 {
		t.Fatalf("problems:\n%s", probs.Error())
	}
	checkResolved(t, arts[0])
	fc := arts[0].Metric("flight_count")
	if fc == nil || fc.RowsOf != "flights" {
		t.Fatalf("COUNT(*) should count flights: %+v", fc)
	}
	if r := arts[0].Metric("on_time_rate"); r == nil || !slices.Equal(r.DependsOn, []string{"flight_count", "on_time_flights"}) || !slices.Equal(r.Datasets, []string{"flights"}) {
		t.Fatalf("on_time_rate: %+v", r)
	}
}

func TestCompileArtifact(t *testing.T) {
	text := doc([]string{
		ds("orders", "orders", "primary_key: [order_id]",
			fld("order_id", "order_id"), fld("customer_id", "orders.customer_id"),
			fld("amount", "amount"), fld("order_date", "order_date")+"", fld("status", "UPPER(status)")),
		ds("customers", "crm.customers", "primary_key: [customer_id]",
			fld("customer_id", "customer_id"), fld("region", "region")),
		ds("events", "\"SELECT * FROM ev\"", "", fld("ts", "ts")),
		ds("files", "data/x.parquet", "", fld("ts", "ts")),
	}, []string{rel("orders_customers", "orders", "customers", "customer_fk", "customer_id")}, []string{
		met("revenue", "SUM(orders.amount)"),
		met("buyers", "COUNT(DISTINCT customers.customer_id)"),
		met("per_buyer", "revenue / buyers"),
		met("twice", "per_buyer * 2"),
		met("ca_revenue", "SUM(CASE WHEN region = 'CA' THEN amount END)"),
		met("rows", "COUNT(*) FILTER (WHERE orders.status = 'OPEN')"),
	})
	// Datatype and is_time: Date defaults to a time dimension; explicit wins.
	text = strings.Replace(text, "{name: order_date, ", "{name: order_date, datatype: Date, ", 1)
	text = strings.Replace(text, "{name: status, ", "{name: status, datatype: Date, dimension: {is_time: false}, ", 1)
	arts, probs := Compile(parseOK(t, text), CompileOptions{DefaultCatalog: "lake", DefaultSchema: "main"})
	if probs.HasErrors() || len(arts) != 1 {
		t.Fatalf("problems:\n%s", probs.Error())
	}
	a := arts[0]
	checkResolved(t, a)
	if a.Format != ArtifactFormat || a.DocumentVersion != "0.2.0.dev0" || a.Name != "shop" || !strings.HasPrefix(a.Version, "sha256:") || len(a.Version) != 71 {
		t.Fatalf("header: %+v", a)
	}
	wantSources := map[string]ResolvedSource{
		"orders":    {Kind: SourceTable, Table: []string{"lake", "main", "orders"}},
		"customers": {Kind: SourceTable, Table: []string{"lake", "crm", "customers"}},
		"events":    {Kind: SourceQuery, Query: "SELECT * FROM ev"},
		"files":     {Kind: SourceFile, Path: "data/x.parquet"},
	}
	for name, want := range wantSources {
		if got := a.Dataset(name).Source; !reflect.DeepEqual(got, want) {
			t.Errorf("source of %s = %+v, want %+v", name, got, want)
		}
	}
	o := a.Dataset("orders")
	if !o.Field("order_date").IsTime || o.Field("status").IsTime || o.Field("amount").IsTime {
		t.Errorf("is_time defaults wrong: %+v", o.Fields)
	}
	if f := o.Field("customer_id"); f.SQL != "orders.customer_id" || f.Dialect != "ANSI_SQL" || !reflect.DeepEqual(f.Expr.Node, expr.Ref{Name: "customer_id"}) {
		t.Errorf("own-dataset qualifier must be dropped: %+v", f)
	}
	if r := a.Relationships[0]; !slices.Equal(r.FromPhysical, []string{"customer_fk"}) || r.ToPhysical != nil {
		t.Errorf("physical columns: %+v", r)
	}
	checks := []struct {
		metric    string
		dependsOn []string
		datasets  []string
	}{
		{"revenue", nil, []string{"orders"}},
		{"buyers", nil, []string{"customers"}},
		{"per_buyer", []string{"buyers", "revenue"}, []string{"customers", "orders"}},
		{"twice", []string{"per_buyer"}, []string{"customers", "orders"}},
		{"ca_revenue", nil, []string{"customers", "orders"}},
		{"rows", nil, []string{"orders"}},
	}
	for _, c := range checks {
		m := a.Metric(c.metric)
		if !slices.Equal(m.DependsOn, c.dependsOn) || !slices.Equal(m.Datasets, c.datasets) {
			t.Errorf("%s: depends_on %v datasets %v, want %v %v", c.metric, m.DependsOn, m.Datasets, c.dependsOn, c.datasets)
		}
	}
	if a.Metric("rows").RowsOf != "" { // the FILTER names orders: not ref-less
		t.Errorf("rows_of = %q", a.Metric("rows").RowsOf)
	}
	// Bare names inside the aggregate resolved to their datasets.
	refs := expr.Refs(a.Metric("ca_revenue").Expr.Node)
	if !slices.Contains(refs, expr.Ref{Qualifier: "customers", Name: "region"}) || !slices.Contains(refs, expr.Ref{Qualifier: "orders", Name: "amount"}) {
		t.Errorf("ca_revenue refs not resolved: %v", refs)
	}
}

func TestCompileWithErrorsReturnsNoArtifact(t *testing.T) {
	arts, probs := Compile(parseOK(t, shop(met("bad", "SUM(ordrs.amount)"))), CompileOptions{})
	if arts != nil || !probs.HasErrors() {
		t.Fatalf("arts %v probs %v", arts, probs)
	}
	// Warnings alone do not block.
	arts, probs = Compile(parseOK(t, doc([]string{ordersDS, ds("customers", "c", "", fld("customer_id", "customer_id"))}, []string{ordersToCustomers}, nil)), CompileOptions{})
	if len(arts) != 1 || len(probs) != 1 || probs[0].Severity != SeverityWarning {
		t.Fatalf("arts %d probs %v", len(arts), probs)
	}
}

func TestArtifactJSONRoundTrip(t *testing.T) {
	for _, f := range []string{"testdata/validate/cases/BC-16.yaml", "../examples/flights/model.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		arts, probs := Load(data, CompileOptions{DefaultSchema: "main"})
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		raw, err := json.Marshal(arts)
		if err != nil {
			t.Fatal(err)
		}
		var back []*Artifact
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: unmarshal: %v", f, err)
		}
		if !reflect.DeepEqual(arts, back) {
			again, _ := json.Marshal(back)
			t.Errorf("%s: artifact changed through JSON:\n%s\n%s", f, raw, again)
		}
	}
}

// The version is a hash of the meaning of the model: the same model written
// as YAML with other formatting, key order and comments, or as JSON, has the
// same version; any semantic change gives another.
func TestVersionStability(t *testing.T) {
	base := shop(met("avg_order", "revenue / order_count"))
	version := func(text string) string {
		t.Helper()
		arts, probs := Compile(parseOK(t, text), CompileOptions{})
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		return arts[0].Version
	}
	v0 := version(base)

	asJSON, err := yaml.YAMLToJSON([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	reordered := `# a comment that must not matter
semantic_model:
  - metrics:
      - expression:
          dialects:
            - expression: SUM(orders.amount)   # trailing comment
              dialect: ANSI_SQL
        name: revenue
      - {expression: {dialects: [{expression: "COUNT(orders.order_id)", dialect: ANSI_SQL}]}, name: order_count}
      - {name: avg_order, expression: {dialects: [{dialect: ANSI_SQL, expression: revenue / order_count}]}}
    relationships:
      - {to_columns: [customer_id], from_columns: [customer_id], to: customers, from: orders, name: orders_customers}
    name: shop
    datasets:
` + ordersDS + customersDS + `version: '0.2.0.dev0'
`
	for name, text := range map[string]string{"json": string(asJSON), "reordered yaml": reordered} {
		if v := version(text); v != v0 {
			t.Errorf("%s: version %s, want %s", name, v, v0)
		}
	}
	arts, _ := Compile(parseOK(t, base), CompileOptions{DefaultCatalog: "c", DefaultSchema: "s"})
	if arts[0].Version != v0 {
		t.Errorf("install defaults must not change the model version")
	}

	changes := map[string]string{
		"metric expression": strings.Replace(base, "SUM(orders.amount)", "SUM(orders.amount) * 2", 1),
		"metric name":       strings.Replace(base, "name: avg_order", "name: avg_order2", 1),
		"source":            strings.Replace(base, "source: shop.orders", "source: shop.orders2", 1),
		"document version":  strings.Replace(base, `version: "0.2.0.dev0"`, `version: "0.1.1"`, 1),
		"dataset order":     doc([]string{customersDS, ordersDS}, []string{ordersToCustomers}, []string{met("revenue", "SUM(orders.amount)"), met("order_count", "COUNT(orders.order_id)"), met("avg_order", "revenue / order_count")}),
	}
	seen := map[string]string{v0: "base"}
	for name, text := range changes {
		v := version(text)
		if other, dup := seen[v]; dup {
			t.Errorf("%s: same version as %s", name, other)
		}
		seen[v] = name
	}
}

// One document with many different mistakes lists all of them at once,
// sorted by position.
func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	text := doc([]string{
		ds("orders", "shop.orders", "primary_key: [order_id, order_id]",
			fld("order_id", "order_id"), fld("amount", "SUM(amount)"), fld("amount", "amount"),
			fld("customer_id", "customer_id")),
		ds("customers", `"bad path"`, "primary_key: [customer_id]", fld("customer_id", "customer_id"), fld("region", "region")),
		ds("products", "p", "primary_key: [id]", fld("id", "id")),
	}, []string{
		rel("r1", "orders", "customer", "customer_id", "customer_id"),
		rel("r2", "orders", "customers", "customer_id", "region"),
	}, []string{
		met("revenue", "SUM(orders.amount)"),
		met("bad_ref", "SUM(ordrs.amount)"),
		met("no_agg", "orders.amount"),
		met("loop_a", "loop_b"),
		met("loop_b", "loop_a"),
		met("mixed", "SUM(orders.amount * products.id)"),
		met("syntax", "SUM(orders.amount"),
	})
	got := Validate(parseOK(t, text))
	m0 := "semantic_model[0]"
	want := []string{
		"error OSS2001 " + m0 + ".datasets[0].primary_key[1]",
		"error OSS3004 " + m0 + ".datasets[0].fields[1].expression.dialects[0].expression",
		"error OSS2001 " + m0 + ".datasets[0].fields[2].name",
		"error OSS2014 " + m0 + ".datasets[1].source",
		"error OSS2002 " + m0 + ".relationships[0].to",
		"error OSS2005 " + m0 + ".relationships[1].to_columns",
		"error OSS2009 " + m0 + ".metrics[1].expression.dialects[0].expression",
		"error OSS3005 " + m0 + ".metrics[2].expression.dialects[0].expression",
		"error OSS2010 " + m0 + ".metrics[3].expression.dialects[0].expression",
		"error OSS2011 " + m0 + ".metrics[5].expression.dialects[0].expression",
		"error OSS3001 " + m0 + ".metrics[6].expression.dialects[0].expression",
	}
	if !slices.Equal(codePaths(got), want) {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(codePaths(got), "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Line < got[i-1].Line {
			t.Errorf("not sorted by line: %s before %s", got[i-1], got[i])
		}
	}
}

func TestValidateIsDeterministic(t *testing.T) {
	text := shop(met("a", "b"), met("b", "a"), met("c", "SUM(nope)"), met("d", "SUM(x.y)"))
	first := Validate(parseOK(t, text))
	for i := 0; i < 20; i++ {
		if again := Validate(parseOK(t, text)); !reflect.DeepEqual(first, again) {
			t.Fatalf("run %d differs:\n%s\n--\n%s", i, first.Error(), again.Error())
		}
	}
}

func TestValidateNilAndGoBuiltDocuments(t *testing.T) {
	if ps := Validate(nil); len(ps) != 1 || ps[0].Code != CodeEmpty {
		t.Errorf("nil: %v", ps)
	}
	if ps := Validate(&Parsed{}); len(ps) != 1 || ps[0].Code != CodeEmpty {
		t.Errorf("no doc: %v", ps)
	}
	p := parseOK(t, shop())
	p = &Parsed{Doc: p.Doc} // a document built in Go has no positions
	arts, probs := Compile(p, CompileOptions{})
	if len(probs) > 0 || len(arts) != 1 {
		t.Fatalf("%v", probs)
	}
}
