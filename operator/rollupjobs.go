package operator

import (
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Refresh modes of a rollup (docs/rollups.md).
const (
	refreshReconcile   = "reconcile"
	refreshSchedule    = "schedule"
	refreshIncremental = "incremental"
)

// rollupJob is one declared rollup as the rollups step builds it.
type rollupJob struct {
	Model, Name string
	Table       string // the table's name in the write schema
	Mode        string // refreshReconcile, refreshSchedule or refreshIncremental
	Every       time.Duration
	Lookback    int
	// PartitionGrain and TimeColumn (the table's column of the time
	// dimension) say which rows an incremental refresh replaces.
	PartitionGrain dialect.Grain
	TimeColumn     string
	Build          string                 // SELECT of all the table's rows
	Window         func(time.Time) string // SELECT of the rows at or after a time; nil: none
	Digest         string                 // of Build
	Fingerprint    string                 // SELECT of one row describing the sources; "" none
}

// rollupJobs lists the rollups the bundle's models declare, planned for d.
func rollupJobs(b *compiler.Bundle, d dialect.Dialect) ([]rollupJob, error) {
	return nil, nil
}
