package operator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
)

// rollupJob is one declared rollup as the rollups step builds it.
type rollupJob struct {
	Model, Name string
	Version     string // the artifact version of its model
	Table       string // the table's name in the write schema
	Mode        string // compiler.RollupReconcile, RollupSchedule or RollupIncremental
	Every       time.Duration
	TimeColumn  string // the table's time-dimension column; "" none
	Build       string // SELECT of all the table's rows
	Digest      string // of Build
	Fingerprint string // SELECT of one row describing the sources; "" none
	// Partitions plans an incremental refresh at a time: the SELECT of the
	// latest partitions' rows and the range they replace; nil when the
	// rollup is not refreshed incrementally.
	Partitions func(now time.Time) (string, engine.Refresh, error)
	// Err is why the rollup cannot be built on this engine (planning
	// problems); nothing else is set but the names.
	Err string
}

// rollupJobs plans, for d, the build of every rollup the bundle's models
// declare (plan.BuildRollup: the planner's own rules, so a rollup holds
// exactly what the base tables would answer).
func rollupJobs(b *compiler.Bundle, d dialect.Dialect) []rollupJob {
	var out []rollupJob
	for _, art := range b.Artifacts {
		for i := range art.Rollups {
			r := &art.Rollups[i]
			job := rollupJob{Model: art.Name, Name: r.Name, Version: art.Version, Table: r.Table, Mode: r.Refresh.Mode, Every: r.Refresh.EveryDuration()}
			rb, probs := plan.BuildRollup(art, r.Name, d)
			if probs.HasErrors() {
				job.Err = "cannot be planned for " + d.Name() + ": " + problemsLine(probs)
				out = append(out, job)
				continue
			}
			job.Build, job.Digest = rb.SQL, shortDigest(rb.SQL)
			if r.Time != nil {
				if c := r.GroupColumn(r.Time.Field); c != nil {
					job.TimeColumn = c.Name
				}
			}
			job.Fingerprint = fingerprintSQL(art, r, d)
			if r.Refresh.Mode == compiler.RollupIncremental && r.PartitionGrain != "" {
				art, name := art, r.Name
				job.Partitions = func(now time.Time) (string, engine.Refresh, error) {
					from, to, _ := plan.PartitionRange(art.Rollup(name), now)
					pb, probs := plan.BuildRollupPartitions(art, name, d, from, to)
					if probs.HasErrors() {
						return "", engine.Refresh{}, fmt.Errorf("%s", problemsLine(probs))
					}
					return pb.SQL, engine.Refresh{Column: pb.PartitionColumn, Since: pb.From, Until: pb.To}, nil
				}
			}
			out = append(out, job)
		}
	}
	return out
}

// fingerprintSQL counts the rows of every dataset rollup r reads (its
// members' datasets and its metrics'), one scalar subquery each: a source
// is taken as changed when a count changes. Rows updated in place are not
// seen: use refresh mode schedule for such sources (docs/rollups.md).
func fingerprintSQL(art *compiler.Artifact, r *compiler.ArtifactRollup, d dialect.Dialect) string {
	var names []string
	add := func(ds string) {
		if ds != "" && !slices.Contains(names, ds) {
			names = append(names, ds)
		}
	}
	for _, c := range r.Columns {
		if c.Member != "" {
			ds, _, _ := strings.Cut(c.Member, ".")
			add(ds)
		}
		if m := art.Metric(c.Metric); m != nil {
			for _, ds := range m.Datasets {
				add(ds)
			}
		}
	}
	slices.Sort(names)
	var counts []string
	for _, n := range names {
		ds := art.Dataset(n)
		if ds == nil {
			continue
		}
		var from string
		switch ds.Source.Kind {
		case compiler.SourceQuery:
			from = "(" + ds.Source.Query + ") AS s"
		case compiler.SourceFile:
			f, ok := d.FileSource(ds.Source.Path)
			if !ok {
				continue
			}
			from = f
		default:
			from = engine.QuotePath(d.QuoteIdent, ds.Source.Table...)
		}
		counts = append(counts, "(SELECT count(*) FROM "+from+")")
	}
	if len(counts) == 0 {
		return ""
	}
	return "SELECT " + strings.Join(counts, ", ")
}

// problemsLine joins the messages of probs.
func problemsLine(probs compiler.Problems) string {
	msgs := make([]string, 0, len(probs))
	for _, p := range probs {
		msgs = append(msgs, p.Code+" "+p.Message)
	}
	return strings.Join(msgs, "; ")
}
