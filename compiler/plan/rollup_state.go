package plan

import (
	"fmt"
	"time"

	"github.com/ossie-dev/ossie/compiler"
)

// RollupState is what the planner is told about one built rollup
// (docs/rollups.md), as the operator publishes it: Name is the rollup's
// name in the artifact, Table the qualified relation holding its rows
// (catalog/schema parts, then the table, whose last part is the
// artifact's ArtifactRollup.Table), ArtifactVersion the artifact version
// it was built (or last verified) for, BuiltAt when its latest build or
// refresh finished, and Watermark, when known, the latest time-dimension
// value its rows cover.
type RollupState struct {
	Name            string     `json:"name"`
	Table           []string   `json:"table"`
	ArtifactVersion string     `json:"artifact_version"`
	BuiltAt         time.Time  `json:"built_at"`
	Watermark       *time.Time `json:"watermark,omitempty"`
}

// stale says why st cannot answer for rollup r of art at now, or "" when
// it is fresh: built for this artifact version, into the table r's
// definition names, and, when the policy has an `every` (schedule and
// incremental always do), no older than it. Freshness is judged from the
// policy and the clock only; nothing is read from the engine.
func stale(art *compiler.Artifact, r *compiler.ArtifactRollup, st *RollupState, now time.Time) string {
	switch {
	case st == nil:
		return "it is not built"
	case st.ArtifactVersion != art.Version:
		return "it was built for artifact version " + st.ArtifactVersion + ", not this one"
	case len(st.Table) == 0 || st.Table[len(st.Table)-1] != r.Table:
		return fmt.Sprintf("its state names table %v, its definition builds %s", st.Table, r.Table)
	case st.BuiltAt.IsZero():
		return "it has no build time"
	}
	if every := r.Refresh.EveryDuration(); every > 0 && now.Sub(st.BuiltAt) > every {
		return fmt.Sprintf("it is stale: built at %s, older than its refresh every %s", st.BuiltAt.UTC().Format(time.RFC3339), r.Refresh.Every)
	}
	return ""
}

// rollupStates returns the planner's rollup states by name (none when
// Rollups is nil).
func (p *Planner) rollupStates() map[string]*RollupState {
	if p.Rollups == nil || len(p.art.Rollups) == 0 {
		return nil
	}
	list := p.Rollups()
	out := make(map[string]*RollupState, len(list))
	for i := range list {
		out[list[i].Name] = &list[i]
	}
	return out
}

// RollupDecision is what planning decided about one declared rollup:
// Used, or Reason, the first rule of docs/rollups.md it failed (the
// wording of EXPLAIN's last lines).
type RollupDecision struct {
	Name   string `json:"name"`
	Used   bool   `json:"used"`
	Reason string `json:"reason,omitempty"`
	// Range labels the compared date range (compare_date_range) the
	// decision is about; each range is planned, and decided, on its own.
	Range string `json:"range,omitempty"`
}

// RollupDecisions returns, in declaration order, the decision about every
// rollup of the model; nil when it declares none.
func (pl *Plan) RollupDecisions() []RollupDecision {
	if pl == nil || len(pl.rollups) == 0 {
		return nil
	}
	out := make([]RollupDecision, len(pl.rollups))
	for i, n := range pl.rollups {
		out[i] = RollupDecision{Name: n.name, Used: n.used, Reason: n.why, Range: n.scope}
	}
	return out
}
