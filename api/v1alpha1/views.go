package v1alpha1

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
