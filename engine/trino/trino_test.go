package trino_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/engine/trino/trinotest"
)

// These tests use engine/trino/trinotest for what a real Trino cannot be
// made to do on demand: page sizes, injected error objects, connections
// cut mid-result, malformed pages, a wrong password over TLS. Everything
// about Trino's answers and errors is in real_test.go.

const secret = "s3cr3t-pa55"

func start(t *testing.T, pageSize int) (*trinotest.Server, *trino.Engine) {
	t.Helper()
	s := trinotest.Start(t, "ossie", secret, pageSize)
	e, err := trino.Open(context.Background(), trino.Config{DSN: s.DSN("", ""), Catalog: "memory", Schema: "main", HTTPClient: s.Client, RetryTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return s, e
}

// numbers is a one-column BIGINT result 0..n-1.
func numbers(n int) trinotest.Result {
	r := trinotest.Result{Columns: []trinotest.Column{{Name: "i", Type: "bigint"}}}
	for i := range n {
		r.Rows = append(r.Rows, []any{i})
	}
	return r
}

func TestDialect(t *testing.T) {
	_, e := start(t, 10)
	if e.Dialect() != dialect.Trino {
		t.Fatalf("Dialect() = %v", e.Dialect())
	}
}

// TestPagesOfOneRow: a result split into one-row pages (a real server
// chooses its page boundaries itself) arrives whole and in order, each
// wire value converted, and the session headers name the catalog and
// schema.
func TestPagesOfOneRow(t *testing.T) {
	s, e := start(t, 1)
	s.Answer(trinotest.Result{
		Columns: []trinotest.Column{{Name: "b", Type: "bigint"}, {Name: "dec", Type: "decimal(10,2)"}, {Name: "ts", Type: "timestamp(6)"}, {Name: "n", Type: "varchar"}},
		Rows: [][]any{
			{1, "12.34", "2024-02-29 13:14:15.500000", nil},
			{2, "-0.50", "2024-03-01 00:00:00.000000", "x"},
			{3, "0.00", "2024-03-02 23:59:59.999999", "y"},
		},
	})
	res, err := e.Query(context.Background(), "SELECT b, dec, ts, n FROM t", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Truncated {
		t.Fatalf("rows=%v truncated=%v", res.Rows, res.Truncated)
	}
	want := [][]any{
		{int64(1), 12.34, time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC), nil},
		{int64(2), -0.5, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), "x"},
		{int64(3), int64(0), time.Date(2024, 3, 2, 23, 59, 59, 999999000, time.UTC), "y"}, // an integral DECIMAL is an int64
	}
	for r, row := range want {
		for i, w := range row {
			got := res.Rows[r][i]
			if wt, ok := w.(time.Time); ok {
				if gt, ok := got.(time.Time); !ok || !gt.Equal(wt) || gt.Location() != time.UTC {
					t.Errorf("row %d %s = %#v, want %v", r, res.Columns[i].Name, got, wt)
				}
				continue
			}
			if got != w {
				t.Errorf("row %d %s = %#v (%T), want %#v (%T)", r, res.Columns[i].Name, got, got, w, w)
			}
		}
	}
	if c := s.Cancelled(); len(c) != 0 {
		t.Errorf("cancelled %v: the query ran to its end", c)
	}
	h := s.Posts()[len(s.Posts())-1].Header
	if h.Get("X-Trino-Catalog") != "memory" || h.Get("X-Trino-Schema") != "main" || h.Get("X-Trino-User") != "ossie" {
		t.Errorf("session headers %v", h)
	}
}

// TestRowCapAtPageBoundaries: a cap falling inside a page, on a page's
// last row and on the result's last row.
func TestRowCapAtPageBoundaries(t *testing.T) {
	for _, c := range []struct {
		rows, cap int
		truncated bool
	}{
		{rows: 100, cap: 4, truncated: true}, // inside the second page
		{rows: 100, cap: 6, truncated: true}, // the second page's last row
		{rows: 6, cap: 6, truncated: false},  // exactly the whole result
		{rows: 5, cap: 6, truncated: false},
	} {
		s, e := start(t, 3)
		s.Answer(numbers(c.rows))
		res, err := e.Query(context.Background(), "SELECT i FROM t", c.cap)
		if err != nil {
			t.Fatal(err)
		}
		n := min(c.rows, c.cap)
		if len(res.Rows) != n || res.Truncated != c.truncated || res.Rows[n-1][0] != int64(n-1) {
			t.Errorf("%d rows capped at %d: got %d rows, truncated %v", c.rows, c.cap, len(res.Rows), res.Truncated)
		}
		// A capped query still running on the coordinator is cancelled.
		if cancelled := len(s.Cancelled()) == 1; cancelled != c.truncated {
			t.Errorf("%d rows capped at %d: cancelled %v", c.rows, c.cap, s.Cancelled())
		}
	}
}

// TestInjectedErrorClasses: error names a real server produces only under
// load or failure (a full queue, a lost worker, a time limit, memory) are
// outages. Drift, permission denied and starting up are asserted against
// the real Trino in real_test.go.
func TestInjectedErrorClasses(t *testing.T) {
	s, e := start(t, 2)
	ctx := context.Background()
	for _, name := range []string{"QUERY_QUEUE_FULL", "REMOTE_HOST_GONE", "EXCEEDED_TIME_LIMIT", "CLUSTER_OUT_OF_MEMORY", "SERVER_SHUTTING_DOWN"} {
		s.FailNext(trinotest.Error{Message: "injected", ErrorName: name, ErrorType: "INTERNAL_ERROR"})
		_, err := e.Query(ctx, "SELECT 1", 0)
		if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want ErrUnavailable naming it", name, err)
		}
	}
}

// TestBrokenPages: the coordinator (or a proxy) drops the connection
// after the first pages, or answers a page with text that is not the
// protocol's JSON. Either is an error, never a partial answer, and quotes
// no password; a cut connection is an outage to retry, a garbled page has
// no class (retrying the same proxy will not parse it either). The next
// statement runs normally.
func TestBrokenPages(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault func(s *trinotest.Server, page int)
		class error
	}{
		{"connection cut", (*trinotest.Server).BreakAt, engine.ErrUnavailable},
		{"not JSON", (*trinotest.Server).GarbleAt, nil},
	} {
		s, e := start(t, 2)
		s.Answer(numbers(10))
		c.fault(s, 2)
		res, err := e.Query(context.Background(), "SELECT i FROM t", 0)
		if res != nil {
			t.Errorf("%s: partial answer %v", c.name, res.Rows)
		}
		checkErr(t, err, c.class, secret)
		c.fault(s, 0)
		if res, err := e.Query(context.Background(), "SELECT i FROM t", 0); err != nil || len(res.Rows) != 10 {
			t.Fatalf("%s: the next statement: %v %v", c.name, res, err)
		}
	}
}

// TestValueNotOfItsType: a wire value that does not fit its column's type
// is an error, not a zero.
func TestValueNotOfItsType(t *testing.T) {
	s, e := start(t, 2)
	s.Answer(trinotest.Result{Columns: []trinotest.Column{{Name: "b", Type: "bigint"}}, Rows: [][]any{{"not a number"}}})
	if res, err := e.Query(context.Background(), "SELECT b FROM t", 0); err == nil {
		t.Errorf("a BIGINT column carrying text was accepted: %v", res.Rows)
	}
}

func TestCancelledContext(t *testing.T) {
	s, e := start(t, 1)
	s.Answer(numbers(10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Query(ctx, "SELECT i FROM t", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestUnavailableAndNoSecretInErrors(t *testing.T) {
	s := trinotest.Start(t, "ossie", secret, 2)
	dsn := s.DSN("memory", "main")
	// Wrong password: the coordinator rejects the credentials (401).
	bad := strings.Replace(dsn, secret, "wrong-"+secret, 1)
	_, err := trino.Open(context.Background(), trino.Config{DSN: bad, HTTPClient: s.Client, RetryTimeout: time.Second})
	checkErr(t, err, engine.ErrUnavailable, "wrong-"+secret, bad)
	// Server down: connection refused.
	s.Close()
	_, err = trino.Open(context.Background(), trino.Config{DSN: dsn, HTTPClient: s.Client, RetryTimeout: 500 * time.Millisecond})
	checkErr(t, err, engine.ErrUnavailable, secret, dsn)
	// Unparsable DSN: a plain error without the DSN.
	_, err = trino.Open(context.Background(), trino.Config{DSN: "https://u:" + secret + "@host:port:bad?x=%zz"})
	checkErr(t, err, nil, secret, "")
}

// checkErr asserts err is an error of class (nil: an *engine.Error
// without a class, or a plain error) that quotes none of secrets.
func checkErr(t *testing.T, err, class error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if class != nil && !errors.Is(err, class) {
		t.Errorf("%v: want class %v", err, class)
	}
	var ee *engine.Error
	if class == nil && errors.As(err, &ee) && ee.Class != nil {
		t.Errorf("%v: class %v, want none", err, ee.Class)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error leaks a secret: %v", err)
		}
	}
}
