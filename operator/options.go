// Package operator reconciles SemanticModel resources (DESIGN.md section 4):
// an ordered list of small steps, each in its own file and owning one
// condition — validate (Validated), compile (Compiled), bind (DriftDetected),
// publish (Published), views (ViewsReady), rollups (RollupsReady) and
// ready (Ready, the summary) —
// with the status written at most once per pass and only when it changed.
// The steps call the same compiler code as ossiectl; the published
// artifact is a ConfigMap following the contract in api/v1alpha1/labels.go.
package operator

import (
	"time"

	"github.com/ossie-dev/ossie/compiler"
)

// Options tune the reconciler. Zero values take the defaults below.
type Options struct {
	// Compile holds the install defaults (catalog, schema) applied to
	// table paths with fewer than three parts.
	Compile compiler.CompileOptions
	// ViewSchema is the one engine schema governed views are created in:
	// `schema` or `catalog.schema` (Trino, attached DuckDB databases). It
	// is created when missing. Default DefaultViewSchema.
	ViewSchema string
	// ViewGrants maps a governance role to the engine logins (names only,
	// never credentials) that get SELECT on exactly that role's governed
	// views (PostgreSQL; engine.Granter). When set, the operator owns the
	// SELECT grants of its views: a login holding SELECT on a view whose
	// role does not map to it is revoked, so a view whose role changes, or
	// a mapping removed, takes the grant away; a dropped view takes its
	// grants with it. Empty: grants are left to the administrator.
	ViewGrants map[string][]string
	// MaxArtifactBytes caps the gzip-compressed bundle stored in the
	// ConfigMap (bytes). Default 900 KiB: under the 1 MiB object limit of
	// Kubernetes with room for metadata.
	MaxArtifactBytes int
	// EngineTimeout bounds each engine call of the drift check. A call
	// that times out counts as the engine being unavailable, never as
	// drift. Default 10s.
	EngineTimeout time.Duration
	// BuildTimeout bounds one rollup build or refresh (a CREATE TABLE AS
	// over the base tables can take far longer than a drift check).
	// Default 30m.
	BuildTimeout time.Duration
	// BackoffBase and BackoffMax shape the exponential retry while the
	// engine is unavailable or the API server refuses a write (defaults
	// 1s and 5m).
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// DriftRecheck is how soon a drifted model is checked again, so a
	// table fixed in the engine recovers without any change to the
	// resource. Default 1m; negative disables it (the resync period still
	// applies).
	DriftRecheck time.Duration
	// MaxConcurrentReconciles is the number of models reconciled in
	// parallel. Default 4.
	MaxConcurrentReconciles int
}

// Defaults of Options.
const (
	DefaultMaxArtifactBytes        = 900 << 10
	DefaultEngineTimeout           = 10 * time.Second
	DefaultBuildTimeout            = 30 * time.Minute
	DefaultBackoffBase             = time.Second
	DefaultBackoffMax              = 5 * time.Minute
	DefaultDriftRecheck            = time.Minute
	DefaultMaxConcurrentReconciles = 4
	DefaultViewSchema              = "ossie_views"
	// DefaultResync is the default period after which every model is
	// reconciled again even without a change (manager cache SyncPeriod).
	DefaultResync = 5 * time.Minute
	// DefaultLeaderElectionID is the fixed Lease name replicas compete for.
	DefaultLeaderElectionID = "ossie-operator.ossie.dev"
	// FieldManager names the operator's writes in managedFields and events.
	FieldManager = "ossie-operator"
)

func (o Options) withDefaults() Options {
	if o.MaxArtifactBytes <= 0 {
		o.MaxArtifactBytes = DefaultMaxArtifactBytes
	}
	if o.EngineTimeout <= 0 {
		o.EngineTimeout = DefaultEngineTimeout
	}
	if o.BuildTimeout <= 0 {
		o.BuildTimeout = DefaultBuildTimeout
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = DefaultBackoffBase
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.DriftRecheck == 0 {
		o.DriftRecheck = DefaultDriftRecheck
	}
	if o.ViewSchema == "" {
		o.ViewSchema = DefaultViewSchema
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	return o
}
