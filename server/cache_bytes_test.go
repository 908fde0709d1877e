package server

import (
	"crypto/sha256"
	"encoding/binary"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ossie-dev/ossie/server/format"
)

// BenchmarkResultCacheHeldBytes measures how honestly the result cache
// counts its bytes: it fills a cache with answers as the engine hands
// them over (each value freshly allocated, as the driver's are) and
// reports the Go heap they hold over the bytes the cache counted
// (heap/counted; 1 is exact, above 1 the --cache-bytes budget is
// exceeded by that factor). Shapes: a dashboard's small answers, a
// day-by-airport answer with a time column, and a wide answer with NULLs.
func BenchmarkResultCacheHeldBytes(b *testing.B) {
	day := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, sh := range []struct {
		name          string
		entries, rows int
		row           func(i, r int) []any
	}{
		{"small=6x3", 4000, 6, func(i, r int) []any {
			return []any{"state-" + strconv.Itoa(r), int64(1000 + i*r), float64(i) / 7}
		}},
		{"time=200x4", 200, 200, func(i, r int) []any {
			return []any{day.AddDate(0, 0, r), "SFO" + strconv.Itoa(i%10), int64(100000 + r), float64(r) * 1.5}
		}},
		{"nulls=100x8", 200, 100, func(i, r int) []any {
			return []any{int64(300 + r), nil, nil, "x" + strconv.Itoa(i), nil, float64(r), nil, true}
		}},
	} {
		b.Run(sh.name, func(b *testing.B) {
			var ratio float64
			for range b.N {
				ratio = heldOverCounted(b, sh.entries, sh.rows, sh.row)
			}
			b.ReportMetric(ratio, "heap/counted")
		})
	}
}

// heldOverCounted fills a cache with entries answers of rows rows and
// returns the heap growth over the cache's count.
func heldOverCounted(b *testing.B, entries, rows int, row func(i, r int) []any) float64 {
	c, err := newResultCache(1<<40, time.Hour, prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range entries {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(i))
		rec := &answerRecorder{entry: &cacheEntry{key: sha256.Sum256(n[:])}, limit: 1 << 40, shared: 1 << 40}
		cols := make([]format.ResultColumn, len(row(i, 0)))
		for j := range cols {
			cols[j] = format.ResultColumn{Name: "dataset.field_" + strconv.Itoa(j), Kind: "dimension", Type: "String"}
		}
		rec.entry.head = format.AnswerHead{Model: "m", ModelVersion: "sha256:v", Columns: cols}
		for r := range rows {
			rec.add(row(i, r))
		}
		rec.finish(format.AnswerTail{RowCount: rows})
		c.put(rec.entry)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	runtime.KeepAlive(c)
	return held / float64(c.bytes)
}
