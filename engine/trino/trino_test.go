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

func TestDialect(t *testing.T) {
	_, e := start(t, 10)
	if e.Dialect() != dialect.Trino {
		t.Fatalf("Dialect() = %v", e.Dialect())
	}
}

func TestQueryTypesAndPages(t *testing.T) {
	s, e := start(t, 2)
	res, err := e.Query(context.Background(), `SELECT CAST(i AS BIGINT) AS b, CAST(i AS DOUBLE) / 4 AS d, 'v' || CAST(i AS VARCHAR) AS s,
		DATE '2024-02-29' AS dt, TIMESTAMP '2024-02-29 13:14:15.5' AS ts, i % 2 = 0 AS even,
		CAST(12.34 AS DECIMAL(10,2)) AS dec, CAST(NULL AS VARCHAR) AS n
		FROM range(5) AS r(i) ORDER BY i`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 5 || res.Truncated {
		t.Fatalf("rows=%d truncated=%v", len(res.Rows), res.Truncated)
	}
	wantTypes := []string{"BIGINT", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP", "BOOLEAN", "DECIMAL", "VARCHAR"}
	for i, c := range res.Columns {
		if c.Type != wantTypes[i] {
			t.Errorf("column %s type %q, want %q", c.Name, c.Type, wantTypes[i])
		}
	}
	row := res.Rows[3]
	want := []any{int64(3), 0.75, "v3", "2024-02-29", time.Date(2024, 2, 29, 13, 14, 15, 5e8, time.UTC), false, 12.34, nil}
	for i, w := range want {
		if wt, ok := w.(time.Time); ok {
			if got, ok := row[i].(time.Time); !ok || !got.Equal(wt) || got.Location() != time.UTC {
				t.Errorf("%s = %#v, want %v", res.Columns[i].Name, row[i], wt)
			}
			continue
		}
		if row[i] != w {
			t.Errorf("%s = %#v, want %#v", res.Columns[i].Name, row[i], w)
		}
	}
	// Three pages of two rows, nothing cancelled: the query ran to its end.
	if c := s.Cancelled(); len(c) != 0 {
		t.Errorf("cancelled %v", c)
	}
	h := s.Posts()[len(s.Posts())-1]
	if h.Get("X-Trino-Catalog") != "memory" || h.Get("X-Trino-Schema") != "main" || h.Get("X-Trino-User") != "ossie" {
		t.Errorf("session headers %v", h)
	}
}

func TestRowCapCancelsQuery(t *testing.T) {
	s, e := start(t, 3)
	res, err := e.Query(context.Background(), "SELECT i FROM range(100) AS r(i) ORDER BY i", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated || res.Rows[3][0] != int64(3) {
		t.Fatalf("rows=%v truncated=%v", res.Rows, res.Truncated)
	}
	if c := s.Cancelled(); len(c) != 1 {
		t.Fatalf("cancelled %v, want the capped query", c)
	}
	// Exactly maxRows rows: not truncated.
	res, err = e.Query(context.Background(), "SELECT i FROM range(4) AS r(i)", 4)
	if err != nil || len(res.Rows) != 4 || res.Truncated {
		t.Fatalf("res=%+v err=%v", res, err)
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

func TestCancelledContext(t *testing.T) {
	_, e := start(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Query(ctx, "SELECT i FROM range(10) AS r(i)", 0)
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

func checkErr(t *testing.T, err, class error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if class != nil && !errors.Is(err, class) {
		t.Errorf("%v: want class %v", err, class)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error leaks a secret: %v", err)
		}
	}
}
