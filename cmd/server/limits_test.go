package main

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestLimitFlags: the load limits and query caps are flags of the server
// (issue 13 finding 6 left them Config-only). On a real PostgreSQL view
// that holds its connection for 2 s, --max-in-flight 1 --max-queued 1
// --queue-wait 300ms answers one of three concurrent queries and refuses
// two with 429 (the engine default would run all three), and
// --max-dimensions 1 refuses a two-dimension plan with the limit named.
func TestLimitFlags(t *testing.T) {
	var help, errs strings.Builder
	if code := runTo(context.Background(), []string{"--help"}, &help, &errs); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, f := range []string{"--max-in-flight", "--max-queued", "--queue-wait", "--max-per-caller", "--max-metrics",
		"--max-dimensions", "--max-filters", "--max-filter-values", "--max-order-keys", "429 OSS5010"} {
		if !strings.Contains(help.String(), f) {
			t.Errorf("--help does not mention %s", f)
		}
	}
	errs.Reset()
	if code := runTo(context.Background(), []string{"--models", "../../server/testdata/shop.yaml", "--max-filters", "-1", "--queue-wait", "-1s"}, &help, &errs); code != 2 ||
		!strings.Contains(errs.String(), "--max-filters, --queue-wait must not be negative") {
		t.Errorf("negative limits: exit %d %s", code, errs.String())
	}

	pg := pgtest.Private(t)
	dsn := pg.DSN("postgres")
	if err := pg.Exec(context.Background(), "postgres", `CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);
CREATE VIEW slow AS SELECT x, x AS y FROM t, LATERAL (SELECT pg_sleep(2)) s`); err != nil {
		t.Fatal(err)
	}
	model := "../../server/testdata/gate/slow.yaml"
	t.Setenv("OSSIE_LIMITS_TEST_DSN", dsn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", model, "--engine", "postgres", "--dsn-env", "OSSIE_LIMITS_TEST_DSN", "--addr", addr,
			"--max-in-flight", "1", "--max-queued", "1", "--queue-wait", "300ms", "--max-dimensions", "1"})
	})
	srv.WaitServing(t)
	if code, body := srv.Call("POST", "/v1/models/slow/sql", `{"metrics":["n"],"dimensions":["slow.x","slow.y"]}`, ""); code != 400 ||
		!strings.Contains(body, "OSS4020") || !strings.Contains(body, "2 dimensions, over the limit of 1") {
		t.Errorf("two dimensions with --max-dimensions 1: %d %s", code, body)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 3 {
		wg.Go(func() {
			// Three different questions: the cache answers identical ones once.
			code, _ := srv.Call("POST", "/v1/models/slow/query", `{"metrics":["n"],"limit":`+strconv.Itoa(i+1)+`}`, "")
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[200] != 1 || codes[429] != 2 {
		t.Errorf("three concurrent slow queries with --max-in-flight 1 --max-queued 1: %v, want 1×200 and 2×429", codes)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}
