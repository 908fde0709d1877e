package server

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/bindcheck"
	"github.com/ossie-dev/ossie/server/load"
)

// LoadErrorBind counts a changed model file that compiles but does not
// bind to the engine (a renamed column, a dropped table, a contradicted
// time zone kind) or could not be bound because the engine did not
// answer (ossie_server_artifact_load_errors_total reason).
const LoadErrorBind = "bind"

// errNotBound is why /readyz is not ready while a served model does not
// bind; the per-model reasons are in its "models" member.
var errNotBound = errors.New("a served model does not bind to the engine (see models.NAME.drift)")

// bindCodes are the problem codes of a bind, not of compiling.
var bindCodes = []string{compiler.CodeEngine, compiler.CodeSandboxed, compiler.CodeBindingType}

// loadErrorReason is the metric reason of a refused load of model files:
// LoadErrorBind when every problem is one of binding (or the engine did
// not answer), LoadErrorCompile otherwise.
func loadErrorReason(err error) string {
	var le *load.Error
	if !errors.As(err, &le) {
		return LoadErrorBind // the engine did not answer the bind
	}
	for _, f := range le.Files {
		for _, p := range f.Problems {
			if !slices.Contains(bindCodes, p.Code) {
				return LoadErrorCompile
			}
		}
	}
	return LoadErrorBind
}

// msgNotBound is the log line of a source whose served models do not bind
// (SetDrift, SetDrifted).
const msgNotBound = "the serving models do not bind to the engine; not ready until they do"

// SetDrift records why the models source key serves do not bind to the
// engine ("" when they do), shown in /readyz as models.NAME.drift; the
// server is not ready while any is set. A new version of the source
// (Set) clears it: it was bound before it was set; SetDrifted records
// it with the swap.
func (s *Store) SetDrift(key, drift string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sources[key]
	if st == nil || st.drift == drift {
		return
	}
	if drift != "" {
		s.log.Warn(msgNotBound, "source", key, "drift", drift)
	} else if st.drift != "" {
		s.log.Info("the serving models bind to the engine again", "source", key)
	}
	st.drift = drift
	s.publish()
}

// servedArtifacts returns the artifacts source key serves (its last good
// set) and whether it recorded drift.
func (s *Store) servedArtifacts(key string) ([]*compiler.Artifact, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sources[key]
	if st == nil {
		return nil, false
	}
	arts := make([]*compiler.Artifact, len(st.models))
	for i, m := range st.models {
		arts[i] = m.art
	}
	return arts, st.drift != ""
}

// notBound reports whether a served model has drift (Ready).
func (c *catalog) notBound() bool {
	for _, st := range c.status {
		if st.Drift != "" {
			return true
		}
	}
	return false
}

// checkServedBinding binds the models the files serve to the engine and
// records the outcome (SetDrift). The models a server starts with are
// bound without refusing drift (the tables may be created after the
// server starts, and there is no older version to keep serving), so this
// is what keeps it not ready until they bind; the reloader repeats it at
// each poll while drift is recorded. An engine that does not answer
// leaves the record as it is: /readyz reports the engine itself.
func (r *Reloader) checkServedBinding(ctx context.Context) {
	arts, _ := r.s.store.servedArtifacts(filesSource)
	if drift, ok := r.bindDrift(ctx, arts); ok {
		r.s.store.SetDrift(filesSource, drift)
	}
}

// bindDrift checks arts against the engine and says why they do not bind
// ("" when they do); ok is false when there is nothing to check or the
// engine did not answer.
func (r *Reloader) bindDrift(ctx context.Context, arts []*compiler.Artifact) (drift string, ok bool) {
	if r.files.Engine == nil || len(arts) == 0 {
		return "", false
	}
	timeout := r.files.BindTimeout
	if timeout <= 0 {
		timeout = load.DefaultBindTimeout
	}
	res := bindcheck.Check(ctx, r.files.Engine, arts, timeout)
	if res.Unavailable != nil {
		return "", false
	}
	var why []string
	why = append(why, res.Missing...)
	why = append(why, res.Denied...)
	why = append(why, res.Mismatched...)
	return strings.Join(why, "; "), true
}

// ReadyStatus is the "status" of a ready /readyz: "degraded" when a
// source's newest version was refused while its last good version keeps
// serving (models.NAME.error), "ready" otherwise. Both answer 200: every
// served model binds and answers, and a failing readiness probe would
// take every replica out of its Service for an edit none of them serves.
func ReadyStatus(models map[string]ModelStatus) string {
	for _, st := range models {
		if st.Error != "" {
			return "degraded"
		}
	}
	return "ready"
}

// withLoadState adds a model's load state (its /readyz entry) to its
// /v1/models summary.
func withLoadState(sum ModelSummary, st ModelStatus) ModelSummary {
	sum.LoadError, sum.Drift = st.Error, st.Drift
	return sum
}
