// Package soak is the fault suite of issue 25: mixed queries from several
// callers (each with its own roles, attributes and token) over HTTP
// (JSON, CSV, Arrow), MCP and the PostgreSQL-wire SQL endpoint, against
// the real server process in Kubernetes mode over a real PostgreSQL and
// kube-apiserver, while a scripted sequence breaks one thing at a time:
// PostgreSQL restarts mid-query, the server is sent SIGTERM with queries
// in flight and SIGKILL, an artifact ConfigMap is corrupted and then
// deleted, the tokens file is rotated, corrupted and deleted, the API
// server goes away and comes back, and a small result cache is filled.
//
// What it asserts, for every request: the answer is the reference
// evaluator's (test/reference through the seeded generator
// test/differential/gen), or the failure is clear — HTTP 503, 504 or 429
// with an OSS code (the SQLSTATEs 57P03, 57014, 53300 over the wire) —
// and nothing hangs past the client's timeout (the server's query timeout
// plus a margin). A 401 is accepted only while the tokens file is
// deleted, a 404 only while a model's ConfigMap is, a failed connection
// only while the server is down. Besides: SIGTERM drains (the queries in
// flight are answered right, the exit status is 0), the models served
// after SIGKILL are the ones served before, a corrupt artifact leaves
// the last good version serving, an old token stops working once rotated
// out, and the server's resident memory stays under a bound (the series
// is reported). One case is the real operator's (operator.go): after
// every fault its SemanticModel's status must tell the truth within a
// requested reconcile, and two faults are its own.
//
// The short run is TestSoak in `make test`; `make soak` runs more
// rounds over more cases (docs/development.md).
//
// The memory soak of issue 28 (memory.go, TestMemorySoak, `make
// soak-memory`) is the other suite here: one server on DuckDB over the
// flights data and generated cases under varied load for half an hour,
// its RSS, Go heap, result cache and DuckDB memory sampled, every answer
// checked.
package soak

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ossie-dev/ossie/test/localproc"
)

// Options size a soak run.
type Options struct {
	// Cases is how many generated cases (models, each with its caller)
	// are served at once.
	Cases int
	// Rounds is how many times the fault sequence runs.
	Rounds int
	// Load is how long load runs alone between faults.
	Load time.Duration
	// Workers is how many clients send queries concurrently.
	Workers int
	// QueryTimeout is the server's --query-timeout; a client gives up
	// (and counts a hang) after it plus 10 s.
	QueryTimeout time.Duration
	// CacheBytes is the server's --cache-bytes: small, so that it fills.
	CacheBytes int64
	// CacheFill is how many never-asked questions the cache step sends.
	CacheFill int
	// Trino adds a case on a real Trino coordinator, served by a second
	// server process, and the fault of restarting Trino mid-query
	// (trino.go).
	Trino bool
	// MaxRSS is the bound on the server's resident memory in bytes.
	MaxRSS int64
	// Log receives one line per step (nil: none).
	Log func(format string, args ...any)
}

func (o Options) clientTimeout() time.Duration { return o.QueryTimeout + 10*time.Second }

// Report is what a run measured.
type Report struct {
	// Counts are outcomes by label: "answer" (checked right), "refused
	// 503 OSS5001", ..., "unreachable".
	Counts map[string]int
	// AnswersByEntryPoint are the checked answers per entry point.
	AnswersByEntryPoint map[string]int
	// Phases are the steps of the sequence in order.
	Phases []phaseStat
	// RSS is the server's resident memory sampled every 250 ms, in bytes.
	RSS []int64
	// Restarts is how many times the server was started again.
	Restarts int
	// Failures are the broken properties; empty when the soak passed.
	Failures []string
}

// RSSRange is the smallest and largest sample of RSS.
func (r *Report) RSSRange() (lo, hi int64) {
	for i, v := range r.RSS {
		if i == 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// String is the report for a log.
func (r *Report) String() string {
	var b strings.Builder
	lo, hi := r.RSSRange()
	fmt.Fprintf(&b, "outcomes: %s\n", sortedCounts(r.Counts))
	fmt.Fprintf(&b, "answers checked per entry point: %s\n", sortedCounts(r.AnswersByEntryPoint))
	fmt.Fprintf(&b, "server restarts: %d; RSS min %.1f MiB, max %.1f MiB over %d samples\n", r.Restarts, mib(lo), mib(hi), len(r.RSS))
	for _, p := range r.Phases {
		fmt.Fprintf(&b, "  %-34s %6s  answers %4d  %s\n", p.Name, p.Took.Round(100*time.Millisecond), p.Answers, sortedCounts(p.Refusals))
	}
	b.WriteString("RSS series (MiB, every 250 ms, every 8th sample):")
	for i := 0; i < len(r.RSS); i += 8 {
		fmt.Fprintf(&b, " %.0f", mib(r.RSS[i]))
	}
	return b.String()
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// Run starts everything, runs o.Rounds of the fault sequence under load,
// stops everything and reports. An error is a harness failure (nothing
// started); broken properties are in Report.Failures.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	w := &world{o: o}
	defer w.tearDown()
	rec := newRecorder(o.Log)
	rec.revoked = func(t string) bool { _, ok := w.revoked.Load(t); return ok }
	rec.begin("start")
	begin := time.Now()
	if err := w.setUp(ctx); err != nil {
		return nil, err
	}
	rec.phases[0].Took = time.Since(begin)
	o.Log("soak: %d cases served, server on %s, SQL endpoint on 127.0.0.1:%d", len(w.cases), w.server().Addr, w.pgPort)

	var rss []int64
	var rssMu sync.Mutex
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var sampled sync.WaitGroup
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-sampleCtx.Done():
				return
			case <-tick.C:
				if v := localproc.RSS(w.server().PID()); v > 0 {
					rssMu.Lock()
					rss = append(rss, v)
					rssMu.Unlock()
				}
			}
		}
	}()

	rec.begin("probe entry points")
	w.probe(ctx, rec)
	loadCtx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	for i := 0; i < o.Workers; i++ {
		load.Add(1)
		go func(i int) { defer load.Done(); w.worker(loadCtx, rec, i) }(i)
	}
	steps := w.sequence()
	for round := 1; round <= o.Rounds && ctx.Err() == nil; round++ {
		for _, s := range steps {
			name := s.name
			if o.Rounds > 1 {
				name = fmt.Sprintf("%d: %s", round, s.name)
			}
			rec.begin(name)
			o.Log("soak: %s", name)
			start := time.Now()
			s.run(ctx, rec)
			w.recover(ctx, rec)
			w.checkOperator(ctx, rec)
			sleepCtx(ctx, o.Load)
			rec.mu.Lock()
			ph := &rec.phases[len(rec.phases)-1]
			ph.Took = time.Since(start)
			o.Log("soak:   done in %s: answers %d, %s", ph.Took.Round(100*time.Millisecond), ph.Answers, sortedCounts(ph.Refusals))
			rec.mu.Unlock()
		}
	}
	stopLoad()
	load.Wait()
	stopSampling()
	sampled.Wait()

	r := &Report{Counts: rec.summary(), Phases: rec.phases, RSS: rss, Restarts: w.restarts}
	rec.mu.Lock()
	r.AnswersByEntryPoint = map[string]int{}
	for k, v := range rec.byEP {
		r.AnswersByEntryPoint[k] = v
	}
	rec.mu.Unlock()
	if _, hi := r.RSSRange(); hi > o.MaxRSS {
		rec.fail("server RSS reached %.1f MiB, over the bound %.1f MiB", mib(hi), mib(o.MaxRSS))
	}
	if r.Counts["answer"] == 0 {
		rec.fail("no answer was checked")
	}
	r.Failures = rec.failures()
	return r, nil
}

func ptr[T any](v T) *T { return &v }

// token is the token case c's caller uses now.
func (w *world) token(c *soakCase) string { return (*w.tokens.Load())[c.Name] }

// uniqueLimit is a limit no recent request used, above any case's row
// count (generated tables hold tens of rows) and under the server's row
// cap (maxRows: a larger limit is planned as the cap, the same SQL): the
// question is new to the cache and its answer the case's.
var uniqueLimit atomic.Int64

func nextLimit() int { return int(1000 + uniqueLimit.Add(1)%(maxRows-1000)) }

// mcpLimit is a limit for the MCP query tool, which caps a limit at its
// agent row cap (200): one of 150..200 in turn, used only by the
// questions a fault keeps in flight (two a round), so never one cached.
var mcpLimitSeq atomic.Int64

func mcpLimit() int { return int(150 + mcpLimitSeq.Add(1)%50) }

// maxRows is the server's --max-rows.
const maxRows = 1000000

// worker sends queries until ctx is done: case and entry point in turn,
// every third one a variant never asked before (so the cache fills and
// the engine is asked), and records every outcome.
func (w *world) worker(ctx context.Context, rec *recorder, id int) {
	r := rand.New(rand.NewSource(int64(id)))
	for i := 0; ctx.Err() == nil; i++ {
		c := w.cases[r.Intn(len(w.cases))]
		ep := entryPoints[r.Intn(len(entryPoints))]
		if w.held.Load() != nil {
			sleepCtx(ctx, 50*time.Millisecond)
			continue
		}
		if (ep == epMCP && !c.mcpOK) || (ep == epWire && !c.wireOK) {
			ep = epJSON
		}
		limit := 0
		if c.variant && i%3 == 0 && ep != epMCP {
			limit = nextLimit()
		}
		from := time.Now()
		o := w.ask(ctx, c, ep, w.token(c), limit)
		if ctx.Err() != nil && o.class != "answer" {
			return // stopped mid-request: not the server's doing
		}
		rec.count(c.Name, ep, o, from, time.Now())
		sleepCtx(ctx, 20*time.Millisecond)
	}
}

// probe asks every case once on every entry point before the load: the
// SQL endpoint cannot carry some queries (week_start has no SQL form), so
// a case whose query it refuses as not expressible is left off it.
func (w *world) probe(ctx context.Context, rec *recorder) {
	for _, c := range w.cases {
		for _, ep := range entryPoints {
			if ep == epMCP && !c.mcpOK {
				continue
			}
			from := time.Now()
			o := w.ask(ctx, c, ep, w.token(c), 0)
			if ep == epWire && o.class == "unreachable" && strings.Contains(o.detail, "no SQL form") {
				c.wireOK = false
				continue
			}
			rec.count(c.Name, ep, o, from, time.Now())
		}
	}
}

// recover checks that every case is answered right again on every entry
// point within 60 s of a fault's end: a clear refusal is retried, the
// first answer must be right.
func (w *world) recover(ctx context.Context, rec *recorder) {
	for _, c := range w.cases {
		for _, ep := range entryPoints {
			if (ep == epMCP && !c.mcpOK) || (ep == epWire && !c.wireOK) {
				continue
			}
			deadline := time.Now().Add(60 * time.Second)
			for {
				from := time.Now()
				o := w.ask(ctx, c, ep, w.token(c), 0)
				rec.count(c.Name, ep, o, from, time.Now())
				if o.class == "answer" || o.class == "wrong" || o.class == "hang" || o.class == "unclear" {
					break
				}
				if time.Now().After(deadline) || ctx.Err() != nil {
					rec.fail("%s on %s not answered again within 60 s of the fault's end: last %s: %s", c.Name, ep, o.label(), o.detail)
					break
				}
				sleepCtx(ctx, 200*time.Millisecond)
			}
		}
	}
}
