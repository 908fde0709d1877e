package server

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
)

// resultCache keeps recent answers in memory, bounded by an estimate of
// their size in bytes and by age (Config.CacheBytes, Config.CacheTTL).
// A key is a hash of everything an answer depends on: model name and
// version, the caller's roles and attributes, the planned SQL (which
// holds the normalized query, its time zone, resolved relative date
// ranges, row filters and masks) and the total count's SQL. A new model
// version has a new key, so it never serves an old answer; old entries
// age out. Concurrent identical questions wait for one engine query
// (flight.go, which offers the leader's answer to the cache). Safe for
// concurrent use.
type resultCache struct {
	maxBytes int64
	ttl      time.Duration
	now      func() time.Time

	mu    sync.Mutex
	lru   *list.List // of *cacheEntry, most recent first
	byKey map[cacheKey]*list.Element
	bytes int64

	hits, misses, evictions prometheus.Counter
	size                    prometheus.Gauge
}

type cacheKey [sha256.Size]byte

// cacheEntry is one complete answer (never one cut by an error).
type cacheEntry struct {
	key     cacheKey
	head    format.AnswerHead
	rows    [][]any
	tail    format.AnswerTail
	bytes   int64
	created time.Time
}

func newResultCache(maxBytes int64, ttl time.Duration, reg prometheus.Registerer) (*resultCache, error) {
	c := &resultCache{
		maxBytes: maxBytes, ttl: ttl, now: time.Now,
		lru: list.New(), byKey: map[cacheKey]*list.Element{},
		hits:      prometheus.NewCounter(prometheus.CounterOpts{Name: "ossie_result_cache_hits_total", Help: "Query answers served from the result cache."}),
		misses:    prometheus.NewCounter(prometheus.CounterOpts{Name: "ossie_result_cache_misses_total", Help: "Query answers not in the result cache (run on the engine)."}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{Name: "ossie_result_cache_evictions_total", Help: "Answers removed from the result cache to stay within its size bound or because they expired."}),
		size:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "ossie_result_cache_bytes", Help: "Estimated memory held by cached answers, in bytes."}),
	}
	for _, m := range []prometheus.Collector{c.hits, c.misses, c.evictions, c.size} {
		if err := reg.Register(m); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// keyFor hashes the parts an answer depends on; id nil is the ungoverned
// caller. Length prefixes keep "ab"+"c" apart from "a"+"bc".
func keyFor(model, version string, id *auth.Identity, sql, countSQL string) cacheKey {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(model)
	put(version)
	if id == nil {
		put("-")
	} else {
		put("+")
		roles := slices.Clone(id.Roles)
		sort.Strings(roles)
		for _, r := range roles {
			put(r)
		}
		put("")
		keys := make([]string, 0, len(id.Attributes))
		for k := range id.Attributes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			put(k)
			put(id.Attributes[k])
		}
	}
	put(sql)
	put(countSQL)
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// Get returns the live entry for k.
func (c *resultCache) Get(k cacheKey) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if c.now().Sub(e.created) > c.ttl {
		c.remove(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e, true
}

// await waits for a flight; false when ctx ended first.
func await(ctx context.Context, wait <-chan struct{}) bool {
	select {
	case <-wait:
		return true
	case <-ctx.Done():
		return false
	}
}

// put stores e, evicting the least recently used entries beyond the bound.
// An entry larger than an eighth of the bound is not kept: one huge
// answer must not flush every dashboard's.
func (c *resultCache) put(e *cacheEntry) {
	if e.bytes > c.limit() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; ok {
		c.remove(el)
	}
	e.created = c.now()
	c.byKey[e.key] = c.lru.PushFront(e)
	c.bytes += e.bytes
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
	c.size.Set(float64(c.bytes))
}

// limit is the largest entry put keeps.
func (c *resultCache) limit() int64 { return c.maxBytes / 8 }

func (c *resultCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.byKey, e.key)
	c.bytes -= e.bytes
	c.evictions.Inc()
	c.size.Set(float64(c.bytes))
}

// valueBytes estimates the memory of one converted value: its interface
// slot in the row, the boxed value (a string's header and its bytes
// rounded up to the allocator's 8-byte step, a time.Time's 24 bytes)
// and what a slice or map holds.
func valueBytes(v any) int64 {
	const iface = 16
	switch x := v.(type) {
	case string:
		return iface + 16 + (int64(len(x))+7)&^7
	case time.Time:
		return iface + int64(unsafe.Sizeof(x))
	case []byte:
		return iface + 24 + int64(len(x))
	case []any:
		n := int64(iface + 24)
		for _, e := range x {
			n += valueBytes(e)
		}
		return n
	case map[string]any:
		n := int64(iface + 48)
		for k, e := range x {
			n += 16 + int64(len(k)) + valueBytes(e)
		}
		return n
	}
	return iface + 8
}

// entryBytes estimates what an entry holds besides its values: the
// entry (about 190 bytes), its list element (48) and map slot (up to
// 128 with the map's spare room): 384; the column descriptions
// and the rows' slice headers, capacity included (append's spare room is
// held too). BenchmarkResultCacheHeldBytes measures the whole estimate
// against the Go heap.
func entryBytes(e *cacheEntry) int64 {
	n := int64(384) + int64(cap(e.rows))*int64(unsafe.Sizeof([]any(nil)))
	for _, c := range e.head.Columns {
		n += int64(unsafe.Sizeof(c)) + int64(len(c.Name)+len(c.Type)+len(c.EngineType))
	}
	return n
}
