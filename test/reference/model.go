package reference

// Model is the reference's own representation of one semantic model: the
// subset of the Ossie document the generator writes, structured so that
// nothing has to be parsed. Each field reads one column of its dataset's
// table; relationships are many-to-one (From many, To one) and form a
// tree (no parallel paths, no cycles).
type Model struct {
	Name          string
	Datasets      []Dataset
	Relationships []Relationship
	Metrics       []Metric
	// Timezone is the model's stored zone for naive timestamps (OSSIE
	// extension `timezone`); "" means UTC.
	Timezone string
}

// Dataset is one dataset over one table.
type Dataset struct {
	Name       string
	Table      string
	PrimaryKey []string // field names; empty: none declared
	Fields     []Field
	Timezone   string // stored zone of naive timestamps; "" inherits the model's
}

// Field is one field: a column of the dataset's table. Datatype is the
// declared Ossie datatype, "" when the document leaves it to the engine
// (then the column type decides, see Datatype).
type Field struct {
	Name     string
	Column   string
	Datatype string
	IsTime   bool
	Timezone string // stored zone; "" inherits the dataset's
}

// Relationship joins From's FromColumns (fields) to To's ToColumns (To's
// primary key): many From rows to at most one To row.
type Relationship struct {
	Name        string
	From, To    string
	FromColumns []string
	ToColumns   []string
}

// Metric is one metric: an expression over aggregates and other metrics,
// with an optional type (docs/metrics.md). Datatype is the declared one
// ("" when left to the engine).
type Metric struct {
	Name     string
	Datatype string
	Expr     Expr
	Type     *MetricType
}

// MetricType is the `metric` key of a metric's OSSIE extension
// (compiler/schema/metric-type.v1.schema.json): one of cumulative,
// rolling, period_over_period, semi_additive, conversion.
type MetricType struct {
	Type   string
	Window string // cumulative: all, to_date
	Grain  string // cumulative to_date
	Count  int    // rolling, conversion
	Unit   string // rolling, conversion
	Offset string // period_over_period: prior_period, prior_year
	Output string // period_over_period: value, difference, ratio
	Along  string // semi_additive: dataset.field
	Pick   string // semi_additive: last, first, min, max
	// Per: semi_additive with last or first: the entity fields
	// (dataset.field each) the pick is made for (semiper.go).
	Per []string
	// conversion: event A is the metric's dataset, event B another one.
	Entity, At, ToEntity, ToAt string // dataset.field each
	// Calculation is conversion_rate ("" reads as it) or conversions.
	Calculation string
	// ToFilter, when set, is the condition a B row must meet to count
	// (Field a field of the B dataset); rendered as to_filter.
	ToFilter *Cond
}

// Expr is a metric expression: *Agg, Ref, Const or *Bin.
type Expr interface{ isExpr() }

// Agg is one aggregate call over a field of Dataset: Func is SUM, COUNT,
// COUNT_DISTINCT, AVG, MIN, MAX or COUNT_STAR (Field empty). When, if
// set, filters the aggregated rows (`AGG(CASE WHEN cond THEN field END)`;
// for COUNT_STAR `COUNT(CASE WHEN cond THEN 1 END)`).
type Agg struct {
	Func    string
	Dataset string
	Field   string
	When    *Cond
	// Bare: the document writes Field without its dataset (a name only
	// Dataset has; docs/authoring.md). The reference reads Dataset
	// regardless.
	Bare bool
}

// Cond is `field op value` over a field of the aggregate's dataset; Op is
// =, <>, >, >=, <, <=.
type Cond struct {
	Field string
	Op    string
	Value any // int64, float64 or string
}

// Ref names another metric.
type Ref struct{ Metric string }

// Const is a numeric literal (int64 or float64).
type Const struct{ Value any }

// Bin is l op r with op one of + - * / (/ is real division, NULL on a
// zero divisor).
type Bin struct {
	Op   string
	L, R Expr
}

func (*Agg) isExpr()  {}
func (Ref) isExpr()   {}
func (Const) isExpr() {}
func (*Bin) isExpr()  {}

// Governance is the reference's form of a governance document
// (docs/governance.md): declared caller attributes and roles.
type Governance struct {
	Attributes []string
	Roles      []Role
}

// Role is one role: metric and field access lists, row filters and masks.
// A nil Allow list allows every member not denied.
type Role struct {
	Name        string
	MetricAllow []string
	MetricDeny  []string
	FieldAllow  []string
	FieldDeny   []string
	RowFilters  []RowFilter
	Masks       []Mask
}

// RowFilter admits the rows of Dataset where Field (a field of Dataset, or
// `other.field` of a dataset it reaches by many-to-one hops) compares with
// Op (=, <>, IN) to Values, or to the caller attribute Attr when set.
type RowFilter struct {
	Dataset string
	Field   string
	Op      string
	Values  []any
	Attr    string
}

// Mask replaces Field's values (dataset.field): Kind null, literal
// (Value), hash (lowercase hex MD5 of the text), partial (KeepFirst,
// KeepLast around ****).
type Mask struct {
	Field           string
	Kind            string
	Value           string
	KeepFirst       int
	KeepLast        int
	AllowAggregates bool
}
