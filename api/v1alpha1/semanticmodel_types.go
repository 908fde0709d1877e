package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/ossie"
)

// SemanticModelSpec is an Ossie document (`version`, `semantic_model[]`,
// written inline as in an Ossie YAML file) plus the governed views to
// create and the governance rules. The document and governance parts are
// the api/ossie types themselves (one definition for the CRD, ossiectl
// and the compiler); the operator encodes them to JSON and reads them with
// the same strict readers as `ossiectl validate` (compiler.Parse,
// compiler.ParseGovernance), so a cluster and a laptop reach the same
// verdict. The API server enforces structure only (types, required keys,
// no unknown keys); meaning is checked by the compiler and reported in the
// Validated condition.
type SemanticModelSpec struct {
	// Document is `version` (one of those `ossiectl version` lists, e.g.
	// "0.2.0.dev0") and `semantic_model[]`, each model becoming one
	// artifact of the published bundle.
	ossie.Document `json:",inline"`
	// Views are governed views the operator creates in the engine's view
	// schema, each planned from a metric query under a role.
	// +optional
	// +listType=map
	// +listMapKey=name
	Views []View `json:"views,omitzero"`
	// ViewReclaimPolicy says what happens to the views when the
	// SemanticModel is deleted: "delete" (default) drops every view the
	// operator created for it before the resource goes away (a finalizer
	// holds it until then); "retain" leaves them in the engine, orphaned
	// (a new SemanticModel of the same name does not adopt them: the
	// ownership comment names the old one's uid). Empty means "delete".
	// Views removed from spec.views are dropped under either policy.
	// +optional
	// +kubebuilder:validation:Enum=delete;retain
	ViewReclaimPolicy ViewReclaimPolicy `json:"viewReclaimPolicy,omitempty"`
	// Governance holds the roles views and queries are planned under.
	// +optional
	Governance *ossie.Governance `json:"governance,omitempty"`
}

// ViewReclaimPolicy is what deleting a SemanticModel does to its views.
type ViewReclaimPolicy string

// View reclaim policies.
const (
	ViewReclaimDelete ViewReclaimPolicy = "delete"
	ViewReclaimRetain ViewReclaimPolicy = "retain"
)

// View is one governed view: a metric query (the semantic server's query
// shape, package compiler/plan, without ordering or paging) planned under
// a governance role and created as
// `CREATE OR REPLACE VIEW <view schema>.<name>`. Its columns are the
// query's result columns, named as the server names them: `dataset.field`,
// `dataset.field.<grain>` for a time dimension with a grain, then the
// metric names, in the order written.
type View struct {
	// Name of the view inside the configured view schema; it is quoted, so
	// any characters are kept as written (at most 63 bytes, PostgreSQL's
	// identifier limit).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Role the query is planned under; it must be a governance role. The
	// view shows only what that role may read: its member access, row
	// filters and column masks apply.
	// +required
	// +kubebuilder:validation:MinLength=1
	Role string `json:"role"`
	// Model is the semantic_model entry the metrics belong to; it may be
	// omitted when the document holds one model.
	// +optional
	Model string `json:"model,omitempty"`
	// Metrics are metric names, one column each.
	// +required
	// +kubebuilder:validation:MinItems=1
	Metrics []string `json:"metrics"`
	// Dimensions group the metrics, one column each.
	// +optional
	Dimensions []ViewDimension `json:"dimensions,omitzero"`
	// Filters restrict the rows, as in a server query. Relative date
	// ranges ("last 7 days") are refused: a view is created once and
	// would freeze the date it was planned on.
	// +optional
	Filters []ViewFilter `json:"filters,omitzero"`
	// Timezone is an IANA zone name time grains are computed in; empty
	// means UTC.
	// +optional
	Timezone string `json:"timezone,omitempty"`
}

// ViewDimension is a group-by member `dataset.field`, optionally truncated
// to a time grain (hour, day, week, month, quarter, year).
type ViewDimension struct {
	// +required
	Field string `json:"field"`
	// +optional
	Grain string `json:"grain,omitempty"`
	// WeekStart "sunday" starts week buckets on Sunday; default ISO
	// (Monday).
	// +optional
	WeekStart string `json:"week_start,omitempty"`
}

// ViewFilter restricts rows: exactly one of Field (before aggregation) or
// Metric (after) with an operator and JSON scalar values.
type ViewFilter struct {
	// +optional
	Field string `json:"field,omitempty"`
	// +optional
	Metric string `json:"metric,omitempty"`
	// +optional
	Grain string `json:"grain,omitempty"`
	// +required
	Op string `json:"op"`
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Values []apiextensionsv1.JSON `json:"values,omitzero"`
}

// SemanticModelStatus is what the operator observed on its last pass.
type SemanticModelStatus struct {
	// ObservedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Validated, Compiled, DriftDetected, Published, ViewsReady,
	// RollupsReady and Ready (the summary); reasons are listed in docs/operator.md.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// PublishedVersion is the bundle version held by the published
	// ConfigMap, i.e. the version the semantic server serves. It changes
	// only when the operator publishes.
	// +optional
	PublishedVersion string `json:"publishedVersion,omitempty"`
	// AttemptedVersion is the bundle version compiled from the current
	// spec; empty when the spec does not compile.
	// +optional
	AttemptedVersion string `json:"attemptedVersion,omitempty"`
	// Bindings tell, per dataset, which physical object the engine resolved
	// and which columns the model needs but the engine lacks.
	// +optional
	Bindings []Binding `json:"bindings,omitempty"`
	// Views lists the views the operator created.
	// +optional
	Views []ViewStatus `json:"views,omitempty"`
	// Rollups lists the rollup tables the operator builds for the
	// published version (docs/rollups.md).
	// +optional
	Rollups []RollupStatus `json:"rollups,omitempty"`
	// Problems found by validation (errors and warnings), at most 100; the
	// Validated condition gives the total.
	// +optional
	Problems []Problem `json:"problems,omitempty"`
}

// Binding is one dataset bound to the engine.
type Binding struct {
	// +required
	Dataset string `json:"dataset"`
	// Model is the semantic_model entry holding the dataset (one document
	// may hold several models).
	// +optional
	Model string `json:"model,omitempty"`
	// Table is the physical source: the dotted table path, the data file or
	// "(query)".
	// +optional
	Table string `json:"table,omitempty"`
	// Columns is the number of columns the engine reports for the source.
	// +optional
	Columns int32 `json:"columns,omitempty"`
	// Missing names the table or the columns the model needs that the
	// engine does not have (drift).
	// +optional
	Missing []string `json:"missing,omitempty"`
}

// ViewStatus is a view the operator created and owns in the engine.
type ViewStatus struct {
	// Name is the view's name in spec.views.
	// +required
	Name string `json:"name"`
	// Relation is the quoted, schema-qualified view name as the engine
	// takes it, e.g. "ossie_views"."flights_by_state".
	// +optional
	Relation string `json:"relation,omitempty"`
	// Role the view is planned under.
	// +optional
	Role string `json:"role,omitempty"`
	// Columns are the view's column names, in order.
	// +optional
	Columns []string `json:"columns,omitempty"`
}

// RollupStatus is one declared rollup and the table the operator keeps for
// it in the engine's write schema.
type RollupStatus struct {
	// Name is the rollup's name in the model's rollups extension.
	// +required
	Name string `json:"name"`
	// Model is the semantic_model entry declaring it.
	// +optional
	Model string `json:"model,omitempty"`
	// Table is the quoted, schema-qualified table name as the engine takes
	// it; empty while no build has succeeded.
	// +optional
	Table string `json:"table,omitempty"`
	// Refresh is the refresh mode: reconcile, schedule or incremental.
	// +optional
	Refresh string `json:"refresh,omitempty"`
	// Version is the artifact version of the model the table answers for
	// (empty while the table holds an older definition).
	// +optional
	Version string `json:"version,omitempty"`
	// BuiltAt is when the table's last successful build or refresh ended.
	// +optional
	BuiltAt *metav1.Time `json:"builtAt,omitempty"`
	// Rows the table held after that build.
	// +optional
	Rows int64 `json:"rows,omitempty"`
	// Watermark is the latest time bucket the table holds (its time
	// dimension's maximum); absent without a time dimension or rows.
	// +optional
	Watermark *metav1.Time `json:"watermark,omitempty"`
	// Fresh is true when the table was built for the published version
	// from the sources as they are now and is younger than its refresh
	// interval: the planner may answer from it.
	// +optional
	Fresh bool `json:"fresh,omitempty"`
	// LastError is the message of the last failed build (the table above,
	// if any, keeps serving); empty after a good build.
	// +optional
	LastError string `json:"lastError,omitempty"`
}

// Problem is one finding of the compiler (compiler.Problem): a stable code
// (docs/problems.md), a severity, a path into the document and a message.
type Problem struct {
	// +required
	Code string `json:"code"`
	// +required
	Severity string `json:"severity"`
	// +optional
	Path string `json:"path,omitempty"`
	// +required
	Message string `json:"message"`
}

// SemanticModel is an Ossie semantic model the operator validates,
// compiles, binds to the engine and publishes as a ConfigMap that the
// semantic server serves.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=sm,categories=ossie
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.publishedVersion`
// +kubebuilder:printcolumn:name="Drift",type=string,JSONPath=`.status.conditions[?(@.type=="DriftDetected")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SemanticModel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SemanticModelSpec `json:"spec"`
	// +optional
	Status SemanticModelStatus `json:"status,omitempty"`
}

// SemanticModelList is a list of SemanticModels.
//
// +kubebuilder:object:root=true
type SemanticModelList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SemanticModel `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SemanticModel{}, &SemanticModelList{})
}
