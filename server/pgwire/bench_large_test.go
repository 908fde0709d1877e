package pgwire

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ossie-dev/ossie/server/httpapi"
)

// An 84,000-row answer (two columns, about 210 bytes a row: 17 MB) over
// the wire and over HTTP. Reported besides ns/op: first-row-ms, when the
// first row reached the client (well before the last one when rows
// stream: DataRows are flushed every 64 KiB as the engine's rows come),
// and peak-heap-MB, the most the process's heap grew above its level
// before the query (server and client together), with the garbage
// collector set to run at 5% growth so that the heap is close to the live
// data: bounded when rows stream, at least the answer's size when it is
// buffered whole. ns/op and B/op are measured under that GC setting too.
func BenchmarkLargeAnswer(b *testing.B) {
	const rows = 84000
	w := newWideFixture(b, Options{})
	api, err := httpapi.New(w.srv, httpapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(api)
	b.Cleanup(hs.Close)
	const sql = `SELECT wide_k, wide_pad FROM wide.wide ORDER BY wide_k LIMIT 84000`
	const body = `{"dimensions":["wide.k","wide.pad"],"order_by":[{"key":"wide.k"}],"limit":84000}`

	// measure runs one query and reports when its first row arrived.
	measure := func(b *testing.B, run func(first func()) int) {
		var firstTotal time.Duration
		var peak uint64
		defer debug.SetGCPercent(debug.SetGCPercent(5))
		b.ReportAllocs()
		for b.Loop() {
			runtime.GC()
			base := heapLive()
			stop := samplePeakHeap(&peak, base)
			start := time.Now()
			var once sync.Once
			n := run(func() { once.Do(func() { firstTotal += time.Since(start) }) })
			stop()
			if n != rows {
				b.Fatalf("%d rows, want %d", n, rows)
			}
		}
		b.ReportMetric(float64(firstTotal.Milliseconds())/float64(b.N), "first-row-ms")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	}
	// The extended protocol (pgx's default) and the simple one.
	for name, args := range map[string][]any{"wire": nil, "wire-simple-protocol": {pgx.QueryExecModeSimpleProtocol}} {
		b.Run(name, func(b *testing.B) {
			c := w.connect(b, "")
			measure(b, func(first func()) int {
				rs, err := c.Query(context.Background(), sql, args...)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rs.Next() {
					first()
					n++
				}
				if rs.Err() != nil {
					b.Fatal(rs.Err())
				}
				return n
			})
		})
	}
	b.Run("http-csv", func(b *testing.B) {
		measure(b, func(first func()) int {
			req, _ := http.NewRequest("POST", hs.URL+"/v1/models/wide/query", bytes.NewReader([]byte(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/csv")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatal(resp.Status)
			}
			buf := make([]byte, 64<<10)
			lines := 0
			for {
				k, err := resp.Body.Read(buf)
				if k > 0 {
					first()
					lines += bytes.Count(buf[:k], []byte{'\n'})
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			return lines - 1 // the header line
		})
	})
}

// heapLive is the bytes of live and not yet swept heap objects.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeakHeap records, every millisecond until stop is called, the
// largest growth of the heap above base into *peak (kept across calls).
func samplePeakHeap(peak *uint64, base uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if h := heapLive(); h > base && h-base > *peak {
				*peak = h - base
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
