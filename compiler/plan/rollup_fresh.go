package plan

import (
	"time"

	"github.com/ossie-dev/ossie/compiler"
)

// RollupStale says why st cannot answer for rollup name of art at now, or
// "" when it is fresh: the rule the planner applies at every query
// (docs/rollups.md), for status pages that show which rollups serve. A
// name art does not declare is "it is not declared".
func RollupStale(art *compiler.Artifact, name string, st *RollupState, now time.Time) string {
	r := art.Rollup(name)
	if r == nil {
		return "it is not declared"
	}
	return stale(art, r, st, now)
}
