package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// Limits bound what one query may ask for and how many queries run on the
// engine at once (issue 13: eight concurrent 1 MB queries of 12,000
// filters each held every connection of the PostgreSQL pool, /readyz
// failed and every other caller waited for the full timeout). Zero values
// take the defaults of DefaultLimits.
type Limits struct {
	// MaxFilters, MaxFilterValues (per filter), MaxOrderKeys, MaxDimensions
	// and MaxMetrics bound one query; a query over any of them is 400
	// OSS4020 naming the limit.
	MaxFilters      int
	MaxFilterValues int
	MaxOrderKeys    int
	MaxDimensions   int
	MaxMetrics      int
	// MaxInFlight caps the engine queries running at once. Default: one
	// less than the engine's pool (engine.Pooled), so a connection stays
	// free for /readyz and other callers; 4 for an engine without a pool.
	MaxInFlight int
	// MaxQueued caps the queries waiting for a slot (default 2 ×
	// MaxInFlight); one more is 429 OSS5010 with Retry-After at once.
	MaxQueued int
	// QueueWait is how long a query waits for a slot before 429 OSS5010
	// (default 5 s).
	QueueWait time.Duration
	// PerCaller caps the queries one authenticated caller (by identity
	// name) has running or waiting (default MaxInFlight/2, at least 1),
	// so one caller cannot take every slot. Ungoverned requests (no
	// identity) share one share of MaxInFlight + MaxQueued.
	PerCaller int
}

// DefaultLimits are the query bounds applied to zero Limits fields; the
// concurrency defaults depend on the engine (see Limits).
var DefaultLimits = Limits{MaxFilters: 100, MaxFilterValues: 1000, MaxOrderKeys: 20, MaxDimensions: 20, MaxMetrics: 50, QueueWait: 5 * time.Second}

// withDefaults fills zero fields for eng.
func (l Limits) withDefaults(eng engine.Engine) Limits {
	d := DefaultLimits
	for _, f := range []struct{ v, d *int }{{&l.MaxFilters, &d.MaxFilters}, {&l.MaxFilterValues, &d.MaxFilterValues},
		{&l.MaxOrderKeys, &d.MaxOrderKeys}, {&l.MaxDimensions, &d.MaxDimensions}, {&l.MaxMetrics, &d.MaxMetrics}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	if l.QueueWait <= 0 {
		l.QueueWait = d.QueueWait
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = 4
		if p, ok := eng.(engine.Pooled); ok && p.PoolSize() > 0 {
			l.MaxInFlight = max(1, p.PoolSize()-1)
		}
	}
	if l.MaxQueued <= 0 {
		l.MaxQueued = 2 * l.MaxInFlight
	}
	if l.PerCaller <= 0 {
		l.PerCaller = max(1, l.MaxInFlight/2)
	}
	return l
}

// checkQuery refuses a query over a size limit, naming every limit passed.
func (l Limits) checkQuery(q *plan.Query) *problem.Error {
	var probs compiler.Problems
	over := func(path, what string, n, limit int) {
		if n > limit {
			probs = append(probs, compiler.Problem{Code: compiler.CodeQueryTooLarge, Severity: compiler.SeverityError, Path: path,
				Message: fmt.Sprintf("%d %s, over the limit of %d", n, what, limit)})
		}
	}
	over("metrics", "metrics", len(q.Metrics), l.MaxMetrics)
	over("dimensions", "dimensions", len(q.Dimensions), l.MaxDimensions)
	over("filters", "filters", len(q.Filters), l.MaxFilters)
	over("order_by", "order keys", len(q.OrderBy), l.MaxOrderKeys)
	for i, f := range q.Filters {
		over(fmt.Sprintf("filters[%d].values", i), "values in one filter", len(f.AllValues()), l.MaxFilterValues)
		if len(probs) > 8 {
			break
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return &problem.Error{Status: http.StatusBadRequest, Code: compiler.CodeQueryTooLarge, Title: "Query over a limit", Detail: probs[0].Message, Problems: probs}
}

// gate admits engine queries: at most inFlight at once, at most queued
// waiting, at most perCaller of one caller running or waiting.
type gate struct {
	l       Limits
	slots   chan struct{}
	mu      sync.Mutex
	waiting int
	callers map[string]int
}

func newGate(l Limits) *gate {
	return &gate{l: l, slots: make(chan struct{}, l.MaxInFlight), callers: map[string]int{}}
}

// busy is the 429 of a full gate; retryAfter is in seconds.
func busy(why string, retryAfter time.Duration) *problem.Error {
	return &problem.Error{Status: http.StatusTooManyRequests, Code: compiler.CodeTooManyQueries, Title: "Too many queries",
		Detail: why + "; retry after " + strconv.Itoa(int(max(1, retryAfter.Seconds()))) + " s", RetryAfter: max(1, int(retryAfter.Seconds()))}
}

// acquire waits for a slot for caller ("" for ungoverned requests) and
// returns its release, or a 429 *Error when the caller's share or the
// queue is full or no slot frees up within QueueWait. ctx ending while
// waiting returns ctx's error.
func (g *gate) acquire(ctx context.Context, caller string) (func(), error) {
	share := g.l.PerCaller
	if caller == "" {
		share = g.l.MaxInFlight + g.l.MaxQueued
	}
	g.mu.Lock()
	if g.callers[caller] >= share {
		g.mu.Unlock()
		return nil, busy(fmt.Sprintf("this caller already has %d queries running or waiting, its share", share), time.Second)
	}
	select {
	case g.slots <- struct{}{}:
		g.callers[caller]++
		g.mu.Unlock()
		return g.releaser(caller), nil
	default:
	}
	if g.waiting >= g.l.MaxQueued {
		g.mu.Unlock()
		return nil, busy(fmt.Sprintf("%d queries are running and %d waiting, the server's limit", g.l.MaxInFlight, g.l.MaxQueued), g.l.QueueWait)
	}
	g.waiting++
	g.callers[caller]++
	g.mu.Unlock()
	t := time.NewTimer(g.l.QueueWait)
	defer t.Stop()
	var err error
	select {
	case g.slots <- struct{}{}:
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		return g.releaser(caller), nil
	case <-t.C:
		err = busy(fmt.Sprintf("no query slot freed within %s", g.l.QueueWait), g.l.QueueWait)
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	g.waiting--
	g.leave(caller)
	g.mu.Unlock()
	return nil, err
}

func (g *gate) releaser(caller string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			<-g.slots
			g.mu.Lock()
			g.leave(caller)
			g.mu.Unlock()
		})
	}
}

// leave forgets one query of caller; g.mu is held.
func (g *gate) leave(caller string) {
	if g.callers[caller]--; g.callers[caller] <= 0 {
		delete(g.callers, caller)
	}
}

// admit takes an engine query slot for the caller in ctx. A context that
// ends while waiting is a 499/504 like an engine query cut short.
func (s *Server) admit(ctx context.Context) (func(), error) {
	caller := ""
	if id := auth.IdentityFrom(ctx); id != nil {
		caller = id.Name
	}
	release, err := s.gate.acquire(ctx, caller)
	if err != nil {
		if _, ok := err.(*problem.Error); ok {
			return nil, err
		}
		return nil, &problem.Error{Status: http.StatusGatewayTimeout, Code: compiler.CodeTimeout, Title: "Query cancelled", Detail: "the request ended while waiting for a query slot", Cause: err}
	}
	return release, nil
}
