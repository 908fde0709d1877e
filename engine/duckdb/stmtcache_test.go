package duckdb

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Concurrent callers asking more distinct SQL texts than the cache holds,
// each several times, get every answer right while entries are prepared
// on their second ask and evicted under them (run with -race); the cache
// then holds stmtCacheSize entries, and a multi-statement text, which
// DuckDB cannot prepare, is answered unprepared on every ask.
func TestStmtCacheConcurrentEviction(t *testing.T) {
	e := openMem(t)
	ctx := context.Background()
	const texts, callers = stmtCacheSize + 40, 8
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range texts {
					k := (i*7 + c*13 + round) % texts
					res, err := e.Query(ctx, fmt.Sprintf(`SELECT %d + i AS v FROM range(3) AS t(i) ORDER BY i`, k), 0)
					if err != nil || len(res.Rows) != 3 || res.Rows[2][0] != int64(k+2) {
						errs <- fmt.Errorf("text %d: %v, %v", k, res, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := e.stmts.lru.Len(); n != stmtCacheSize {
		t.Fatalf("the cache holds %d entries, want %d", n, stmtCacheSize)
	}
	const multi = `CREATE TEMP TABLE IF NOT EXISTS m AS SELECT 1 AS x; SELECT x FROM m`
	for i := range 3 {
		res, err := e.Query(ctx, multi, 0)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(1) {
			t.Fatalf("ask %d of a multi-statement text: %v, %v", i+1, res, err)
		}
	}
}
