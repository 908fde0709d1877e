package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestBoundedLoadPostgres reproduces issue 13 finding 6 on a real
// PostgreSQL pool of 3 connections: eight concurrent queries that each
// hold a connection for 3 s. The server runs two at once (one less than
// the pool), queues up to four for 300 ms, and answers the rest 429 with
// Retry-After; /readyz answers 200 at once meanwhile (before the cap it
// waited behind the queries and failed after 5 s). One named caller gets
// at most its share of the slots while another caller still gets one.
func TestBoundedLoadPostgres(t *testing.T) {
	dsn := pgtest.Private(t).NewDatabase(t)
	ctx := context.Background()
	eng, err := postgres.Open(ctx, postgres.Config{DSN: dsn, MaxConns: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Exec(ctx, `CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);
CREATE VIEW slow AS SELECT x, x AS y FROM t, LATERAL (SELECT pg_sleep(3)) s`); err != nil {
		t.Fatal(err)
	}
	model := "../testdata/gate/slow.yaml"
	arts, err := load.Models([]string{model}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Identical queries in flight would share one execution (flight.go);
	// the gate is what is tested here, so each query runs its own.
	srv, err := server.New(server.Config{Engine: eng, Models: arts, QueryTimeout: 20 * time.Second, Limits: server.Limits{QueueWait: 300 * time.Millisecond}, FlightBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if l := srv.Config().Limits; l.MaxInFlight != 2 || l.MaxQueued != 4 || l.PerCaller != 1 {
		t.Fatalf("limits for a pool of 3: %+v", l)
	}
	h := handlerOf(srv)
	call := func(method, path, body string) (int, http.Header) {
		r := localRequest(method, path, strings.NewReader(body))
		w := &recorder{header: http.Header{}}
		h.ServeHTTP(w, r)
		return w.code, w.header
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	retry := 0
	for range 8 {
		wg.Go(func() {
			code, hdr := call("POST", "/v1/models/slow/query", `{"metrics":["n"]}`)
			mu.Lock()
			defer mu.Unlock()
			codes[code]++
			if code == 429 && hdr.Get("Retry-After") != "" {
				retry++
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if code, _ := call("GET", "/readyz", ""); code != 200 || time.Since(start) > 2*time.Second {
		t.Errorf("/readyz under load: %d after %s", code, time.Since(start))
	}
	wg.Wait()
	if codes[200] != 2 || codes[429] != 6 || retry != 6 {
		t.Errorf("statuses %v (%d with Retry-After); want 2×200, 6×429 with Retry-After", codes, retry)
	}

	// Per-caller share: caller a holds its one slot; its second query is
	// refused at once, caller b still runs.
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		_, err := srv.Answer(auth.WithIdentity(ctx, &auth.Identity{Name: "a"}), "slow", servertest.MustQuery(t, `{"metrics":["n"]}`))
		done <- err
	}()
	<-started
	time.Sleep(300 * time.Millisecond)
	_, err = srv.Answer(auth.WithIdentity(ctx, &auth.Identity{Name: "a"}), "slow", servertest.MustQuery(t, `{"metrics":["n"]}`))
	var e *problem.Error
	if !errors.As(err, &e) || e.Status != 429 || e.Code != compiler.CodeTooManyQueries || !strings.Contains(e.Detail, "share") {
		t.Errorf("caller a over its share: %v", err)
	}
	if _, err := srv.Answer(auth.WithIdentity(ctx, &auth.Identity{Name: "b"}), "slow", servertest.MustQuery(t, `{"metrics":["n"]}`)); err != nil {
		t.Errorf("caller b: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("caller a's first query: %v", err)
	}
}

type recorder struct {
	header http.Header
	code   int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = 200
	}
	return len(b), nil
}
func (r *recorder) WriteHeader(c int) {
	if r.code == 0 {
		r.code = c
	}
}

// TestQuerySizeLimits: a query over any size limit is 400 OSS4020 naming
// every limit it passes; one at the limits is planned.
func TestQuerySizeLimits(t *testing.T) {
	f := newFixture(t, func(c *server.Config) {
		c.Limits = server.Limits{MaxFilters: 2, MaxFilterValues: 3, MaxOrderKeys: 1, MaxDimensions: 1, MaxMetrics: 1}
	})
	over := `{"metrics":["revenue","order_count"],"dimensions":["orders.status","customers.state"],
"filters":[{"field":"orders.status","op":"in","values":["a","b","c","d"]},{"field":"orders.status","op":"eq","values":["a"]},{"field":"orders.status","op":"eq","values":["a"]}],
"order_by":[{"key":"revenue"},{"key":"orders.status"}]}`
	resp, b := f.do(t, "POST", "/v1/models/shop/query", over)
	code, body := resp.StatusCode, string(b)
	for _, want := range []string{"OSS4020", "2 metrics, over the limit of 1", "2 dimensions, over the limit of 1", "3 filters, over the limit of 2",
		"2 order keys, over the limit of 1", "4 values in one filter, over the limit of 3", `"filters[0].values"`} {
		if code != 400 || !strings.Contains(body, want) {
			t.Errorf("over the limits: %d %s; want %s", code, body, want)
		}
	}
	if resp, b := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"in","values":["a","b","c"]}],"order_by":[{"key":"revenue"}]}`); resp.StatusCode != 200 {
		t.Errorf("at the limits: %d %s", resp.StatusCode, b)
	}
}
