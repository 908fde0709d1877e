package server

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/prometheus/client_golang/prometheus"
)

// Source identifies where a set of models comes from: one published
// ConfigMap in Kubernetes mode, or the model files of local mode.
type Source struct {
	// Key is unique per source and shown in /readyz, e.g.
	// "configmap team-a/ossie-shop" or "files".
	Key string
	// UID tells a deleted and re-created ConfigMap of the same name apart;
	// empty for files.
	UID string
	// Created orders sources that provide the same model name: the newer
	// one serves it (issue 3 ConfigMap contract).
	Created time.Time
	// Model is the model name the source announces (the ossie.dev/model
	// label). It names the /readyz entry of a source whose first version
	// failed to load, before any of its artifacts could be read.
	Model string
	// Namespace is the Kubernetes namespace of the source ("" for files).
	// Models are also served as namespace/name (namespaces.go), and a name
	// provided by two namespaces is not served under the bare name.
	Namespace string
}

// ModelStatus is one entry of the /readyz "models" object: the version and
// source of the artifact being served, and the last load error of that
// source (a newer version that was refused while this one keeps serving).
// Version is empty when nothing good was ever loaded under that name.
type ModelStatus struct {
	Version string `json:"version,omitempty"`
	Source  string `json:"source"`
	Error   string `json:"error,omitempty"`
	// Drift, when set, is why the serving version does not bind to the
	// engine (a table or column it reads is missing): the server is not
	// ready until it does (bindstate.go).
	Drift string `json:"drift,omitempty"`
}

// Reasons counted by the artifact load error metric.
const (
	LoadErrorDecode  = "decode"  // missing data, bad gzip/JSON, unknown format or version mismatch
	LoadErrorPlanner = "planner" // the artifact decodes but the planner refuses it
)

// Store is the set of models a Server answers for, swappable while queries
// run. Readers take one immutable catalog through an atomic pointer, so a
// request that has looked up a model keeps that model and its planner for
// its whole life even if a new version is swapped in meanwhile; writers
// are serialised and build every planner before the single pointer swap.
// Each source keeps its last good set of models: a refused update leaves
// them serving. Safe for concurrent use.
type Store struct {
	cur atomic.Pointer[catalog]
	// dirty: sources changed since cur was built. Building a catalog
	// reads every source, so a change only marks it: the next read, or
	// a flush publishDelay later, builds it once for any number of
	// changes (10,000 ConfigMaps listed at start are one build, not
	// 10,000; BenchmarkStoreTenThousandModels).
	dirty atomic.Bool
	flush *time.Timer // pending flush, nil when none; guarded by mu

	mu      sync.Mutex // serialises writers; guards sources
	sources map[string]*sourceState
	log     *slog.Logger

	loadErrors *prometheus.CounterVec
	rollups    rollupStates
}

// sourceState is the last good content of one source plus its last error.
type sourceState struct {
	src     Source
	version string   // bundle version of models
	models  []*model // last good set, sorted by name
	err     string   // last refused update, cleared by the next good one
	drift   string   // why models do not bind to the engine (SetDrift); "" when they do or were not checked
}

// catalog is one immutable generation of the store.
type catalog struct {
	models    map[string]*model // bare name → model, for names one namespace (or the files) provides
	all       []*model          // every served model, by name then namespace
	status    map[string]ModelStatus
	conflicts map[string]string // qualified model name → losing source keys, for change detection
	// qualified serves "namespace/name" for models of namespaced sources;
	// ambiguous lists, per bare name, the namespace/name of each namespace
	// providing it when there are several (namespaces.go).
	qualified map[string]*model
	ambiguous map[string][]string
}

var emptyCatalog = &catalog{models: map[string]*model{}, status: map[string]ModelStatus{}, conflicts: map[string]string{}}

// NewStore returns an empty store; log (nil discards) receives load
// warnings and name conflicts.
func NewStore(log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		sources: map[string]*sourceState{},
		log:     log,
		loadErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ossie_server_artifact_load_errors_total",
			Help: "Published artifacts the server refused to load (the last good version kept serving), by reason.",
		}, []string{"reason"}),
	}
	for _, r := range []string{LoadErrorDecode, LoadErrorPlanner} {
		s.loadErrors.WithLabelValues(r) // export zeros so rates work from the start
	}
	s.cur.Store(emptyCatalog)
	return s
}

// buildModels prepares planner and metadata for every artifact of one
// namespace ("" for files); a nil
// artifact, two artifacts of one name or a planner refusal is an error and
// nothing is built.
func buildModels(arts []*compiler.Artifact, namespace string) ([]*model, error) {
	out := make([]*model, 0, len(arts))
	seen := make(map[string]bool, len(arts))
	for i, a := range arts {
		if a == nil {
			return nil, fmt.Errorf("model %d is nil", i)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("two models are named %q", a.Name)
		}
		seen[a.Name] = true
		p, err := plan.New(a)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", a.Name, err)
		}
		m := &model{art: a, planner: p, namespace: namespace, detail: describeModel(a), summary: summarize(a)}
		m.detail.Namespace, m.summary.Namespace = namespace, namespace
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].art.Name < out[j].art.Name })
	return out, nil
}

// Set makes arts the complete set of models of src, replacing what src
// provided before (models it no longer lists stop being served by it). All
// planners are built before anything changes; if one fails, src keeps its
// last good set, the failure is recorded as by Fail and returned.
func (s *Store) Set(src Source, arts []*compiler.Artifact) error {
	return s.SetDrifted(src, arts, "")
}

// SetDrifted is Set for a version known not to bind to the engine: drift
// says why (as SetDrift), recorded in the same step as the swap, so
// /readyz never shows the new version ready in between.
func (s *Store) SetDrifted(src Source, arts []*compiler.Artifact, drift string) error {
	ms, err := buildModels(arts, src.Namespace)
	if err != nil {
		s.Fail(src, LoadErrorPlanner, err)
		return err
	}
	for _, m := range ms {
		m.planner.Rollups = s.rollupsOf(src.Key, m.art.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if drift != "" {
		s.log.Warn(msgNotBound, "source", src.Key, "drift", drift)
	}
	s.sources[src.Key] = &sourceState{src: src, version: compiler.BundleVersion(arts), models: ms, drift: drift}
	s.changed()
	return nil
}

func (s *Store) put(src Source, version string, ms []*model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources[src.Key] = &sourceState{src: src, version: version, models: ms}
	s.changed()
}

// Fail records that the newest content of src could not be loaded (reason
// is LoadErrorDecode or LoadErrorPlanner): the models src served keep
// serving, the error is logged, counted and shown in /readyz until src
// loads successfully or is removed.
func (s *Store) Fail(src Source, reason string, err error) {
	s.loadErrors.WithLabelValues(reason).Inc()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sources[src.Key]
	if st == nil || (st.src.UID != src.UID && src.UID != "") {
		// A new source (or a re-created ConfigMap) has no last good set.
		st = &sourceState{src: src}
		s.sources[src.Key] = st
	}
	st.err = err.Error()
	s.log.Warn("artifact refused; the last good version keeps serving", "source", src.Key, "reason", reason,
		"serving_version", st.version, "error", err)
	s.changed()
}

// Remove drops src and every model it provided, if the stored source with
// that key still has that uid (so the late delete of an old ConfigMap never
// removes its re-created successor). Models of the same name provided by
// another source then serve from it. It reports whether anything changed.
func (s *Store) Remove(key, uid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sources[key]
	if st == nil || st.src.UID != uid {
		return false
	}
	delete(s.sources, key)
	s.changed()
	return true
}

// publish builds the next catalog from s.sources and swaps it in. Callers
// hold s.mu. Within one namespace (or among the files) the newest source
// of a model name serves it; /readyz reports each namespace's model under
// its namespace/name, so two teams' models of one name never share an
// entry.
func (s *Store) publish() {
	prev := s.cur.Load()
	next := &catalog{models: map[string]*model{}, status: map[string]ModelStatus{}, conflicts: map[string]string{}}
	owner := map[string]*sourceState{} // qualified name → serving source
	losers := map[string][]string{}
	for _, st := range s.sources {
		for _, m := range st.models {
			k := Qualify(st.src.Namespace, m.art.Name)
			cur, ok := owner[k]
			if !ok {
				owner[k] = st
				continue
			}
			if newer(st.src, cur.src) {
				owner[k] = st
				losers[k] = append(losers[k], cur.src.Key)
			} else {
				losers[k] = append(losers[k], st.src.Key)
			}
		}
	}
	served := map[string]*model{}
	for k, st := range owner {
		_, name := splitQualified(k)
		i := slices.IndexFunc(st.models, func(m *model) bool { return m.art.Name == name })
		served[k] = st.models[i]
		next.status[k] = ModelStatus{Version: st.models[i].art.Version, Source: st.src.Key, Error: st.err, Drift: st.drift}
	}
	next.index(served)
	// A source that never loaded still shows its error, under the model
	// name it announces (or its key) unless that name is served elsewhere.
	for _, st := range s.sources {
		if len(st.models) > 0 || st.err == "" {
			continue
		}
		name := st.src.Model
		if name == "" {
			name = st.src.Key
		}
		if k := Qualify(st.src.Namespace, name); next.status[k].Source == "" {
			next.status[k] = ModelStatus{Source: st.src.Key, Error: st.err}
		}
	}
	for k, l := range losers {
		sort.Strings(l)
		next.conflicts[k] = strings.Join(l, ",")
		if prev.conflicts[k] != next.conflicts[k] || prev.status[k].Source != next.status[k].Source {
			s.log.Warn("several sources provide the same model; the newest serves it", "model", k,
				"serving", next.status[k].Source, "ignored", l)
		}
	}
	s.cur.Store(next)
}

// newer reports whether a wins over b: the later creation time, and on a
// tie the smaller key, so the choice never depends on event order.
func newer(a, b Source) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	return a.Key < b.Key
}

// publishDelay bounds how long a change waits for a read before its
// catalog is built anyway (so its log lines are not late).
const publishDelay = 50 * time.Millisecond

// changed marks the catalog stale and schedules a flush. Callers hold
// s.mu.
func (s *Store) changed() {
	s.dirty.Store(true)
	if s.flush == nil {
		s.flush = time.AfterFunc(publishDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.flush = nil
			s.publishIfDirty()
		})
	}
}

// publishIfDirty builds and swaps in the catalog when sources changed.
// Callers hold s.mu.
func (s *Store) publishIfDirty() {
	if s.dirty.Load() {
		s.publish()
		s.dirty.Store(false)
	}
}

// snapshot is the current catalog, built first if sources changed: a
// read after Set, Fail or Remove sees them.
func (s *Store) snapshot() *catalog {
	if s.dirty.Load() {
		s.mu.Lock()
		s.publishIfDirty()
		s.mu.Unlock()
	}
	return s.cur.Load()
}

// Models returns the served artifacts sorted by name.
func (s *Store) Models() []*compiler.Artifact {
	c := s.snapshot()
	out := make([]*compiler.Artifact, len(c.all))
	for i, m := range c.all {
		out[i] = m.art
	}
	return out
}

// Status returns the /readyz view of every model: what serves it and the
// last load error of its source, keyed by namespace/name for models of a
// namespace and by name for model files.
func (s *Store) Status() map[string]ModelStatus {
	return maps.Clone(s.snapshot().status)
}
