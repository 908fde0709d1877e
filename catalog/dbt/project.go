// Package dbt imports the semantic layer of a dbt project (MetricFlow
// semantic models and metrics) into an Ossie document. It reads either the
// `semantic_models:` and `metrics:` keys of the project's YAML files or a
// compiled `semantic_manifest.json`, normalises both into Project, and
// Import maps Project onto ossie.Document, listing every dbt item it could
// not map (with the dbt path and why) instead of dropping it. The mapping
// is documented in docs/dbt.md; the shapes read are those of the dbt
// documentation ("Semantic models", "Metrics") and of dbt-semantic-interfaces
// (the manifest's JSON schema).
package dbt

// Project is the semantic layer of one dbt project, whichever form it was
// read from. Names are as dbt spells them.
type Project struct {
	// Name is the project's name (dbt_project.yml `name`), "" when unknown.
	Name           string
	SemanticModels []SemanticModel
	Metrics        []Metric
	// Skipped lists what the reader found and no mapping reads (saved
	// queries); Import reports it with the rest.
	Skipped []Unmapped
}

// SemanticModel is one entry of `semantic_models:`.
type SemanticModel struct {
	Path        string // where it was read: "models/orders.yml: semantic_models[0]"
	Name        string
	Description string
	Label       string
	// Ref is the model name of `model: ref('x')` (YAML); Relation the
	// manifest's node_relation. Exactly one is set.
	Ref      string
	Relation *Relation
	// AggTime is defaults.agg_time_dimension.
	AggTime       string
	PrimaryEntity string
	Entities      []Entity
	Dimensions    []Dimension
	Measures      []Measure
	// Unread lists keys present but not mapped ("config", "meta").
	Unread []string
}

// Relation is a manifest node_relation: the physical table of a model.
type Relation struct {
	Database, Schema, Alias string
}

// Entity is a join key: type primary, unique, foreign or natural.
type Entity struct {
	Name, Type, Expr, Description, Label, Role string
}

// Dimension is a categorical or time dimension. Granularity is
// type_params.time_granularity (time dimensions only); Validity is true
// when validity_params (an SCD type II window) is set.
type Dimension struct {
	Name, Type, Expr, Description, Label string
	Granularity                          string
	Validity                             bool
}

// Measure is an aggregation of a semantic model: agg sum, max, min,
// count_distinct, sum_boolean, count, average, percentile or median.
type Measure struct {
	Name, Agg, Expr, Description, Label string
	CreateMetric                        bool
	AggTime                             string
	Percentile                          float64 // agg_params.percentile (0..1)
	Discrete                            bool    // agg_params.use_discrete_percentile
	Approximate                         bool    // agg_params.use_approximate_percentile
	NonAdditive                         *NonAdditive
}

// NonAdditive is a measure's non_additive_dimension: aggregate only the
// rows at the minimum or maximum of the time dimension Name.
type NonAdditive struct {
	Name, WindowChoice string
	WindowGroupings    []string
}

// Metric is one entry of `metrics:`, of type simple, ratio, cumulative,
// derived or conversion.
type Metric struct {
	Path        string
	Name        string
	Type        string
	Description string
	Label       string
	// Filter holds the metric's `filter` where-clauses (Jinja templates),
	// combined with AND.
	Filter []string
	// Measure is the measure of a simple or cumulative metric.
	Measure *Input
	// Numerator and Denominator are the metrics of a ratio metric.
	Numerator, Denominator *Input
	// Expr and Inputs are the expression and input metrics of a derived metric.
	Expr   string
	Inputs []Input
	// Window and GrainToDate are the cumulative parameters; PeriodAgg is
	// cumulative_type_params.period_agg ("" when not given).
	Window      *Window
	GrainToDate string
	PeriodAgg   string
	Conversion  *Conversion
	// Unread lists keys present but not mapped.
	Unread []string
}

// Input is a reference to a measure or a metric, with its own filter,
// alias and (derived metrics) time offset.
type Input struct {
	Name          string
	Alias         string
	Filter        []string
	OffsetWindow  *Window
	OffsetToGrain string
	// Unmapped options (join_to_timespine, fill_nulls_with) that are set.
	Unread []string
}

// Window is a duration such as "7 days": Count units of Unit (day, week,
// month, quarter, year, hour, ...; singular).
type Window struct {
	Count int
	Unit  string
}

// Conversion is a conversion metric's conversion_type_params.
type Conversion struct {
	Entity             string
	Calculation        string // conversion_rate (default) or conversions
	Base, Conversion   Input  // base_measure, conversion_measure
	Window             *Window
	ConstantProperties int // how many constant_properties are declared
}
