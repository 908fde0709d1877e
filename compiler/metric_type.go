package compiler

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// Metric types (docs/metrics.md). The metric's expression is the
// per-period value; the type says how it is windowed along the query's
// time dimension.
const (
	MetricCumulative = "cumulative"         // running total, over all time or to date
	MetricRolling    = "rolling"            // the last Count Units
	MetricPeriodOver = "period_over_period" // compared with the prior period or year
	MetricSemi       = "semi_additive"      // summed across dimensions, picked along a time field
	MetricConversion = "conversion"         // share of entities doing A then B within a window
)

// MetricType is a metric's typed parameters, version 1 (the "metric" key
// of its OSSIE custom extension, schema/metric-type.v1.schema.json), as the artifact
// keeps them. Which fields are set depends on Type (the schema enforces
// it): cumulative has Window ("all" or "to_date") and, to date, Grain
// (week, month, quarter, year); rolling has Count and Unit (day … year);
// period_over_period has Offset ("prior_period", "prior_year") and Output
// ("value", "difference", "ratio"); semi_additive has Along (a time
// field "dataset.field" of the dataset the expression aggregates), Pick
// ("last", "first", "min", "max") and, with last or first, optionally Per
// (fields "dataset.field" of that dataset naming an entity: the pick is
// made per entity, semiadditive_per.go).
type MetricType struct {
	Version int    `json:"version"`
	Type    string `json:"type"`
	Window  string `json:"window,omitempty"`
	Grain   string `json:"grain,omitempty"`
	Count   int    `json:"count,omitempty"`
	Unit    string `json:"unit,omitempty"`
	Offset  string `json:"offset,omitempty"`
	Output  string `json:"output,omitempty"`
	Along   string `json:"along,omitempty"`
	Pick    string `json:"pick,omitempty"`
	// Per: semi_additive by entity; written as one "dataset.field" or a
	// list of them, kept as a list.
	Per FieldList `json:"per,omitempty"`
	// conversion: Entity and At on the metric's dataset (event A),
	// ToEntity and ToAt on the dataset of event B; Count and Unit bound
	// how long after A event B may happen.
	Entity   string `json:"entity,omitempty"`
	At       string `json:"at,omitempty"`
	ToEntity string `json:"to_entity,omitempty"`
	ToAt     string `json:"to_at,omitempty"`
	// Calculation is what a conversion answers: ConversionRate ("" reads
	// as it) or Conversions, the count of converted entities.
	Calculation string `json:"calculation,omitempty"`
	// ToFilter, on a conversion, is a condition (Ossie SQL, over fields of
	// the event-B dataset) a B row must meet to count as the conversion:
	// "purchases.amount >= 20".
	ToFilter string `json:"to_filter,omitempty"`
}

// Conversion calculations (MetricFlow's conversion_type_params.calculation).
const (
	ConversionRate = "conversion_rate" // converted entities over base entities, Float
	Conversions    = "conversions"     // converted entities, Integer
)

// CountsConversions reports whether t is a conversion answering the count
// of converted entities rather than their share.
func (t *MetricType) CountsConversions() bool {
	return t != nil && t.Type == MetricConversion && t.Calculation == Conversions
}

// Fields lists the fields "dataset.field" the type's parameters read
// (along, per, a conversion's entity and time fields and those its
// to_filter reads), which governance treats as read by the metric like
// those of its expression.
func (t *MetricType) Fields() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, f := range append([]string{t.Along, t.Entity, t.At, t.ToEntity, t.ToAt}, t.Per...) {
		if f != "" {
			out = append(out, f)
		}
	}
	return append(out, t.toFilterFields()...)
}

// toFilterFields are the fields "dataset.field" a conversion's to_filter
// reads; a bare name is a field of event B's dataset (checkToFilter).
// A to_filter that does not parse reads nothing here: validation refused
// it (OSS2045), so no artifact carries one.
func (t *MetricType) toFilterFields() []string {
	if t.ToFilter == "" {
		return nil
	}
	node, errs := expr.Parse(t.ToFilter)
	if len(errs) > 0 || node == nil {
		return nil
	}
	toDS, _, _ := strings.Cut(t.ToEntity, ".")
	var out []string
	for _, r := range expr.Refs(node) {
		q := r.Qualifier
		if q == "" {
			q = toDS
		}
		out = append(out, q+"."+r.Name)
	}
	return out
}

// MetricTypeSchemaJSON is the JSON Schema (draft 2020-12) of MetricType,
// version 1, published for editors and other tools.
//
//go:embed schema/metric-type.v1.schema.json
var MetricTypeSchemaJSON []byte

const metricTypeSchemaURL = "https://ossie.dev/schema/metric-type.v1.schema.json"

var metricTypeSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compileSchema(metricTypeSchemaURL, MetricTypeSchemaJSON)
})

// metricTypeData is the value of a key of an OSSIE extension (a metric's
// "metric", the model's "rollups"; validate_extensions.go) and its path;
// raw is nil when there is none.
type metricTypeData struct {
	path string
	raw  json.RawMessage
}

// checkMetricTypes validates every metric's type parameters, the "metric"
// key of its OSSIE custom extension, after the metrics' expressions and
// the extensions are read. Problems: OSS2041 (a schema violation, one per
// violation, at its path), OSS2042 (a windowed expression that is not one
// additive aggregate), OSS2043 (a typed metric used where it cannot be,
// checkTypedRefs),
// OSS2044 (a semi-additive along or per field that does not fit).
func (mc *modelCheck) checkMetricTypes() {
	mc.metricTypes = make([]*MetricType, len(mc.m.Metrics))
	for i, d := range mc.metricTypeRaw {
		if d.raw != nil {
			mc.metricTypes[i] = mc.metricType(d.path, d.raw)
		}
	}
	for i, t := range mc.metricTypes {
		if t == nil || !mc.metricExprs[i].ok || t.Type == MetricConversion {
			continue
		}
		if !additive(mc.metricExprs[i].node, mc, map[string]bool{}) {
			mc.errorf(CodeMetricTypeNotAdditive, mc.metricPath(i)+".expression", "a %s metric windows its expression, which must be one SUM or COUNT (not DISTINCT), or a metric that is one: sums of periods are then the sum over the window", t.Type)
		}
	}
	for i, t := range mc.metricTypes {
		if t != nil && t.Type == MetricSemi && mc.metricExprs[i].ok {
			mc.checkAlong(i, t)
			mc.checkPer(i, t)
		}
		if t != nil && t.Type == MetricConversion && mc.metricExprs[i].ok {
			mc.checkConversion(i, t)
		}
	}
	for i := range mc.m.Metrics {
		mc.checkTypedRefs(i)
	}
}

// checkTypedRefs applies the rules for metrics over typed metrics
// (docs/metrics.md, "Typed metrics inside other metrics"), OSS2043: a
// plain metric may combine windowed metrics (cumulative, rolling, period
// over period) with other metrics, computed after the window at the query
// grain, when it aggregates nothing of its own; a typed metric windows one
// per-period value and cannot window another typed metric; semi-additive
// metrics are not used inside other metrics; a plain metric may combine
// conversion metrics (a rate, or a count of conversions) with any others.
func (mc *modelCheck) checkTypedRefs(i int) {
	cm := mc.metricExprs[i]
	name, path := mc.m.Metrics[i].Name, mc.metricPath(i)+".expression"
	if t := mc.metricTypes[i]; t != nil {
		if mc.windowsTyped(i) {
			return
		}
		if dep, dt := mc.typedDep(i, map[int]bool{}); dep != "" {
			mc.errorf(CodeMetricTypeRef, path, "metric %s is a %s metric over %s, a %s metric; a typed metric windows a per-period value (SUM or COUNT), or exactly one cumulative, rolling or period-over-period metric over plain metrics (the prior year of a year-to-date) — combine others in a plain metric instead", name, t.Type, dep, dt)
		}
		return
	}
	windowedDep := false
	for _, dep := range cm.deps {
		j, ok := mc.metrics.find(dep, false)
		if !ok {
			continue
		}
		switch t := mc.metricTypes[j]; {
		case t != nil && t.Type == MetricConversion:
			// Its value per group is a column like any measure's: a plain
			// metric combines it (docs/metrics.md, "Conversion metrics").
		case t != nil && t.Type == MetricSemi:
			mc.errorf(CodeMetricTypeRef, path, "metric %s refers to %s, a %s metric; semi-additive metrics are queried on their own, not used inside another metric", name, dep, t.Type)
			return
		case t != nil:
			windowedDep = true
		default:
			if d, _ := mc.typedDep(j, map[int]bool{}); d != "" {
				windowedDep = true
			}
		}
	}
	if windowedDep && (len(cm.direct) > 0 || cm.star >= 0) {
		mc.errorf(CodeMetricTypeRef, path, "metric %s combines typed metrics with aggregates of its own; a metric over typed metrics combines metrics only (declare the aggregate as a metric and refer to it)", name)
	}
}

// windowsTyped reports whether typed metric i is one windowed type
// (cumulative, rolling, period over period) whose expression is only the
// name of another windowed typed metric over plain metrics: it then
// windows that metric's windowed values, one level deep.
func (mc *modelCheck) windowsTyped(i int) bool {
	isWindowed := func(t *MetricType) bool {
		return t != nil && t.Type != MetricSemi && t.Type != MetricConversion
	}
	ref, ok := mc.metricExprs[i].node.(expr.Ref)
	if !ok || ref.Qualifier != "" || !isWindowed(mc.metricTypes[i]) {
		return false
	}
	j, ok := mc.metrics.find(ref.Name, false)
	if !ok || !isWindowed(mc.metricTypes[j]) {
		return false
	}
	dep, _ := mc.typedDep(j, map[int]bool{})
	return dep == ""
}

// typedDep is a typed metric metric i refers to, directly or through
// plain metrics, with its type; "" when there is none.
func (mc *modelCheck) typedDep(i int, seen map[int]bool) (string, string) {
	if seen[i] {
		return "", ""
	}
	seen[i] = true
	for _, dep := range mc.metricExprs[i].deps {
		j, ok := mc.metrics.find(dep, false)
		if !ok {
			continue
		}
		if t := mc.metricTypes[j]; t != nil {
			return dep, t.Type
		}
		if d, t := mc.typedDep(j, seen); d != "" {
			return d, t
		}
	}
	return "", ""
}

// checkAlong requires a semi-additive metric's along field to be a time
// field of the one dataset its expression aggregates (OSS2044).
func (mc *modelCheck) checkAlong(i int, t *MetricType) {
	path := mc.metricPath(i) + ".custom_extensions"
	ds, field, _ := strings.Cut(t.Along, ".")
	datasets := mc.metricExprs[i].datasets
	if len(datasets) != 1 || datasets[0] != ds {
		mc.errorf(CodeMetricTypeAlong, path, "along %s: a semi-additive metric picks along a time field of the dataset it aggregates (%s)", t.Along, strings.Join(datasets, ", "))
		return
	}
	d, _ := mc.datasets.find(ds, false)
	f, ok := mc.fields[d].exact[field]
	switch {
	case !ok:
		mc.errorf(CodeMetricTypeAlong, path, "along %s: dataset %s has no field %s", t.Along, ds, field)
	case !mc.m.Datasets[d].Fields[f].IsTime():
		mc.errorf(CodeMetricTypeAlong, path, "along %s: the field is not a time dimension", t.Along)
	}
}

// checkConversion requires a conversion's entity and at to be fields of
// the one dataset the metric aggregates, at and to_at time fields, and
// to_entity and to_at fields of one other dataset (OSS2045).
func (mc *modelCheck) checkConversion(i int, t *MetricType) {
	path := mc.metricPath(i) + ".custom_extensions"
	datasets := mc.metricExprs[i].datasets
	home := ""
	if len(datasets) == 1 {
		home = datasets[0]
	}
	toDS, _, _ := strings.Cut(t.ToEntity, ".")
	for _, c := range []struct {
		key, ref, ds string
		time         bool
	}{{"entity", t.Entity, home, false}, {"at", t.At, home, true}, {"to_entity", t.ToEntity, toDS, false}, {"to_at", t.ToAt, toDS, true}} {
		ds, field, _ := strings.Cut(c.ref, ".")
		if ds != c.ds || (c.key == "to_entity" && ds == home) {
			where := "the dataset the metric aggregates (" + strings.Join(datasets, ", ") + ")"
			if c.key == "to_entity" || c.key == "to_at" {
				where = "the one dataset of event B, not " + home
			}
			mc.errorf(CodeMetricTypeConversion, path, "%s %s: must be a field of %s", c.key, c.ref, where)
			continue
		}
		d, ok := mc.datasets.find(ds, false)
		if !ok {
			mc.errorf(CodeMetricTypeConversion, path, "%s %s: no dataset %s", c.key, c.ref, ds)
			continue
		}
		f, ok := mc.fields[d].exact[field]
		switch {
		case !ok:
			mc.errorf(CodeMetricTypeConversion, path, "%s %s: dataset %s has no field %s", c.key, c.ref, ds, field)
		case c.time && !mc.m.Datasets[d].Fields[f].IsTime():
			mc.errorf(CodeMetricTypeConversion, path, "%s %s: the field is not a time dimension", c.key, c.ref)
		}
	}
	if t.ToFilter != "" {
		mc.checkToFilter(path, toDS, t.ToFilter)
	}
}

// metricType validates one parameter object against the schema.
func (mc *modelCheck) metricType(path string, raw json.RawMessage) *MetricType {
	if !mc.checkSchema(metricTypeSchema, CodeMetricTypeSchema, path, raw, "not a parameter of this metric type; "+metricTypeHelp) {
		return nil
	}
	var t MetricType
	if err := json.Unmarshal(raw, &t); err != nil {
		mc.errorf(CodeMetricTypeSchema, path, "%v", err)
		return nil
	}
	return &t
}

const metricTypeHelp = "cumulative takes window (all, to_date) and, to_date, grain; rolling takes count and unit; period_over_period takes offset and output; semi_additive takes along, pick and, with last or first, per; conversion takes entity, at, to_entity, to_at, count, unit and optionally calculation and to_filter (docs/metrics.md)"

// additive reports whether n is one SUM or non-DISTINCT COUNT, or a
// reference to a metric that is: only then is the sum of per-period values
// the value over the window.
func additive(n expr.Node, mc *modelCheck, seen map[string]bool) bool {
	switch n := n.(type) {
	case expr.Func:
		return (n.Name == "SUM" || n.Name == "COUNT") && !n.Distinct
	case expr.Ref:
		if n.Qualifier != "" || seen[n.Name] {
			return false
		}
		seen[n.Name] = true
		j, ok := mc.metrics.find(n.Name, false)
		return ok && mc.metricExprs[j].ok && additive(mc.metricExprs[j].node, mc, seen)
	}
	return false
}
