package dbt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

const store = "../../ossiectl/testdata/dbt/"

func importPath(t *testing.T, path string, opts Options) (*ossie.Document, []Unmapped) {
	t.Helper()
	p, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, unmapped, err := Import(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return doc, unmapped
}

// The manifest spells filters, windows and inputs differently from the
// YAML; the same definitions must map onto the same Ossie metrics,
// fields, keys and relationships, with sources from node_relation.
func TestManifestMatchesYAML(t *testing.T) {
	fromYAML, _ := importPath(t, store+"corner_store", Options{})
	fromJSON, unmapped := importPath(t, store+"corner_store_manifest.json", Options{})
	y, j := fromYAML.SemanticModel[0], fromJSON.SemanticModel[0]
	metrics := map[string]ossie.Metric{}
	for _, m := range y.Metrics {
		metrics[m.Name] = m
	}
	for _, m := range j.Metrics {
		if want, ok := metrics[m.Name]; !ok || !reflect.DeepEqual(m, want) {
			t.Errorf("metric %s from the manifest:\n%+v\nfrom the YAML:\n%+v", m.Name, m, want)
		}
	}
	if len(j.Metrics) != 12 {
		t.Errorf("manifest: %d metrics, want 8 metrics and 4 measures", len(j.Metrics))
	}
	datasets := map[string]ossie.Dataset{}
	for _, d := range y.Datasets {
		datasets[d.Name] = d
	}
	for _, d := range j.Datasets {
		want := datasets[d.Name]
		if d.Source.Object != "store.analytics."+want.Source.Object {
			t.Errorf("dataset %s: source %q, want store.analytics.%s", d.Name, d.Source.Object, want.Source.Object)
		}
		if !reflect.DeepEqual(d.PrimaryKey, want.PrimaryKey) || len(d.Fields) > len(want.Fields) {
			t.Errorf("dataset %s: keys %v fields %d, YAML %v %d", d.Name, d.PrimaryKey, len(d.Fields), want.PrimaryKey, len(want.Fields))
		}
		for i, f := range d.Fields {
			if !reflect.DeepEqual(f, want.Fields[i]) {
				t.Errorf("field %s.%s: %+v, YAML %+v", d.Name, f.Name, f, want.Fields[i])
			}
		}
	}
	if !reflect.DeepEqual(j.Relationships, y.Relationships) {
		t.Errorf("relationships %+v, YAML %+v", j.Relationships, y.Relationships)
	}
	if len(unmapped) != 1 || !strings.Contains(unmapped[0].Path, "saved_queries[0] (weekly_revenue)") {
		t.Errorf("unmapped %v, want the saved query", unmapped)
	}
	if got := fromJSON.SemanticModel[0].Datasets[0].Source.Object; got != "store.analytics.fct_orders" {
		t.Errorf("first dataset %s", got)
	}
	override, _ := importPath(t, store+"corner_store_manifest.json", Options{Schema: "prod"})
	if got := override.SemanticModel[0].Datasets[0].Source.Object; got != "store.prod.fct_orders" {
		t.Errorf("--schema prod: source %s", got)
	}
	prefixed, _ := importPath(t, store+"corner_store", Options{Database: "wh", Schema: "marts"})
	if got := prefixed.SemanticModel[0].Datasets[0].Source.Object; got != "wh.marts.dim_customers" {
		t.Errorf("--database wh --schema marts: source %s", got)
	}
}

// Every item of the fixture that has no Ossie form is listed with its
// file, path and why; the rest is imported.
func TestUnmappedAreListed(t *testing.T) {
	doc, unmapped := importPath(t, store+"corner_store", Options{})
	want := map[string]string{
		"models/marts/metrics.yml: metrics[15] (weekly_buyers)":    "OSS2042",
		"models/marts/metrics.yml: metrics[16] (revenue_of_loyal)": "Metric('orders_placed'",
	}
	if len(unmapped) != len(want) {
		t.Errorf("unmapped %v", unmapped)
	}
	for _, u := range unmapped {
		if w, ok := want[u.Path]; !ok || !strings.Contains(u.Why, w) {
			t.Errorf("unmapped %s: %s; want a reason with %q", u.Path, u.Why, w)
		}
	}
	for _, m := range doc.SemanticModel[0].Metrics {
		if m.Name == "weekly_buyers" || m.Name == "revenue_of_loyal" {
			t.Errorf("unmapped metric %s was written", m.Name)
		}
		// A conversion rate is a Float; a count of conversions an Integer,
		// as the answer is (docs/metrics.md).
		if want := map[string]ossie.Datatype{"visit_to_order_7d": ossie.TypeFloat, "orders_converted": ossie.TypeInteger}[m.Name]; want != "" && m.Datatype != want {
			t.Errorf("%s is %s, want %s", m.Name, m.Datatype, want)
		}
	}
}

// One project with every construct the import refuses or maps only in
// part: each is listed with its path.
func TestUnmappedConstructs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("models.yml", `
semantic_models:
  - name: accounts
    model: ref('accounts')
    config: {meta: {owner: finance}}
    defaults: {agg_time_dimension: snapshot_on}
    entities:
      - {name: account, type: primary, expr: account_id}
      - {name: owner, type: natural, expr: owner_id}
      - {name: branch, type: foreign, expr: branch_id}
    dimensions:
      - {name: snapshot_on, type: time, type_params: {time_granularity: day}}
      - name: valid_from
        type: time
        type_params: {time_granularity: day, validity_params: {is_start: true}}
      - {name: tier, type: categorical, colour: blue}
    measures:
      - {name: balance, agg: sum, non_additive_dimension: {name: snapshot_on, window_choice: max}}
      - {name: balance_per_owner, agg: sum, expr: balance, non_additive_dimension: {name: snapshot_on, window_choice: max, window_groupings: [owner]}}
      - {name: spread, agg: stddev, expr: balance}
      - {name: deposits, agg: sum, expr: amount}
`)
	write("metrics.yml", `
metrics:
  - {name: closing_balance, type: simple, type_params: {measure: balance}}
  - name: balance_last_month
    type: derived
    type_params:
      expr: closing_balance - previous
      metrics: [{name: closing_balance, alias: previous, offset_window: 1 month}]
  - name: avg_running
    type: cumulative
    type_params: {measure: deposits, cumulative_type_params: {period_agg: average}}
  - {name: strange, type: funnel}
  - name: filtered_by_bad
    type: simple
    filter: "{{ Dimension('nowhere__tier') }} = 'a'"
    type_params: {measure: balance}
saved_queries:
  - {name: q1}
`)
	doc, unmapped := importPath(t, dir, Options{})
	want := []struct{ path, why string }{
		{"semantic_models[0] (accounts)", "config is not mapped"},
		{"semantic_models[0] (accounts)", "dimensions.tier.colour is not mapped"},
		{"semantic_models[0] (accounts).entities.owner", "natural entity"},
		{"semantic_models[0] (accounts).dimensions.valid_from", "validity_params"},
		{"semantic_models[0] (accounts).entities.branch", "no relationship"},
		{"semantic_models[0] (accounts).measures.balance_per_owner", "window_groupings"},
		{"semantic_models[0] (accounts).measures.spread", `agg "stddev"`},
		{"metrics[1] (balance_last_month)", "offset_window 1 month"},
		{"metrics[2] (avg_running)", `period_agg "average"`},
		{"metrics[3] (strange)", `metric type "funnel"`},
		{"metrics[4] (filtered_by_bad)", `dimension "nowhere__tier"`},
		{"saved_queries[0] (q1)", "saved queries"},
	}
	for _, w := range want {
		found := false
		for _, u := range unmapped {
			found = found || (strings.HasSuffix(u.Path, w.path) && strings.Contains(u.Why, w.why))
		}
		if !found {
			t.Errorf("no unmapped %s: ...%s...", w.path, w.why)
		}
	}
	if len(unmapped) != len(want) {
		for _, u := range unmapped {
			t.Log(u)
		}
		t.Errorf("%d unmapped, want %d", len(unmapped), len(want))
	}
	// The semi-additive measure and the simple metric over it are typed.
	var closing *ossie.Metric
	for i, m := range doc.SemanticModel[0].Metrics {
		if m.Name == "closing_balance" {
			closing = &doc.SemanticModel[0].Metrics[i]
		}
	}
	if closing == nil || len(closing.CustomExtensions) != 1 || !strings.Contains(closing.CustomExtensions[0].Data, `"along":"accounts.snapshot_on","pick":"last","type":"semi_additive"`) {
		t.Errorf("closing_balance: %+v", closing)
	}
}

func TestFilterTranslation(t *testing.T) {
	p, err := Read(store + "corner_store")
	if err != nil {
		t.Fatal(err)
	}
	im := &importer{p: p, byName: map[string]*modelInfo{}, measures: map[string]*measureInfo{}, metrics: map[string]*Metric{}, origin: map[string]string{}}
	im.datasets(&ossie.SemanticModel{})
	orders := im.byName["orders"]
	for _, tc := range []struct{ in, want, err string }{
		{"{{ Dimension('order__channel') }} = 'shop'", "(orders.channel = 'shop')", ""},
		{"{{Dimension('channel')}} IN ('a', 'b')", "(orders.channel IN ('a', 'b'))", ""},
		{"{{ Dimension('customer__region') }} <> 'east'", "(customers.region <> 'east')", ""},
		{"{{ Dimension('order__customer__region') }} = 'x'", "(customers.region = 'x')", ""},
		{"{{ TimeDimension('metric_time', 'month') }} = '2024-01-01'", "(DATE_TRUNC('month', orders.ordered_at) = '2024-01-01')", ""},
		{"{{ TimeDimension('order__ordered_at', 'day') }} > '2024-01-01'", "(orders.ordered_at > '2024-01-01')", ""},
		{"{{ Dimension('metric_time').grain('year') }} = '2024-01-01'", "(DATE_TRUNC('year', orders.ordered_at) = '2024-01-01')", ""},
		{"{{ TimeDimension('customer__joined_at', time_granularity_name='quarter') }} IS NOT NULL", "(DATE_TRUNC('quarter', customers.joined_at) IS NOT NULL)", ""},
		{"{{ Entity('customer') }} IS NOT NULL", "(orders.customer IS NOT NULL)", ""},
		{"{{ Dimension('customer__nope') }} = 1", "", `dimension "customer__nope"`},
		{"{{ Dimension('order__channel', entity_path=['x']) }} = 1", "", "entity_path"},
		{"{{ Dimension('metric_time').date_part('year') }} = 2024", "", "date_part"},
		{"{% if true %}x{% endif %}", "", "Jinja other than"},
		{"{{ Metric('revenue', group_by=['customer']) }} > 1", "", "Metric("},
		{"{{ TimeDimension('metric_time', 'minute') }} > 1", "", `grain "minute"`},
	} {
		got, err := im.translateFilter([]string{tc.in}, orders, "ordered_at")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	got, err := im.translateFilter([]string{"{{ Dimension('order__is_gift') }}", "{{ Dimension('order__channel') }} = 'x'"}, orders, "ordered_at")
	if want := "(orders.is_gift) AND (orders.channel = 'x')"; err != nil || got != want {
		t.Errorf("two clauses: %q %v, want %q", got, err, want)
	}
}

func TestReadProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yml"), []byte("semantic_models: [\n  - {name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "bad.yml") {
		t.Errorf("bad YAML: %v", err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "schema.yml"), []byte("models: [{name: x}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Read(empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Import(p, Options{}); err == nil || !strings.Contains(err.Error(), "no semantic_models") {
		t.Errorf("no semantic models: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing manifest is no error")
	}
}
