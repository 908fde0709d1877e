package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/test/localproc"
)

// worker asks until ctx is done, in turn: never-asked flights questions
// of small answers (six in ten: the cache churns), one of tens of
// thousands of rows, a popular question (a cache hit, mostly), a
// generated case, and a question of the no_airports role (refused by
// state, answered by airport code); each through a random entry point
// that carries it.
func (m *memWorld) worker(ctx context.Context, rec *recorder, id int) {
	rnd := rand.New(rand.NewSource(int64(id) + 1))
	for i := 0; ctx.Err() == nil; i++ {
		var c *soakCase
		switch i % 10 {
		case 6:
			c = m.soakCase(m.ref.question(rnd, 4, rnd.Intn(m.ref.days), 1+rnd.Intn(m.ref.days)), "reader")
		case 7:
			c = m.popular[rnd.Intn(len(m.popular))]
		case 8:
			c = m.cases[rnd.Intn(len(m.cases))]
		case 9:
			c = m.roleQuestion(rnd)
		default:
			c = m.soakCase(m.ref.question(rnd, rnd.Intn(4), rnd.Intn(m.ref.days), 1+rnd.Intn(m.ref.days)), "reader")
		}
		ep := entryPoints[rnd.Intn(len(entryPoints))]
		if (ep == epMCP && (!c.mcpOK || (c.Want != nil && len(c.Want.Rows) > 200))) || (ep == epWire && !c.wireOK) {
			ep = epJSON
		}
		from := time.Now()
		o := m.ask(ctx, c, ep)
		if ctx.Err() != nil && o.class != "answer" {
			return // stopped mid-request: not the server's doing
		}
		rec.count(c.Name, ep, o, from, time.Now())
	}
}

// roleQuestion is a flights question of the no_airports role: by origin
// airport code, answered; by origin state, refused as a field the role
// cannot see (OSS4003, docs/governance.md: as if it did not exist; not
// on the SQL endpoint, whose client sees no such column to ask for).
func (m *memWorld) roleQuestion(rnd *rand.Rand) *soakCase {
	shape := 2
	if rnd.Intn(2) == 0 {
		shape = 0
	}
	c := m.ref.question(rnd, shape, rnd.Intn(m.ref.days), 1+rnd.Intn(m.ref.days))
	if shape != 0 {
		return m.soakCase(c, "no_airports")
	}
	c.Want, c.WantCode = nil, "OSS4003"
	sc := m.soakCase(c, "no_airports")
	sc.wireOK = false
	return sc
}

// ask is world.ask with c's role's token; a refusal a case expects
// (WantCode) counts as its answer.
func (m *memWorld) ask(ctx context.Context, c *soakCase, ep string) outcome {
	o := m.w.ask(ctx, c, ep, m.tokens[c.role], 0)
	if c.WantCode != "" && o.class == "refused" && strings.HasSuffix(o.key, " "+c.WantCode) {
		return outcome{class: "answer"}
	}
	return o
}

// reloader edits the flights model's description every o.Reload (a new
// model version; the server swaps it in) until ctx is done, and returns
// how many edits it made.
func (m *memWorld) reloader(ctx context.Context, rec *recorder) int {
	base, err := os.ReadFile(m.flights)
	if err != nil {
		rec.fail("reload: %v", err)
		return 0
	}
	const at = "Non-cancelled US domestic flights"
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n
		case <-time.After(m.o.Reload):
		}
		n++
		edited := strings.Replace(string(base), at, fmt.Sprintf("%s (revision %d)", at, n), 1)
		if err := replaceFile(m.flights, []byte(edited)); err != nil {
			rec.fail("reload %d: %v", n, err)
		}
	}
}

// sample records the server's memory every o.Sample until ctx is done,
// each sample also as a CSV line when o.CSV is set.
func (m *memWorld) sample(ctx context.Context, rec *recorder) ([]memSample, error) {
	var out *os.File
	if m.o.CSV != "" {
		var err error
		if out, err = os.Create(m.o.CSV); err != nil {
			return nil, err
		}
		defer out.Close()
		fmt.Fprintln(out, "seconds,rss_bytes,go_heap_inuse_bytes,go_sys_bytes,result_cache_bytes,engine_memory_bytes,answers,requests")
	}
	begin := time.Now()
	var samples []memSample
	for {
		s := m.sampleNow(time.Since(begin), rec)
		samples = append(samples, s)
		if out != nil {
			fmt.Fprintf(out, "%.0f,%d,%d,%d,%d,%d,%d,%d\n", s.At.Seconds(), s.RSS, s.HeapInuse, s.GoSys, s.CacheBytes, s.EngineBytes, s.Answers, s.Requests)
		}
		select {
		case <-ctx.Done():
			return samples, nil
		case <-time.After(m.o.Sample):
		}
	}
}

// sampleNow reads /proc's VmRSS and the memory gauges of /metrics.
func (m *memWorld) sampleNow(at time.Duration, rec *recorder) memSample {
	p := m.w.server()
	s := memSample{At: at, RSS: localproc.RSS(p.PID()), HeapInuse: -1, GoSys: -1, CacheBytes: -1, EngineBytes: -1}
	rec.mu.Lock()
	s.Answers = rec.counts["answer"]
	for _, n := range rec.counts {
		s.Requests += n
	}
	rec.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, body, err := p.Get(ctx, "/metrics")
	if err != nil || code != 200 {
		return s
	}
	gauges := map[string]*int64{"go_memstats_heap_inuse_bytes": &s.HeapInuse, "go_memstats_sys_bytes": &s.GoSys,
		"ossie_result_cache_bytes": &s.CacheBytes, "ossie_engine_memory_bytes": &s.EngineBytes}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if dst := gauges[name]; ok && dst != nil {
			if f, err := strconv.ParseFloat(val, 64); err == nil {
				*dst = int64(f)
			}
		}
	}
	return s
}

// afterWarmup are the samples taken at or after the warm-up.
func (r *MemoryReport) afterWarmup() []memSample {
	for i, s := range r.Samples {
		if s.At >= r.Warmup {
			return r.Samples[i:]
		}
	}
	return nil
}

// Drift is the RSS after warm-up: the first sample after it (the
// warm-up value), the smallest, the largest and the last; fromRef is the
// largest distance of any sample from the warm-up value and band half the
// range around its middle, both in percent (band is the ±% the RSS stays
// within).
func (r *MemoryReport) Drift() (ref, lo, hi, last int64, fromRef, band float64) {
	after := r.afterWarmup()
	if len(after) == 0 {
		return 0, 0, 0, 0, 0, 0
	}
	ref, lo, hi, last = after[0].RSS, after[0].RSS, after[0].RSS, after[len(after)-1].RSS
	for _, s := range after {
		lo, hi = min(lo, s.RSS), max(hi, s.RSS)
	}
	fromRef = 100 * float64(max(hi-ref, ref-lo)) / float64(ref)
	band = 100 * float64(hi-lo) / float64(hi+lo)
	return ref, lo, hi, last, fromRef, band
}

// String is the report for a log: outcomes, then RSS and the Go heap,
// cache and engine gauges, first over the whole run, then after warm-up.
func (r *MemoryReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "outcomes: %s\n", sortedCounts(r.Counts))
	fmt.Fprintf(&b, "answers checked per entry point: %s; model reloads %d; wrong %d\n",
		sortedCounts(r.AnswersByEntryPoint), r.Reloads, r.Counts["wrong"])
	ref, lo, hi, last, fromRef, band := r.Drift()
	fmt.Fprintf(&b, "RSS at the end of warm-up (%s): %.1f MiB; after: min %.1f, max %.1f, last %.1f MiB: within ±%.1f %% of %.1f MiB; largest distance from the warm-up value %.1f %%\n",
		r.Warmup, mib(ref), mib(lo), mib(hi), mib(last), band, mib(lo+hi)/2, fromRef)
	writeGaugeRanges(&b, r.afterWarmup())
	b.WriteString("samples (s: RSS / Go heap in use / Go sys / result cache / DuckDB buffer manager, MiB), every minute:\n")
	next := time.Duration(0)
	for _, s := range r.Samples {
		if s.At >= next || s == r.Samples[len(r.Samples)-1] {
			fmt.Fprintf(&b, "  %5.0f: %6.1f / %6.1f / %6.1f / %6.1f / %6.1f  (%d answers)\n", s.At.Seconds(),
				mib(s.RSS), mib(s.HeapInuse), mib(s.GoSys), mib(s.CacheBytes), mib(s.EngineBytes), s.Answers)
			next = s.At + time.Minute
		}
	}
	return b.String()
}

// writeGaugeRanges writes the range of each /metrics gauge over samples.
func writeGaugeRanges(b *strings.Builder, after []memSample) {
	for _, g := range []struct {
		name string
		of   func(memSample) int64
	}{
		{"Go heap in use", func(s memSample) int64 { return s.HeapInuse }},
		{"Go runtime from the OS", func(s memSample) int64 { return s.GoSys }},
		{"result cache", func(s memSample) int64 { return s.CacheBytes }},
		{"DuckDB buffer manager", func(s memSample) int64 { return s.EngineBytes }},
	} {
		lo, hi := int64(-1), int64(-1)
		for i, s := range after {
			if v := g.of(s); i == 0 || v < lo {
				lo = v
			}
			hi = max(hi, g.of(s))
		}
		fmt.Fprintf(b, "%s after warm-up: %.1f to %.1f MiB\n", g.name, mib(lo), mib(hi))
	}
}
