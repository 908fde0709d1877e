package v1alpha1

// Condition types of SemanticModel.status.conditions. Each reconcile step
// owns one; Ready summarises them (docs/operator.md has the full table).
const (
	// ConditionValidated: the spec parses and passes every model rule.
	ConditionValidated = "Validated"
	// ConditionCompiled: the spec compiled to a bundle (attemptedVersion).
	ConditionCompiled = "Compiled"
	// ConditionDriftDetected: True when the engine lacks a table or column
	// the model needs; Unknown when the engine could not be asked.
	ConditionDriftDetected = "DriftDetected"
	// ConditionPublished: the published ConfigMap holds the current spec's
	// bundle.
	ConditionPublished = "Published"
	// ConditionViewsReady: the governed views of the spec exist.
	ConditionViewsReady = "ViewsReady"
	// ConditionRollupsReady: every declared rollup of the published
	// version has a fresh table. Not part of Ready: a rollup that is not
	// fresh only means the base tables answer.
	ConditionRollupsReady = "RollupsReady"
	// ConditionReady: the current spec is published, bound and its views
	// exist.
	ConditionReady = "Ready"
	// ConditionReconciling (kstatus, sigs.k8s.io/cli-utils/pkg/kstatus):
	// True while the operator is still working towards the spec and will
	// retry by itself (the engine or the API server did not answer, the
	// model is being deleted). Absent otherwise ("abnormal-true": absent
	// reads as False).
	ConditionReconciling = "Reconciling"
	// ConditionStalled (kstatus): True when the current spec cannot make
	// progress until something outside the operator changes (the spec is
	// invalid, the engine has drifted, the ConfigMap name is taken, the
	// artifact is too large, a view is refused). Absent otherwise.
	ConditionStalled = "Stalled"
)

// Condition reasons.
const (
	ReasonValid            = "Valid"
	ReasonValidationFailed = "ValidationFailed"
	ReasonCompiled         = "Compiled"
	ReasonCompileFailed    = "CompileFailed"
	// ReasonBlocked: the step did not run for the current spec because an
	// earlier step failed; the message names it.
	ReasonBlocked           = "Blocked"
	ReasonNoDrift           = "NoDrift"
	ReasonDrift             = "Drift"
	ReasonEngineUnavailable = "EngineUnavailable"
	// ReasonPermissionDenied: DriftDetected is True because the engine's
	// user may not read a table the model uses (a missing grant).
	ReasonPermissionDenied  = "PermissionDenied"
	ReasonPublished         = "Published"
	ReasonArtifactTooLarge  = "ArtifactTooLarge"
	ReasonNameConflict      = "NameConflict"
	ReasonPublishFailed     = "PublishFailed"
	ReasonNoViews           = "NoViews"
	ReasonViewsNotSupported = "ViewsNotSupported"
	ReasonReady             = "Ready"
	// ReasonLastGoodServing: the current spec is not published, and an
	// older published version keeps serving.
	ReasonLastGoodServing = "LastGoodServing"
	// ReasonNotPublished: the current spec is not published and nothing
	// older is either.
	ReasonNotPublished  = "NotPublished"
	ReasonViewsNotReady = "ViewsNotReady"
	ReasonNoRollups     = "NoRollups"
	// ReasonRollupsBuilt: every rollup table is fresh.
	ReasonRollupsBuilt = "RollupsBuilt"
	// ReasonRollupFailed: a build or refresh failed; a table built before
	// keeps its rows (and is used while still fresh).
	ReasonRollupFailed = "RollupFailed"
	// ReasonRollupsNotSupported: the engine cannot hold rollup tables.
	ReasonRollupsNotSupported = "RollupsNotSupported"
	// ReasonDeleting: the model is being deleted; the operator is removing
	// its ConfigMap, views and rollup tables (Ready False, Reconciling
	// True).
	ReasonDeleting = "Deleting"
	// ReasonRetrying: Reconciling is True because the API server refused
	// or did not answer a write; the pass is retried with backoff.
	ReasonRetrying = "Retrying"
)
