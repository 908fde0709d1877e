package pgwire

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
)

// heldBackend holds every answer until release is closed, so that a
// statement is in flight for as long as the test needs.
type heldBackend struct {
	Backend
	started chan struct{}
	release chan struct{}
}

func (b heldBackend) StreamAnswer(ctx context.Context, model string, q *plan.Query, sink server.RowSink) error {
	b.started <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.Backend.StreamAnswer(ctx, model, q, sink)
}

// When Serve's context ends (SIGTERM), a statement in flight completes
// and is answered, an idle connection is ended with 57P01 at once, and
// Serve returns once both are done. Found by the soak (test/soak): the
// statement was cancelled (57014) at SIGTERM while HTTP requests
// drained, and an idle client kept Serve, and so the server, from
// exiting.
func TestShutdownDrains(t *testing.T) {
	f := newFixture(t, false, Options{})
	b := heldBackend{Backend: f.srv, started: make(chan struct{}, 1), release: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- New(b, Options{}).Serve(ctx, ln) }()
	url := "postgres://bi@" + ln.Addr().String() + "/ossie?sslmode=disable"
	idle, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close(context.Background())
	busy, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close(context.Background())
	answered := make(chan error, 1)
	var n int64
	go func() {
		answered <- busy.QueryRow(context.Background(), `SELECT MEASURE(order_count) FROM shop.shop`).Scan(&n)
	}()
	<-b.started
	cancel() // SIGTERM
	time.Sleep(200 * time.Millisecond)
	if err := idle.Ping(context.Background()); sqlState(err) != codeAdminShutdown && err == nil {
		t.Errorf("the idle connection still answers after shutdown began")
	}
	select {
	case err := <-done:
		t.Fatalf("Serve returned (%v) with a statement in flight", err)
	default:
	}
	close(b.release)
	if err := <-answered; err != nil {
		t.Fatalf("the statement in flight at shutdown: %v", err)
	}
	if n <= 0 {
		t.Errorf("order_count %d", n)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10 s of the last statement")
	}
}
