package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/servertest"
)

// newFlightFixture is the governed shop model on DuckDB with the result
// cache off (sharing in flight is what is left).
func newFlightFixture(t testing.TB, flightBytes int64) *fixture {
	t.Helper()
	arts, err := load.GovernedModels([]string{"testdata/shop.yaml"}, "testdata/shop.governance.yaml", compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, func(c *Config) {
		c.Models, c.FlightBytes, c.Limits = arts, flightBytes, Limits{MaxInFlight: 16}
	})
}

// heldSink is a leader's client that holds the answer at its first row
// until release is closed, so followers arrive while it is in flight.
type heldSink struct {
	collectSink
	started chan struct{}
	release chan struct{}
}

func (h *heldSink) Begin(hd *format.AnswerHead) error {
	close(h.started)
	<-h.release
	return h.collectSink.Begin(hd)
}

// hold starts a leader for q as id and returns it once its engine query
// is running (its flight registered).
func hold(t *testing.T, f *fixture, id *auth.Identity, q string) (*heldSink, <-chan error) {
	t.Helper()
	h := &heldSink{started: make(chan struct{}), release: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := f.srv.stream(auth.WithIdentity(context.Background(), id), "shop", servertest.MustQuery(t, q), AnswerOptions{}, h)
		errc <- err
	}()
	select {
	case <-h.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the leader did not start")
	}
	return h, errc
}

const ordersByState = `{"metrics":["revenue","order_count"],"dimensions":["customers.state"]}`

// handOrdersByState is ordersByState in hand-written SQL for a state
// analyst of state ("" for an ungoverned caller).
func handOrdersByState(state string) string {
	if state == "" {
		return `SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1`
	}
	return `SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM (SELECT * FROM orders WHERE status <> 'returned') o LEFT JOIN (SELECT * FROM customers WHERE state = '` +
		state + `') c ON o.customer_id = c.customer_id GROUP BY 1`
}

// TestSharedFlightNeverCrossesGovernance (issue 28 item 2): while a state
// analyst of CA has the question in flight, callers asking the same
// question with another attribute, another role or no identity do not
// wait for it (they answer while it is held) and each gets its own
// governed numbers, those of hand-written SQL; a caller with the same
// roles and attributes waits and replays the leader's answer.
func TestSharedFlightNeverCrossesGovernance(t *testing.T) {
	f := newFlightFixture(t, 0)
	ca := &auth.Identity{Name: "a", Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}}
	leader, errc := hold(t, f, ca, ordersByState)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		id   *auth.Identity
		hand string
	}{
		{"another attribute", &auth.Identity{Name: "b", Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "NY"}}, handOrdersByState("NY")},
		{"another role", &auth.Identity{Name: "c", Roles: []string{"auditor"}}, handOrdersByState("")},
		{"no identity", nil, handOrdersByState("")},
	} {
		a, err := f.srv.Answer(auth.WithIdentity(ctx, tc.id), "shop", servertest.MustQuery(t, ordersByState))
		if err != nil {
			t.Fatalf("%s: %v (did it wait for the held leader?)", tc.name, err)
		}
		if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), f.handRows(t, tc.hand)); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if n := testutil.ToFloat64(f.srv.flights.shared); n != 0 {
		t.Fatalf("%v answers shared across governance contexts", n)
	}

	// Same roles and attributes (another name): waits, then shares.
	same := make(chan *Response, 1)
	go func() {
		a, err := f.srv.Answer(auth.WithIdentity(ctx, &auth.Identity{Name: "a2", Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}}), "shop", servertest.MustQuery(t, ordersByState))
		if err != nil {
			t.Error(err)
		}
		same <- a
	}()
	servertest.Eventually(t, "the same caller waits", func() (bool, string) {
		n := testutil.ToFloat64(f.srv.flights.waiting)
		return n == 1, fmt.Sprint(n)
	})
	close(leader.release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	a := <-same
	want := f.handRows(t, handOrdersByState("CA"))
	if err := servertest.SameRows(servertest.JSONRows(t, leader.resp.Rows), want); err != nil {
		t.Errorf("leader: %v", err)
	}
	if a == nil {
		t.Fatal("no answer for the same caller")
	}
	if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), want); err != nil || a.Cached {
		t.Errorf("the same caller (cached=%v): %v", a.Cached, err)
	}
	if n, e := testutil.ToFloat64(f.srv.flights.shared), testutil.ToFloat64(f.srv.flights.executions); n != 1 || e != 4 {
		t.Fatalf("shared %v (want 1), engine executions %v (want 4: CA, NY, auditor, ungoverned)", n, e)
	}
}

// TestEightIdenticalQueriesOneExecution: eight identical questions asked
// while the first is in flight, cache off, cost one engine execution and
// all get the hand-written answer in full; with an answer larger than
// FlightBytes, nothing is kept and the waiting callers run it themselves,
// still getting every row.
func TestEightIdenticalQueriesOneExecution(t *testing.T) {
	for _, tc := range []struct {
		name                string
		flightBytes         int64
		executions, sharedN float64
	}{
		{"shared", 0, 1, 7},
		{"beyond FlightBytes", 64, 8, 0}, // 64 bytes: smaller than any answer of more than a row
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlightFixture(t, tc.flightBytes)
			leader, errc := hold(t, f, nil, ordersByState)
			var wg sync.WaitGroup
			answers := make([]*Response, 7)
			for i := range answers {
				wg.Go(func() {
					a, err := f.srv.Answer(context.Background(), "shop", servertest.MustQuery(t, ordersByState))
					if err != nil {
						t.Error(err)
					}
					answers[i] = a
				})
			}
			servertest.Eventually(t, "seven followers wait", func() (bool, string) {
				n := testutil.ToFloat64(f.srv.flights.waiting)
				return n == 7, fmt.Sprint(n)
			})
			close(leader.release)
			wg.Wait()
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			want := f.handRows(t, handOrdersByState(""))
			for i, a := range append(answers, &leader.resp) {
				if a == nil {
					t.Fatalf("answer %d missing", i)
				}
				if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), want); err != nil || a.RowCount != len(want) {
					t.Errorf("answer %d (row_count %d): %v", i, a.RowCount, err)
				}
			}
			if e, n := testutil.ToFloat64(f.srv.flights.executions), testutil.ToFloat64(f.srv.flights.shared); e != tc.executions || n != tc.sharedN {
				t.Fatalf("engine executions %v (want %v), shared %v (want %v)", e, tc.executions, n, tc.sharedN)
			}
		})
	}
}

// heldEngine holds every query at the engine until release is closed,
// then runs it on the real engine.
type heldEngine struct {
	*duckdb.Engine
	release chan struct{}
}

func (e heldEngine) Stream(ctx context.Context, sql string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	<-e.release
	return e.Engine.Stream(ctx, sql, cols, row)
}

// TestSharedFlightEngineFailure: when the engine fails the leader's
// query (here its table was dropped meanwhile), the callers waiting on
// it get that failure too instead of each running the query again: one
// engine execution, the same problem code for all.
func TestSharedFlightEngineFailure(t *testing.T) {
	f := newFlightFixture(t, 0)
	held := heldEngine{Engine: f.eng, release: make(chan struct{})}
	srv, err := New(Config{Engine: held, Models: f.srv.Models(), Limits: Limits{MaxInFlight: 16}})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = srv.Answer(context.Background(), "shop", servertest.MustQuery(t, ordersByState))
		})
	}
	servertest.Eventually(t, "three followers wait", func() (bool, string) {
		n := testutil.ToFloat64(srv.flights.waiting)
		return n == 3, fmt.Sprint(n)
	})
	if err := f.eng.Exec(context.Background(), `DROP VIEW slow_view; DROP TABLE orders`); err != nil {
		t.Fatal(err)
	}
	close(held.release)
	wg.Wait()
	for i, err := range errs {
		var e *problem.Error
		if !errors.As(err, &e) || e.Code != compiler.CodeEngine {
			t.Errorf("caller %d: %v, want the engine's failure (OSS5001)", i, err)
		}
	}
	if e, n := testutil.ToFloat64(srv.flights.executions), testutil.ToFloat64(srv.flights.shared); e != 1 || n != 3 {
		t.Fatalf("engine executions %v (want 1), shared %v (want 3)", e, n)
	}
}

// endHeldSink holds the answer after its last row until release is
// closed.
type endHeldSink struct {
	collectSink
	ended   chan struct{}
	release chan struct{}
}

func (h *endHeldSink) End(t *format.AnswerTail) error {
	close(h.ended)
	<-h.release
	return h.collectSink.End(t)
}

// TestFlightCopiesLittleWhileNoneWaits: a leader nobody waits for copies
// at most flightIdleBytes of its answer. A caller arriving after a large
// answer has streamed (more than that bound) runs the query itself and
// gets every row; one arriving after a small answer has streamed, while
// the leader is still finishing, shares it.
func TestFlightCopiesLittleWhileNoneWaits(t *testing.T) {
	f := newWideFixture(t, nil)
	for _, tc := range []struct {
		name       string
		q          string
		rows       int
		executions float64
	}{
		{"large", `{"metrics":["n"],"dimensions":["t.k","t.label"]}`, servertest.WideRows, 2},
		{"small", `{"metrics":["n"],"dimensions":["t.label"]}`, 14, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := testutil.ToFloat64(f.srv.flights.executions)
			h := &endHeldSink{ended: make(chan struct{}), release: make(chan struct{})}
			errc := make(chan error, 1)
			go func() {
				_, err := f.srv.stream(context.Background(), "wide", servertest.MustQuery(t, tc.q), AnswerOptions{}, h)
				errc <- err
			}()
			<-h.ended
			got := make(chan *Response, 1)
			go func() {
				a, err := f.srv.Answer(context.Background(), "wide", servertest.MustQuery(t, tc.q))
				if err != nil {
					t.Error(err)
				}
				got <- a
			}()
			if tc.executions == 1 {
				servertest.Eventually(t, "the caller waits", func() (bool, string) {
					n := testutil.ToFloat64(f.srv.flights.waiting)
					return n == 1, fmt.Sprint(n)
				})
			} else {
				a := <-got // answers on its own while the leader is held
				got <- a
			}
			close(h.release)
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			a := <-got
			if a == nil || a.RowCount != tc.rows || len(a.Rows) != tc.rows || len(h.resp.Rows) != tc.rows {
				t.Fatalf("rows: follower %v, leader %d, want %d", a != nil && len(a.Rows) == tc.rows, len(h.resp.Rows), tc.rows)
			}
			if e := testutil.ToFloat64(f.srv.flights.executions) - before; e != tc.executions {
				t.Fatalf("engine executions %v, want %v", e, tc.executions)
			}
		})
	}
}
