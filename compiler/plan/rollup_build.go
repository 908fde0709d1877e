package plan

import (
	"fmt"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// RollupBuild is the statement that computes a rollup's rows
// (docs/rollups.md): SQL is one SELECT whose result columns are Columns,
// in the order and with the names of the rollup's table
// (compiler.ArtifactRollup.Columns). The operator creates Table from it
// (CREATE TABLE … AS, or INSERT INTO … SELECT).
//
// For an incremental refresh (BuildRollupPartitions) SQL computes only the
// rows of the partitions in [From, To) and Delete is the predicate, over
// the table's own columns, of the rows those partitions replace: the
// operator runs DELETE FROM <table> WHERE <Delete> and INSERT INTO <table>
// <SQL> in one transaction. Delete is "" for a full build.
type RollupBuild struct {
	Name    string   `json:"name"`
	Table   string   `json:"table"`
	SQL     string   `json:"sql"`
	Columns []Column `json:"columns"`
	// PartitionColumn is the time dimension's column when the rollup is
	// partitioned ("" otherwise).
	PartitionColumn string    `json:"partition_column,omitempty"`
	From            time.Time `json:"from,omitzero"`
	To              time.Time `json:"to,omitzero"`
	Delete          string    `json:"delete,omitempty"`
}

// BuildRollup returns the statement computing every row of rollup name of
// art for dialect d. It is planned by the planner itself, as a query of
// the rollup's dimensions (the time dimension at its grain, in UTC) whose
// outputs are the partial aggregates instead of metrics, so joins, fan-out
// deduplication, chasm-safe combination and stored time zones follow the
// rules every query follows (query-semantics.md). Problems: OSS4002 when
// art has no rollup name, and those planning reports (an unreachable
// dimension, OSS4010; an engine that cannot compute an aggregate, OSS3008).
func BuildRollup(art *compiler.Artifact, name string, d dialect.Dialect) (*RollupBuild, compiler.Problems) {
	return buildRollup(art, name, d, time.Time{}, time.Time{})
}

// BuildRollupPartitions is BuildRollup restricted to the partitions
// starting in [from, to) (from and to are partition boundaries in UTC,
// e.g. from PartitionRange), with RollupBuild.Delete set. Problems as
// BuildRollup, and OSS4004 for a rollup without partitions.
func BuildRollupPartitions(art *compiler.Artifact, name string, d dialect.Dialect, from, to time.Time) (*RollupBuild, compiler.Problems) {
	if r := art.Rollup(name); r != nil && r.PartitionGrain == "" {
		return nil, compiler.Problems{{Code: compiler.CodeBadGrain, Severity: compiler.SeverityError, Path: "rollups." + name, Message: fmt.Sprintf("rollup %s has no partition_grain: build it whole", name)}}
	}
	return buildRollup(art, name, d, from.UTC(), to.UTC())
}

// PartitionRange returns the partitions an incremental refresh of r at
// now rebuilds: the r.Refresh.Lookback latest, the one holding now
// included, as [from, to) in UTC. ok is false when r is not partitioned.
func PartitionRange(r *compiler.ArtifactRollup, now time.Time) (from, to time.Time, ok bool) {
	if r.PartitionGrain == "" {
		return time.Time{}, time.Time{}, false
	}
	n := max(r.Refresh.Lookback, 1)
	start := truncate(now.UTC(), r.PartitionGrain)
	return addGrain(start, r.PartitionGrain, -(n - 1)), addGrain(start, r.PartitionGrain, 1), true
}

// truncate is the start of t's period of grain g (weeks start on Monday).
func truncate(t time.Time, g string) time.Time {
	if g == "hour" {
		return t.Truncate(time.Hour)
	}
	y, m, d := t.Date()
	return periodStart(time.Date(y, m, d, 0, 0, 0, 0, time.UTC), g)
}

// addGrain moves t by n periods of grain g (hour, day, week, month,
// quarter, year).
func addGrain(t time.Time, g string, n int) time.Time {
	switch g {
	case "hour":
		return t.Add(time.Duration(n) * time.Hour)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "quarter":
		return t.AddDate(0, 3*n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	}
	return t.AddDate(0, 0, n)
}

// buildRollup plans the statement that computes rollup name on d: its
// dimension columns as a query of the model, its aggregate columns as the
// partial measures of its metrics; with from set, only the periods in
// [from, to) and the predicate that deletes them first.
func buildRollup(art *compiler.Artifact, name string, d dialect.Dialect, from, to time.Time) (*RollupBuild, compiler.Problems) {
	r := art.Rollup(name)
	if r == nil {
		return nil, compiler.Problems{{Code: compiler.CodeUnknownMetric, Severity: compiler.SeverityError, Path: "rollups", Message: fmt.Sprintf("model %s declares no rollup %q", art.Name, name)}}
	}
	p, err := New(art)
	if err != nil {
		return nil, compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: err.Error()}}
	}
	out := &RollupBuild{Name: r.Name, Table: r.Table}
	q, timeCol := rollupDimensions(r)
	if !from.IsZero() {
		q.Filters = rollupPeriods(d, r, timeCol, from, to, out)
	}
	if r.PartitionGrain != "" {
		out.PartitionColumn = timeCol
	}
	pr := p.prepared(d)
	if len(pr.unsupported) > 0 {
		return nil, pr.unsupported
	}
	if len(q.Dimensions) == 0 {
		// A rollup of totals only: resolve refuses a query of nothing, so
		// it resolves one of the rollup's metrics, which the partials
		// below replace.
		q.Metrics = r.Metrics[:1]
	}
	b, probs := p.resolve(q, pr, nil)
	if len(probs) > 0 {
		return nil, probs
	}
	for i, dm := range b.dims {
		dm.name = r.Columns[i].Name
	}
	b.order = nil
	if b.metrics, probs = p.rollupPartials(pr, r); len(probs) > 0 {
		return nil, probs
	}
	_, sql, probs := p.buildRender(pr, b)
	if len(probs) > 0 {
		return nil, probs
	}
	out.SQL, out.Columns = sql, b.columns()
	return out, nil
}

// rollupDimensions is the query of r's dimension columns, in column order,
// and the name of its time column ("" without one).
func rollupDimensions(r *compiler.ArtifactRollup) (*Query, string) {
	q := &Query{}
	timeCol := ""
	for _, c := range r.Columns {
		if c.Aggregate == nil {
			q.Dimensions = append(q.Dimensions, Dimension{Field: c.Member, Grain: c.Grain})
			if c.Grain != "" {
				timeCol = c.Name
			}
		}
	}
	return q, timeCol
}

// rollupPeriods are the filters that restrict a build to the periods in
// [from, to) of r's time, and sets out's range and the predicate on
// timeCol that deletes those periods from the table before they are
// inserted again.
func rollupPeriods(d dialect.Dialect, r *compiler.ArtifactRollup, timeCol string, from, to time.Time, out *RollupBuild) []Filter {
	v := func(t time.Time) string {
		if r.Time.Grain == "hour" {
			return t.Format("2006-01-02 15:04:05")
		}
		return t.Format("2006-01-02")
	}
	out.From, out.To = from, to
	lo, _ := timeLiteral(d, v(from), time.UTC) // formatted above: always a date or timestamp
	hi, _ := timeLiteral(d, v(to), time.UTC)
	out.Delete = d.QuoteIdent(timeCol) + " >= " + lo + " AND " + d.QuoteIdent(timeCol) + " < " + hi
	return []Filter{{Field: r.Time.Field, Grain: r.Time.Grain, Op: "gte", Value: v(from)}, {Field: r.Time.Field, Grain: r.Time.Grain, Op: "lt", Value: v(to)}}
}

// rollupPartials are r's aggregate columns as metrics of the build: each
// the partial measure of its metric (a count-like one an Integer), so the
// table holds what re-aggregation combines.
func (p *Planner) rollupPartials(pr *prepared, r *compiler.ArtifactRollup) ([]*selMetric, compiler.Problems) {
	var out []*selMetric
	for _, c := range r.Columns {
		if c.Aggregate == nil {
			continue
		}
		m := p.art.Metric(c.Metric)
		f, ok := aggregateCall(c.Aggregate.Node)
		if m == nil || !ok {
			return nil, compiler.Problems{{Code: compiler.CodeUnknownReference, Severity: compiler.SeverityError, Path: "rollups." + r.Name, Message: fmt.Sprintf("rollup %s: column %s is no aggregate of a metric of the model", r.Name, c.Name)}}
		}
		ms, err := p.measureOf(pr, m, f)
		if err != nil {
			return nil, compiler.Problems{{Code: compiler.CodeDisconnected, Severity: compiler.SeverityError, Path: "rollups." + r.Name, Message: err.Error()}}
		}
		dt := ossie.Datatype("")
		if ms.countLike {
			dt = ossie.TypeInteger
		}
		out = append(out, &selMetric{name: c.Name, visible: true, mp: &metricPlan{
			combiner: expr.Ref{Qualifier: measureQualifier, Name: ms.key}, measures: []*measure{ms}, countLike: ms.countLike, datatype: dt}})
	}
	return out, nil
}

// aggregateCall is n as an aggregate call.
func aggregateCall(n expr.Node) (expr.Func, bool) {
	switch f := n.(type) {
	case expr.Func:
		return f, true
	case *expr.Func:
		if f != nil {
			return *f, true
		}
	}
	return expr.Func{}, false
}
