package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
)

// RollupSchema is the schema local mode (`server --models --rollups`,
// `ossiectl serve --rollups`, `ossiectl query --rollups`) builds rollup
// tables in, as the operator builds them in its write schema.
const RollupSchema = "ossie_rollups"

// DefaultRollupBuildTimeout bounds one rollup build in local mode.
const DefaultRollupBuildTimeout = 30 * time.Minute

// rollupRetry is how soon local mode tries a failed build again (the
// tables it reads may appear, the engine come back).
const rollupRetry = time.Minute

// BuildRollup builds rollup name of art in eng's schema RollupSchema as
// the operator does (plan.BuildRollup: the planner's own rules, so the
// table holds exactly what the base tables would answer), replacing a
// table of the same name, and returns its state, fresh as of its build.
// With partitioned true and an incremental rollup, only the latest
// partitions (plan.PartitionRange) are rebuilt in the existing table.
// Errors: the engine cannot hold tables, the rollup cannot be planned on
// it, or the build failed (the table, if any, is unchanged).
func BuildRollup(ctx context.Context, eng engine.Engine, art *compiler.Artifact, name, comment string, partitioned bool) (v1alpha1.RollupState, error) {
	var st v1alpha1.RollupState
	mat, ok := eng.(engine.Materializer)
	if !ok {
		return st, fmt.Errorf("the %s engine cannot hold rollup tables", eng.Dialect().Name())
	}
	r := art.Rollup(name)
	if r == nil {
		return st, fmt.Errorf("model %s declares no rollup %s", art.Name, name)
	}
	started := time.Now().UTC()
	def := engine.TableDef{Schema: []string{RollupSchema}, Name: r.Table, Comment: comment}
	var rows int64
	var err error
	if from, to, ok := plan.PartitionRange(r, started); partitioned && ok && r.Refresh.Mode == compiler.RollupIncremental {
		rb, probs := plan.BuildRollupPartitions(art, name, eng.Dialect(), from, to)
		if probs.HasErrors() {
			return st, fmt.Errorf("rollup %s: %s", name, probs[0].Message)
		}
		def.Query = rb.SQL
		rows, err = mat.RefreshTable(ctx, def, engine.Refresh{Column: rb.PartitionColumn, Since: rb.From, Until: rb.To})
	} else {
		rb, probs := plan.BuildRollup(art, name, eng.Dialect())
		if probs.HasErrors() {
			return st, fmt.Errorf("rollup %s: %s", name, probs[0].Message)
		}
		def.Query = rb.SQL
		rows, err = mat.BuildTable(ctx, def)
	}
	if err != nil {
		return st, fmt.Errorf("building rollup %s: %w", name, err)
	}
	return v1alpha1.RollupState{Model: art.Name, Name: name, Table: []string{RollupSchema, r.Table}, ArtifactVersion: art.Version,
		BuiltAt: started, Every: r.Refresh.EveryDuration().String(), Rows: rows}, nil
}

// localRollups keeps, in local mode, the rollup tables of the models the
// files serve: built at start and after each reload that changes a
// model, refreshed on the schedule each declares (`every`: refresh modes
// schedule and incremental, and reconcile with an `every`), and handed to
// the planner as the operator's published states are (Store.SetRollups),
// so the planner uses them under the same proofs and refuses one built
// for another model version or older than its `every`. A build that
// fails keeps the table that was there; its error is logged and shown in
// /v1/models until a build succeeds (tried again every rollupRetry).
// Reconcile-mode rollups are not rebuilt when the sources change (local
// mode does not fingerprint them): give them an `every`, or reload
// (SIGHUP).
type localRollups struct {
	s       *Server
	eng     engine.Engine
	log     *slog.Logger
	timeout time.Duration
	kick    chan struct{}

	mu     sync.Mutex
	states map[string]v1alpha1.RollupState // by table name (definitions hash into it)
	errs   map[string]string               // model/rollup → last build error
}

// RunRollups builds every rollup of the served model files now, then
// keeps them fresh until ctx is done (localRollups). Models loaded later
// by the file reloader are built as they swap in. It is an error when
// the engine cannot hold tables; a failed build is not (it is logged and
// reported).
func (s *Server) RunRollups(ctx context.Context) error {
	if s.cfg.Engine == nil {
		return errNoEngine
	}
	if _, ok := s.cfg.Engine.(engine.Materializer); !ok {
		return fmt.Errorf("--rollups: the %s engine cannot hold rollup tables", s.cfg.Engine.Dialect().Name())
	}
	lr := &localRollups{s: s, eng: s.cfg.Engine, log: s.cfg.Logger.With("rollups", RollupSchema), timeout: DefaultRollupBuildTimeout,
		kick: make(chan struct{}, 1), states: map[string]v1alpha1.RollupState{}, errs: map[string]string{}}
	s.rollups.Store(lr)
	next := lr.sync(ctx, time.Now())
	go lr.loop(ctx, next)
	return nil
}

// rollupsChanged asks the runner, if any, to build the rollups of newly
// loaded models.
func (s *Server) rollupsChanged() {
	if lr := s.rollups.Load(); lr != nil {
		select {
		case lr.kick <- struct{}{}:
		default:
		}
	}
}

func (lr *localRollups) loop(ctx context.Context, next time.Duration) {
	timer := time.NewTimer(next)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-lr.kick:
		case <-timer.C:
		}
		next = lr.sync(ctx, time.Now())
		timer.Reset(next)
	}
}

// sync builds what is missing or due at now and publishes the states;
// it returns when it is next due (an hour when nothing is scheduled).
// Calls are serialised by the runner's loop.
func (lr *localRollups) sync(ctx context.Context, now time.Time) time.Duration {
	arts, _ := lr.s.store.servedArtifacts(filesSource)
	now = now.UTC()
	next := time.Hour
	keep := map[string]bool{}
	var states []v1alpha1.RollupState
	for _, art := range arts {
		for i := range art.Rollups {
			r := &art.Rollups[i]
			keep[r.Table] = true
			lr.mu.Lock()
			have, built := lr.states[r.Table]
			lr.mu.Unlock()
			every := r.Refresh.EveryDuration()
			due := built && every > 0 && !now.Before(have.BuiltAt.Add(every))
			if !built || due {
				st, err := lr.build(ctx, art, r.Name, built && due)
				lr.mu.Lock()
				if err != nil {
					next = min(next, rollupRetry)
					lr.errs[art.Name+"/"+r.Name] = err.Error()
					lr.log.Error("rollup build failed; the base tables answer until it succeeds", "model", art.Name, "rollup", r.Name, "error", err)
				} else {
					delete(lr.errs, art.Name+"/"+r.Name)
					lr.states[r.Table], have, built = st, st, true
					lr.log.Info("rollup built", "model", art.Name, "rollup", r.Name, "table", RollupSchema+"."+r.Table, "rows", st.Rows, "incremental", due)
				}
				lr.mu.Unlock()
			}
			if !built {
				continue
			}
			// The table's name hashes its definition, so a table built for
			// an earlier version of an unchanged definition holds this
			// version's rows too.
			have.Model, have.ArtifactVersion = art.Name, art.Version
			states = append(states, have)
			if every > 0 {
				next = min(next, max(time.Second, have.BuiltAt.Add(every).Sub(now)))
			}
		}
	}
	lr.s.store.SetRollups(filesSource, states)
	lr.dropUndeclared(ctx, keep)
	return next
}

func (lr *localRollups) build(ctx context.Context, art *compiler.Artifact, name string, refresh bool) (v1alpha1.RollupState, error) {
	ctx, cancel := context.WithTimeout(ctx, lr.timeout)
	defer cancel()
	return BuildRollup(ctx, lr.eng, art, name, "rollup "+art.Name+"/"+name+" built by the Ossie server in local mode", refresh)
}

// dropUndeclared drops the tables this process built for rollups no
// served model declares any more (tables it did not build are never
// touched).
func (lr *localRollups) dropUndeclared(ctx context.Context, keep map[string]bool) {
	mat := lr.eng.(engine.Materializer)
	lr.mu.Lock()
	defer lr.mu.Unlock()
	for table := range lr.states {
		if keep[table] {
			continue
		}
		if err := mat.DropTable(ctx, []string{RollupSchema}, table); err != nil && !errors.Is(err, context.Canceled) {
			lr.log.Warn("cannot drop a rollup table no model declares", "table", RollupSchema+"."+table, "error", err)
			continue
		}
		delete(lr.states, table)
	}
}

// buildError is the last build error of rollup name of model, "" none.
func (lr *localRollups) buildError(model, name string) string {
	if lr == nil {
		return ""
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.errs[model+"/"+name]
}

// RollupSummary is one rollup of a model in GET /v1/models (ungoverned
// callers): its table when built, when it was built, and whether the
// planner may answer from it now (Fresh) or why not (Reason, the
// planner's wording); Error is the last failed build in local mode.
type RollupSummary struct {
	Name    string     `json:"name"`
	Table   string     `json:"table,omitempty"`
	BuiltAt *time.Time `json:"built_at,omitempty"`
	Fresh   bool       `json:"fresh"`
	Reason  string     `json:"reason,omitempty"`
	Error   string     `json:"error,omitempty"`
}

// rollupSummaries describes every rollup m declares from the states its
// planner reads (the operator's, or local mode's); nil when it declares
// none.
func (s *Server) rollupSummaries(m *model) []RollupSummary {
	if len(m.art.Rollups) == 0 {
		return nil
	}
	var states []plan.RollupState
	if m.planner.Rollups != nil {
		states = m.planner.Rollups()
	}
	lr := s.rollups.Load()
	now := time.Now()
	out := make([]RollupSummary, 0, len(m.art.Rollups))
	for _, r := range m.art.Rollups {
		sum := RollupSummary{Name: r.Name, Error: lr.buildError(m.art.Name, r.Name)}
		var st *plan.RollupState
		if i := slices.IndexFunc(states, func(st plan.RollupState) bool { return st.Name == r.Name }); i >= 0 {
			st = &states[i]
			b := st.BuiltAt
			sum.Table, sum.BuiltAt = strings.Join(st.Table, "."), &b
		}
		sum.Reason = plan.RollupStale(m.art, r.Name, st, now)
		sum.Fresh = sum.Reason == ""
		out = append(out, sum)
	}
	return out
}
