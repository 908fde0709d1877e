package soak

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Window kinds: what a fault makes acceptable while it lasts (and for a
// request that overlaps it). Anything else must be a right answer or a
// clear 503/504/429.
const (
	// winServerDown: the server is stopping, killed or starting; a
	// connection that fails is expected.
	winServerDown = "server down"
	// winNoTokens: the tokens file is deleted; every credential is revoked
	// (401 OSS5005, SQLSTATE 28P01).
	winNoTokens = "tokens deleted"
	// winModelGone: a case's ConfigMap is deleted; its model is gone
	// (404 OSS5003, SQLSTATE 3F000/42P01) until republished.
	winModelGone = "model deleted"
	// winDrift: a case's table is renamed away; its queries fail at the
	// engine (any refusal with a code is clear) until it is back.
	winDrift = "table renamed"
)

// window is one interval of a kind, for one case ("" every case); end is
// zero while open.
type window struct {
	kind, kase string
	start, end time.Time
}

// recorder counts every outcome and keeps the windows.
type recorder struct {
	mu      sync.Mutex
	windows []*window
	counts  map[string]int // label -> count
	byEP    map[string]int // entry point -> answers checked
	bad     []string       // failures of the soak's properties
	phase   string
	phases  []phaseStat
	log     func(format string, args ...any)
	// revoked reports a token rotated out of the tokens file.
	revoked func(token string) bool
}

// phaseStat is what one phase of the sequence saw.
type phaseStat struct {
	Name     string
	Took     time.Duration
	Answers  int
	Refusals map[string]int
}

func newRecorder(log func(format string, args ...any)) *recorder {
	return &recorder{counts: map[string]int{}, byEP: map[string]int{}, log: log}
}

// open starts a window of kind for kase ("" for all) and returns it.
func (r *recorder) open(kind, kase string) *window {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &window{kind: kind, kase: kase, start: time.Now()}
	r.windows = append(r.windows, w)
	return w
}

// close ends w.
func (r *recorder) close(w *window) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w.end = time.Now()
}

// excused reports whether a window of kind for kase overlaps [from, to].
func (r *recorder) excused(kind, kase string, from, to time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.windows {
		if w.kind != kind || (w.kase != "" && w.kase != kase) {
			continue
		}
		if !w.start.After(to) && (w.end.IsZero() || !w.end.Before(from)) {
			return true
		}
	}
	return false
}

// fail records a broken property.
func (r *recorder) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := fmt.Sprintf("[%s] ", r.phase) + fmt.Sprintf(format, args...)
	r.bad = append(r.bad, msg)
	if len(r.bad) <= 20 {
		r.log("FAIL %s", msg)
	}
}

// count records one request's outcome (sent at from, back at to through
// ep for kase) and judges it: a wrong answer, a hang and an unclear
// failure always break the soak; a connection failure, a 401 and a 404
// only outside the windows that excuse them; any other refusal must be
// 503, 504 or 429 (or their SQLSTATEs) with a code.
func (r *recorder) count(kase, ep string, o outcome, from, to time.Time) {
	r.mu.Lock()
	r.counts[o.label()]++
	if o.class == "answer" {
		r.byEP[ep]++
	}
	cur := &r.phases[len(r.phases)-1]
	if o.class == "answer" {
		cur.Answers++
	} else {
		cur.Refusals[o.label()]++
	}
	r.mu.Unlock()
	switch o.class {
	case "answer":
	case "wrong", "hang", "unclear":
		r.fail("%s: %s", o.label(), o.detail)
	case "unreachable":
		if !r.excused(winServerDown, kase, from, to) {
			r.fail("connection failed while the server was up: %s", o.detail)
		}
	case "refused":
		if !r.clear(kase, o.key, from, to) && !(isUnauthorized(o.key) && r.revoked != nil && r.revoked(o.token)) {
			r.fail("refused with %s: %s", o.key, o.detail)
		}
	}
}

// clear reports whether a refusal key is a clear, acceptable failure.
func (r *recorder) clear(kase, key string, from, to time.Time) bool {
	code := ""
	if f := strings.Fields(key); len(f) == 2 {
		code = f[1]
	}
	switch {
	case (r.excused(winDrift, kase, from, to) || r.excused(winEngineRestart, kase, from, to)) && key != "":
		return true
	case isUnauthorized(key):
		return r.excused(winNoTokens, kase, from, to)
	case strings.HasPrefix(key, "404 ") || strings.HasPrefix(key, "3F000") || strings.HasPrefix(key, "42P01") || code == "OSS5003":
		return r.excused(winModelGone, kase, from, to)
	case strings.HasPrefix(key, "503 ") || strings.HasPrefix(key, "504 ") || strings.HasPrefix(key, "429 "):
		return true
	case strings.HasPrefix(key, "57P03") || strings.HasPrefix(key, "57014") || strings.HasPrefix(key, "53000") || strings.HasPrefix(key, "53300"):
		return true
	case strings.HasPrefix(key, "mcp "):
		// The MCP tool error carries no status: its code must be one the
		// HTTP API answers 503, 504 or 429 with.
		return code == "OSS5001" || code == "OSS5002" || code == "OSS5010"
	}
	return false
}

// isUnauthorized: the key of a refused credential.
func isUnauthorized(key string) bool {
	return strings.HasPrefix(key, "401 ") || strings.HasPrefix(key, "28P01") || strings.HasSuffix(key, " OSS5005")
}

// begin starts a phase of the sequence.
func (r *recorder) begin(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phase = name
	r.phases = append(r.phases, phaseStat{Name: name, Refusals: map[string]int{}})
}

// summary lists the counts, sorted.
func (r *recorder) summary() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// failures are the broken properties so far.
func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
