package server

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ossie-dev/ossie/server/format"
)

// DefaultFlightBytes bounds the answer one shared engine execution keeps
// for the callers waiting on it (Config.FlightBytes), estimated as the
// result cache estimates (valueBytes).
const DefaultFlightBytes = 64 << 20

// flightIdleBytes is how much of an answer its leader copies while no
// caller waits for it: a caller arriving later still needs every row, so
// the copy starts with the answer, but most answers are never shared and
// should not hold FlightBytes each. A follower arriving after the copy
// outgrew this runs the query itself.
const flightIdleBytes = 1 << 20

// flights lets identical concurrent questions share one engine execution,
// with the result cache on or off (issue 28). Identical means the same
// cache key (keyFor): model name and version, the caller's roles and
// attributes, the planned SQL (which holds the row filters and masks of
// those roles) and the total count's SQL, so callers governed differently
// never share. The first caller (the leader) runs the query and streams
// its answer to its own client as usual, keeping a copy of the rows up to
// maxBytes; callers arriving meanwhile (followers) wait for it to finish
// and replay the copy (the leader copies flightIdleBytes at most while
// none waits). An answer that outgrows maxBytes is not kept: the
// flight is abandoned at once and waiting followers run the query
// themselves, as do followers of a leader whose own request failed (its
// client gone or cancelled, its admission refused), since the copy would
// be incomplete; an engine error of the leader is the followers' too
// (shareFailure), so a failing query is not run again by each. Memory is
// thus bounded by maxBytes per distinct question in flight that callers
// wait for, and flightIdleBytes per other one. Followers see their first row only when the leader's answer
// is complete: sharing trades their time to first row for engine work.
// Safe for concurrent use.
type flights struct {
	maxBytes int64 // < 0: no sharing

	mu sync.Mutex
	m  map[cacheKey]*flight

	executions, shared prometheus.Counter
	waiting            prometheus.Gauge
}

// flight is one execution in progress; done is closed when it ended,
// with entry set when the answer is complete and kept, or err when the
// engine failed it (shareFailure).
type flight struct {
	done      chan struct{}
	entry     *cacheEntry
	err       error
	once      sync.Once
	followers atomic.Int32 // callers that joined it
}

func newFlights(maxBytes int64, reg prometheus.Registerer) (*flights, error) {
	if maxBytes == 0 {
		maxBytes = DefaultFlightBytes
	}
	f := &flights{maxBytes: maxBytes, m: map[cacheKey]*flight{},
		executions: prometheus.NewCounter(prometheus.CounterOpts{Name: "ossie_server_engine_queries_total",
			Help: "Answers run on the engine (not replayed from the result cache or from an identical query in flight)."}),
		shared: prometheus.NewCounter(prometheus.CounterOpts{Name: "ossie_server_shared_answers_total",
			Help: "Answers replayed from an identical query's engine execution that was in flight when they were asked."}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ossie_server_shared_waiting",
			Help: "Callers waiting for an identical query's engine execution to finish."}),
	}
	for _, c := range []prometheus.Collector{f.executions, f.shared, f.waiting} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// join returns the flight of k and whether the caller leads it (then it
// must end it with finish). Without sharing every caller leads its own.
func (fs *flights) join(k cacheKey) (f *flight, leader bool) {
	if fs.maxBytes < 0 {
		return &flight{done: make(chan struct{})}, true
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[k]; ok {
		f.followers.Add(1)
		return f, false
	}
	f = &flight{done: make(chan struct{})}
	fs.m[k] = f
	return f, true
}

// finish ends f (entry and err nil: nothing to share) and lets its
// followers go; later calls do nothing, so an abandoned flight stays
// abandoned.
func (fs *flights) finish(k cacheKey, f *flight, entry *cacheEntry, err error) {
	f.once.Do(func() {
		fs.mu.Lock()
		if fs.m[k] == f {
			delete(fs.m, k)
		}
		fs.mu.Unlock()
		f.entry, f.err = entry, err
		close(f.done)
	})
}

// shareFailure is the leader's error its followers get instead of
// running the query again: an error of the engine (a timeout, a failed
// query, a drifted table), which the same SQL would meet again. Errors
// of the leader's own request are not shared: its client gone or its
// context cancelled, its sink failing, or its admission refused (limits
// count per caller). nil: the followers run the query themselves.
func shareFailure(ctx context.Context, err error, rec *answerRecorder) error {
	var se *sinkError
	if err == nil || rec == nil || !rec.admitted || ctx.Err() != nil || errors.As(err, &se) {
		return nil
	}
	return err
}

// answerRecorder keeps a copy of an answer while it streams, up to limit
// bytes, or shared bytes once busy reports that callers wait for it;
// beyond it the copy is dropped and overflow (when set) is called once.
type answerRecorder struct {
	entry         *cacheEntry
	limit, shared int64
	busy          func() bool
	overflow      func()
	admitted      bool // the query got its slot and went to the engine
}

// add copies row, until the answer is too large to keep.
func (r *answerRecorder) add(row []any) {
	if r.entry == nil {
		return
	}
	for _, v := range row {
		r.entry.bytes += valueBytes(v)
	}
	if r.entry.bytes > r.limit && (r.busy == nil || r.entry.bytes > r.shared || !r.busy()) {
		r.entry = nil
		if r.overflow != nil {
			r.overflow()
		}
		return
	}
	r.entry.rows = append(r.entry.rows, slices.Clone(row))
}

// finish completes the copy with what is known after the last row and
// counts what the entry holds besides its values (entryBytes).
func (r *answerRecorder) finish(tail format.AnswerTail) {
	if r.entry == nil {
		return
	}
	r.entry.tail = tail
	r.entry.bytes += entryBytes(r.entry)
}

// shareRun answers run as the leader of its flight or as a follower
// (flights); with the result cache on, the leader's complete answer is
// offered to the cache too (it keeps answers up to its own bound).
func (s *Server) shareRun(ctx context.Context, run runSpec, sink format.AnswerSink) error {
	f, leader := s.flights.join(run.key)
	if !leader {
		s.flights.waiting.Inc()
		ok := await(ctx, f.done)
		s.flights.waiting.Dec()
		if !ok {
			return s.engineError(ctx, ctx, run.q, ctx.Err())
		}
		if s.cache != nil {
			// The leader's answer went to the cache when it fits: a hit,
			// as before sharing worked without the cache.
			if e, ok := s.cache.Get(run.key); ok {
				s.cache.hits.Inc()
				return replay(e, s.cache.now(), sink)
			}
		}
		if f.entry != nil {
			s.flights.shared.Inc()
			return replayAnswer(f.entry, false, 0, sink)
		}
		if f.err != nil {
			s.flights.shared.Inc()
			return f.err
		}
		// The leader failed or its answer was too large to keep.
		return s.execute(ctx, run, sink, nil)
	}
	// Copy what the cache would keep, and up to FlightBytes once callers
	// wait (flightIdleBytes before).
	limit, shared := min(flightIdleBytes, s.flights.maxBytes), s.flights.maxBytes
	if s.cache != nil {
		limit = max(limit, s.cache.limit())
	}
	rec := &answerRecorder{entry: &cacheEntry{key: run.key}, limit: limit, shared: max(shared, limit),
		busy: func() bool { return f.followers.Load() > 0 }, overflow: func() { s.flights.finish(run.key, f, nil, nil) }}
	if limit < 0 {
		rec = nil
	}
	err := s.execute(ctx, run, sink, rec)
	var kept *cacheEntry
	if err == nil && rec != nil && rec.entry != nil {
		kept = rec.entry
		if s.cache != nil {
			s.cache.put(kept)
		}
	}
	s.flights.finish(run.key, f, kept, shareFailure(ctx, err, rec))
	return err
}

// execute is run on the engine, counted.
func (s *Server) execute(ctx context.Context, run runSpec, sink format.AnswerSink, rec *answerRecorder) error {
	if s.cache != nil {
		s.cache.misses.Inc()
	}
	s.flights.executions.Inc()
	return s.run(ctx, run, sink, rec)
}
