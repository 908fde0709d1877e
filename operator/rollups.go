package operator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// rollups owns RollupsReady and status.rollups: it keeps, in the engine's
// write schema (Options.ViewSchema, the one schema the operator writes
// to), one table per rollup the published version declares
// (docs/rollups.md, "The operator").
//
// A rollup's table is (re)built when it is missing, when its definition
// (the digest of its build SQL) changed, under refresh mode reconcile when
// its source fingerprint changed (the row counts of the tables it reads),
// and under every mode with an interval once the last build is that old;
// mode incremental then replaces only the last partitions. Builds go
// through engine.Materializer, so a failed build keeps the table that was
// there: its error is reported (RollupsReady=False, RollupFailed) and the
// old rows stay until they are no longer fresh. A table name held by
// anything this model did not build is never touched. Tables this model
// built for rollups it no longer declares are dropped, and so are all of
// them when the model is deleted (FinalizerRollups).
//
// Every table carries its state in its comment (owner, definition digest,
// source fingerprint, build time), so the step is level-triggered: an
// operator restart rebuilds nothing. The states of the tables are written
// to the artifact ConfigMap under v1alpha1.RollupsKey, where the semantic
// server reads them and gives the fresh ones to the planner.
//
// Like views, rollups follow the published version: while the current spec
// is not published the tables are left as they are (Unknown, Blocked).
func (r *Reconciler) rollups(ctx context.Context, p *pass) {
	var jobs []rollupJob
	if p.published && r.Engine != nil {
		jobs = rollupJobs(p.bundle, r.Engine.Dialect())
	}
	held := controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerRollups)
	switch {
	case len(jobs) == 0 && !held && p.published:
		p.status.Rollups = nil
		r.publishRollupStates(ctx, p, nil)
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonNoRollups, "the published version declares no rollups")
		return
	case p.engineErr != nil:
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
			"rollups not checked: the engine is unavailable (retrying with backoff)")
		return
	case !p.published:
		if len(p.status.Rollups) == 0 && !held {
			p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonNoRollups, "nothing is published and no rollup table exists")
			return
		}
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionUnknown, v1alpha1.ReasonBlocked,
			fmt.Sprintf("rollups follow the published version and the current spec is not published (%s); existing rollup tables are left as they are", firstFailure(p)))
		return
	}
	mat, ok := r.Engine.(engine.Materializer)
	if !ok {
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionFalse, v1alpha1.ReasonRollupsNotSupported,
			fmt.Sprintf("the model declares %d rollup(s); the %s engine cannot hold rollup tables", len(jobs), r.Engine.Dialect().Name()))
		return
	}
	schema, err := engine.ViewSchemaPath(r.Options.ViewSchema)
	if err != nil {
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionFalse, v1alpha1.ReasonRollupFailed, err.Error()+" (--view-schema)")
		return
	}
	rs := &rollupSync{r: r, p: p, mat: mat, schema: schema, d: r.Engine.Dialect(), now: r.now()}
	rels, err := rs.relations(ctx)
	if err != nil {
		if errors.Is(err, engine.ErrUnavailable) {
			p.engineErr = err
			p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
				"cannot list the tables of "+rs.schemaName()+", the engine is unavailable (retrying with backoff): "+engineMessage(err))
			return
		}
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionFalse, v1alpha1.ReasonRollupFailed,
			"cannot list the tables of "+rs.schemaName()+": "+engineMessage(err))
		return
	}

	// The finalizer must be in place before a table exists that it drops.
	if len(jobs) > 0 && !held {
		if err := r.setFinalizer(ctx, p.sm, v1alpha1.FinalizerRollups, true); err != nil {
			p.apiErr = err
			p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionUnknown, v1alpha1.ReasonRollupFailed, "cannot add the finalizer: "+err.Error())
			return
		}
		held = true
	}

	desired := map[string]bool{}
	for i := range jobs {
		desired[jobs[i].Table] = true
		rs.sync(ctx, &jobs[i], rels)
	}
	owned := 0
	for _, name := range slices.Sorted(maps.Keys(rels)) {
		if !rs.ours(rels[name]) {
			continue
		}
		if desired[name] {
			owned++
			continue
		}
		if err := rs.drop(ctx, name); err != nil {
			owned++
		}
	}
	if held && owned == 0 && len(jobs) == 0 {
		if err := r.setFinalizer(ctx, p.sm, v1alpha1.FinalizerRollups, false); err != nil {
			p.apiErr = err
			rs.failures = append(rs.failures, "cannot remove the finalizer: "+err.Error())
		}
	}
	p.status.Rollups = rs.status
	p.rollupsChanged = rs.changed
	if rs.next > 0 {
		p.requeue = rs.next
	}
	r.publishRollupStates(ctx, p, rs.states)
	rs.setCondition(len(jobs))
}

// rollupSync is the state of one rollups step.
type rollupSync struct {
	r      *Reconciler
	p      *pass
	mat    engine.Materializer
	schema []string
	d      dialect.Dialect
	now    time.Time

	status   []v1alpha1.RollupStatus
	states   []v1alpha1.RollupState
	failures []string
	changed  []string      // builds and drops, for the event
	next     time.Duration // the soonest scheduled refresh; 0: none
}

func (rs *rollupSync) relations(ctx context.Context) (map[string]engine.Relation, error) {
	ctx, cancel := context.WithTimeout(ctx, rs.r.Options.EngineTimeout)
	defer cancel()
	return rs.mat.Relations(ctx, rs.schema)
}

func (rs *rollupSync) schemaName() string { return engine.QuotePath(rs.d.QuoteIdent, rs.schema...) }

func (rs *rollupSync) rel(name string) string { return engine.TablePath(rs.d, rs.schema, name) }

// ours reports whether rel is a rollup table (or a build table left
// behind) this model built.
func (rs *rollupSync) ours(rel engine.Relation) bool {
	m, ok := parseRollupComment(rel.Comment)
	return !rel.View && ok && m.owner.owns(rs.p.sm)
}

// sync brings one rollup's table up to date and records its status.
func (rs *rollupSync) sync(ctx context.Context, job *rollupJob, rels map[string]engine.Relation) {
	st := v1alpha1.RollupStatus{Name: job.Name, Model: job.Model, Refresh: job.Mode}
	if job.Err != "" {
		rs.failures = append(rs.failures, "rollup "+job.Name+": "+job.Err)
		st.LastError = job.Err
		rs.status = append(rs.status, st)
		return
	}
	rel, exists := rels[job.Table]
	var have rollupComment
	if exists {
		var ok bool
		have, ok = parseRollupComment(rel.Comment)
		if rel.View || !ok || !have.owner.owns(rs.p.sm) {
			o, ours := parseOwner(rel.Comment)
			msg := fmt.Sprintf("%s exists and %s; it is left untouched", rs.rel(job.Table), o.describe(ours))
			st.LastError = msg
			rs.failures = append(rs.failures, "rollup "+job.Name+": "+msg)
			rs.status = append(rs.status, st)
			return
		}
	}
	fp, err := rs.fingerprint(ctx, job)
	if err != nil {
		rs.fail(err, &st, job, "cannot read its sources: "+engineMessage(err))
		if exists {
			rs.report(ctx, job, &st, have, false)
		}
		rs.status = append(rs.status, st)
		return
	}
	want := rollupComment{owner: viewOwner{namespace: rs.p.sm.Namespace, name: rs.p.sm.Name, uid: string(rs.p.sm.UID), digest: job.Digest},
		rollup: job.Model + "/" + job.Name, source: fp}
	due := exists && job.Every > 0 && !rs.now.Before(have.built.Add(job.Every))
	switch {
	case !exists || have.owner.digest != job.Digest || job.Mode == compiler.RollupReconcile && have.source != fp:
		have, exists = rs.build(ctx, job, &st, want, have, exists, nil)
	case due && job.Partitions != nil:
		have, exists = rs.build(ctx, job, &st, want, have, exists, job.Partitions)
	case due:
		have, exists = rs.build(ctx, job, &st, want, have, exists, nil)
	}
	if exists {
		fresh := have.owner.digest == job.Digest && (job.Mode != compiler.RollupReconcile || have.source == fp) &&
			(job.Every <= 0 || rs.now.Before(have.built.Add(job.Every)))
		rs.report(ctx, job, &st, have, fresh)
		if job.Every > 0 {
			rs.schedule(have.built.Add(job.Every).Sub(rs.now))
		}
	}
	rs.status = append(rs.status, st)
}

// build runs a full build (partitions nil) or an incremental refresh of job's
// table and returns the comment the table now carries and whether it
// exists. A failure keeps the old table and its comment.
func (rs *rollupSync) build(ctx context.Context, job *rollupJob, st *v1alpha1.RollupStatus, want, have rollupComment, exists bool,
	partitions func(time.Time) (string, engine.Refresh, error)) (rollupComment, bool) {
	want.built = rs.now.UTC().Truncate(time.Second)
	def := engine.TableDef{Schema: rs.schema, Name: job.Table, Query: job.Build, Comment: want.String()}
	bctx, cancel := context.WithTimeout(ctx, rs.r.Options.BuildTimeout)
	defer cancel()
	var err error
	what := "built"
	if partitions != nil {
		var refresh engine.Refresh
		what = "refreshed"
		if def.Query, refresh, err = partitions(rs.now); err == nil {
			_, err = rs.mat.RefreshTable(bctx, def, refresh)
		}
	} else {
		_, err = rs.mat.BuildTable(bctx, def)
	}
	if err != nil {
		rs.fail(err, st, job, what[:len(what)-2]+" failed: "+engineMessage(err))
		return have, exists
	}
	rs.changed = append(rs.changed, what+" "+rs.rel(job.Table))
	return want, true
}

// fail records a failed build or check of job; an unavailable engine also
// asks for a retry with backoff.
func (rs *rollupSync) fail(err error, st *v1alpha1.RollupStatus, job *rollupJob, msg string) {
	if errors.Is(err, engine.ErrUnavailable) && rs.p.engineErr == nil {
		rs.p.engineErr = err
	}
	st.LastError = msg
	rs.failures = append(rs.failures, "rollup "+job.Name+": "+msg)
}

// report fills st and the published state from the table's comment, its
// row count and its watermark (both read from the rollup table, which is
// small).
func (rs *rollupSync) report(ctx context.Context, job *rollupJob, st *v1alpha1.RollupStatus, have rollupComment, fresh bool) {
	st.Table = rs.rel(job.Table)
	st.Version = job.Version
	if have.owner.digest != job.Digest {
		st.Version = "" // built for a definition no longer published
	}
	built := metav1.NewTime(have.built)
	st.BuiltAt = &built
	st.Fresh = fresh
	rows, mark, err := rs.measure(ctx, job)
	if err != nil {
		rs.fail(err, st, job, "cannot count its rows: "+engineMessage(err))
		st.Fresh = false
		return
	}
	st.Rows = rows
	if !mark.IsZero() {
		w := metav1.NewTime(mark)
		st.Watermark = &w
	}
	if st.Fresh {
		rs.states = append(rs.states, v1alpha1.RollupState{
			Model: job.Model, Name: job.Name, Table: append(slices.Clone(rs.schema), job.Table),
			ArtifactVersion: st.Version, Digest: job.Digest, BuiltAt: have.built, Watermark: mark, Every: job.Every.String(), Rows: rows,
		})
	}
}

// measure counts the table's rows and reads the maximum of its time
// column (zero without one or without rows).
func (rs *rollupSync) measure(ctx context.Context, job *rollupJob) (int64, time.Time, error) {
	sel := "count(*)"
	if job.TimeColumn != "" {
		sel += ", max(" + rs.d.QuoteIdent(job.TimeColumn) + ")"
	}
	res, err := rs.query(ctx, "SELECT "+sel+" FROM "+rs.rel(job.Table))
	if err != nil || len(res.Rows) != 1 {
		return 0, time.Time{}, err
	}
	row := res.Rows[0]
	n, _ := row[0].(int64)
	var mark time.Time
	if len(row) > 1 {
		mark = timeValue(row[1])
	}
	return n, mark, nil
}

// timeValue reads a date or timestamp as the engines return it (a
// time.Time, or text for dates); zero for NULL or anything else. The
// rollup's time column holds UTC wall time.
func timeValue(v any) time.Time {
	switch v := v.(type) {
	case time.Time:
		return v.UTC()
	case string:
		for _, layout := range []string{time.DateOnly, time.DateTime, "2006-01-02 15:04:05.999999", time.RFC3339Nano} {
			if t, err := time.Parse(layout, v); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

// fingerprint is the source fingerprint of job under refresh mode
// reconcile (its sources' row counts, hashed); "" under the other modes,
// which rebuild on their schedule.
func (rs *rollupSync) fingerprint(ctx context.Context, job *rollupJob) (string, error) {
	if job.Mode != compiler.RollupReconcile || job.Fingerprint == "" {
		return "", nil
	}
	res, err := rs.query(ctx, job.Fingerprint)
	if err != nil {
		return "", err
	}
	return shortDigest(fmt.Sprint(res.Rows)), nil
}

func (rs *rollupSync) query(ctx context.Context, sql string) (*engine.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, rs.r.Options.EngineTimeout)
	defer cancel()
	return rs.r.Engine.Query(ctx, sql, 2)
}

// drop drops a table this model built for a rollup it no longer declares.
func (rs *rollupSync) drop(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, rs.r.Options.EngineTimeout)
	defer cancel()
	if err := rs.mat.DropTable(ctx, rs.schema, name); err != nil {
		rs.failures = append(rs.failures, fmt.Sprintf("cannot drop %s: %s", rs.rel(name), engineMessage(err)))
		return err
	}
	rs.changed = append(rs.changed, "dropped "+rs.rel(name))
	return nil
}

func (rs *rollupSync) schedule(d time.Duration) {
	d = max(d, time.Second)
	if rs.next == 0 || d < rs.next {
		rs.next = d
	}
}

func (rs *rollupSync) setCondition(declared int) {
	p := rs.p
	fresh := 0
	for _, s := range rs.status {
		if s.Fresh {
			fresh++
		}
	}
	switch {
	case len(rs.failures) > 0:
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionFalse, v1alpha1.ReasonRollupFailed,
			fmt.Sprintf("%d of %d rollup(s) fresh; %s", fresh, declared, strings.Join(rs.failures, "; ")))
	case declared == 0:
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonNoRollups, "the published version declares no rollups")
	default:
		names := make([]string, len(rs.status))
		for i, s := range rs.status {
			names[i] = s.Table
		}
		p.setCondition(v1alpha1.ConditionRollupsReady, metav1.ConditionTrue, v1alpha1.ReasonRollupsBuilt,
			fmt.Sprintf("%d rollup table(s) fresh for version %s: %s", len(names), p.status.PublishedVersion, strings.Join(names, ", ")))
	}
}
