package v1alpha1

import "time"

// The governed-views contract between the operator and the engine
// (docs/operator.md, "Governed views").
const (
	// AnnotationViews on a SemanticModel records the views the operator
	// created for it and still owns, as JSON:
	// [{"schema":"ossie_views","name":"flights_by_state"}]. It is the list
	// the operator drops when views leave the spec or the model is deleted,
	// even after --view-schema changed.
	AnnotationViews = "ossie.dev/views"
	// FinalizerViews holds a SemanticModel whose views are to be dropped
	// (viewReclaimPolicy delete) until the operator has dropped them. It is
	// set only while the model has views.
	FinalizerViews = "ossie.dev/views"
)

// ViewsReady reasons besides NoViews, Blocked, EngineUnavailable and
// NameConflict.
const (
	// ReasonViewsApplied: every view of the spec exists as planned.
	ReasonViewsApplied = "ViewsApplied"
	// ReasonViewFailed: the engine refused a view's DDL; the message holds
	// the engine's diagnostic. Publication is not affected.
	ReasonViewFailed = "ViewFailed"
)

// FinalizerRollups holds a SemanticModel whose rollup tables are to be
// dropped from the engine's write schema before it is deleted. The
// operator adds it before it builds the first table and removes it once
// every table is dropped.
const FinalizerRollups = "ossie.dev/rollups"

// RollupsKey is the data key of the artifact ConfigMap that holds the
// rollup states (JSON, operator/rollups.go) the semantic server gives the
// planner: which rollup tables exist, for which version, how fresh.
const RollupsKey = "rollups.json"

// RollupState is one fresh rollup table as the operator publishes it in
// the artifact ConfigMap under RollupsKey (a JSON array, sorted
// by model and name): the semantic server hands these to the planner,
// which answers from a table only while it is fresh.
//
// +kubebuilder:object:generate=false
type RollupState struct {
	Model string `json:"model"`
	Name  string `json:"name"`
	// Table is the table's path: [schema, table] or [catalog, schema, table].
	Table []string `json:"table"`
	// ArtifactVersion is the version of the model's artifact the table
	// answers for (compiler.Artifact.Version).
	ArtifactVersion string `json:"artifact_version"`
	// Digest of the build SQL the table holds.
	Digest  string    `json:"digest"`
	BuiltAt time.Time `json:"built_at"`
	// Watermark is the latest time bucket of the table; zero without a
	// time dimension.
	Watermark time.Time `json:"watermark,omitzero"`
	// Every is the refresh interval (a Go duration, "0s" for none): the
	// table is stale once BuiltAt+Every has passed.
	Every string `json:"every"`
	Rows  int64  `json:"rows"`
}
