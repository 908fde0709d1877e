package pgwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// startupBytes is a StartupMessage for user bi.
func startupBytes() []byte {
	b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "bi", "database": "ossie"}}).Encode(nil)
	return b
}

func encode(m pgproto3.FrontendMessage) []byte {
	b, err := m.Encode(nil)
	if err != nil {
		panic(err)
	}
	return b
}

// rawConn is a client speaking bytes, reading what the server answers.
type rawConn struct {
	net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	return dialRawWith(t, addr, net.Dialer{})
}

// dialSmallBuffer connects with a 64 KiB receive buffer set before the
// handshake, which also turns off the kernel's receive-buffer autotuning:
// loopback buffers may otherwise grow to tcp_rmem's maximum (32 MiB on
// some hosts) and hold a whole answer that the client never reads.
func dialSmallBuffer(t *testing.T, addr string) *rawConn {
	t.Helper()
	return dialRawWith(t, addr, net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10)
		}); err != nil {
			return err
		}
		return serr
	}})
}

func dialRawWith(t *testing.T, addr string, d net.Dialer) *rawConn {
	t.Helper()
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &rawConn{Conn: nc, fe: pgproto3.NewFrontend(bufio.NewReader(nc), nc)}
}

// startup completes the startup of an ungoverned connection.
func (r *rawConn) startup(t *testing.T) {
	t.Helper()
	if _, err := r.Write(startupBytes()); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := r.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return
		}
	}
}

// outcome reads until the connection closes and returns the SQLSTATEs
// of the errors received.
func (r *rawConn) outcome() []string {
	var codes []string
	for {
		msg, err := r.fe.Receive()
		if err != nil {
			return codes
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			codes = append(codes, e.Code)
		}
	}
}

// stillServes checks that a fresh connection gets an answer.
func stillServes(t *testing.T, f *fixture) {
	t.Helper()
	c := f.connect(t, "")
	if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
		t.Errorf("another connection: %v", rows)
	}
}

func TestBadInputClosesTheConnectionOnly(t *testing.T) {
	f := newFixture(t, false, Options{})
	t.Run("malformed startup packet", func(t *testing.T) {
		r := dialRaw(t, f.addr)
		_, _ = r.Write([]byte{0, 0, 0, 3, 1, 2, 3, 4})
		if codes := r.outcome(); len(codes) != 1 || codes[0] != codeProtocol {
			t.Errorf("errors %v", codes)
		}
		stillServes(t, f)
	})
	t.Run("unknown protocol version", func(t *testing.T) {
		r := dialRaw(t, f.addr)
		_, _ = r.Write([]byte{0, 0, 0, 8, 0, 9, 0, 0})
		if codes := r.outcome(); len(codes) != 1 || codes[0] != codeProtocol {
			t.Errorf("errors %v", codes)
		}
	})
	t.Run("a 1 GB message length", func(t *testing.T) {
		r := dialRaw(t, f.addr)
		r.startup(t)
		hdr := []byte{'Q', 0, 0, 0, 0}
		binary.BigEndian.PutUint32(hdr[1:], 1<<30)
		_, _ = r.Write(hdr)
		if codes := r.outcome(); len(codes) != 1 || codes[0] != codeLimit {
			t.Errorf("errors %v", codes)
		}
		stillServes(t, f)
	})
	t.Run("a 10 MB statement", func(t *testing.T) {
		r := dialRaw(t, f.addr)
		r.startup(t)
		sql := "SELECT order_count FROM shop.shop WHERE orders_status IN ('" + strings.Repeat("x", 10<<20) + "')"
		go func() { _, _ = r.Write(encode(&pgproto3.Query{String: sql})) }()
		if codes := r.outcome(); len(codes) != 1 || codes[0] != codeLimit {
			t.Errorf("errors %v", codes)
		}
		stillServes(t, f)
	})
	t.Run("10,000 parameters", func(t *testing.T) {
		c := f.connect(t, "")
		var ph []string
		var args []any
		for i := 1; i <= 10000; i++ {
			ph = append(ph, fmt.Sprintf("$%d", i))
			args = append(args, "s")
		}
		_, err := c.Exec(context.Background(), "SELECT order_count FROM shop.shop WHERE orders_status IN ("+strings.Join(ph, ",")+")", args...)
		if sqlState(err) != codeLimit {
			t.Errorf("10,000 parameters: %v", err)
		}
		if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
			t.Errorf("same connection afterwards: %v", rows)
		}
	})
	t.Run("a message before the startup completes", func(t *testing.T) {
		r := dialRaw(t, f.addr)
		_, _ = r.Write(encode(&pgproto3.Query{String: "SELECT 1"}))
		if codes := r.outcome(); len(codes) != 1 || codes[0] != codeProtocol {
			t.Errorf("errors %v", codes)
		}
	})
}

// A client that stops reading a large answer loses its connection after
// the write timeout; others are served meanwhile.
func TestSlowClient(t *testing.T) {
	f := newWideFixture(t, Options{WriteTimeout: 300 * time.Millisecond})
	r := dialSmallBuffer(t, f.addr)
	r.startup(t)
	slow := f.openConnections() // the fixture is fresh: only r's connection
	if _, err := r.Write(encode(&pgproto3.Query{String: "SELECT wide_k, wide_pad FROM wide.wide LIMIT 100000"})); err != nil {
		t.Fatal(err)
	}
	// Never read; meanwhile another connection is answered.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		stillServes(t, f.fixture)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("another connection was not served while a client did not read")
	}
	wg.Wait()
	// The server ends the stuck connection once a write has waited past
	// the write timeout; how soon that is depends on how fast the engine
	// fills the socket buffers, so wait for the fact rather than a time.
	deadline := time.Now().Add(60 * time.Second)
	for f.stillOpen(slow) {
		if time.Now().After(deadline) {
			t.Fatal("the connection of a client that stopped reading stayed open for 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Reading now ends (after the rows the socket buffers held) instead of
	// blocking, and ends short of the whole answer.
	_ = r.SetReadDeadline(time.Now().Add(20 * time.Second))
	n, err := io.Copy(io.Discard, r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the closed connection did not end (%d bytes read)", n)
	}
	if n >= 100000*200 {
		t.Errorf("read %d bytes: the whole answer was sent, so the client was not slow", n)
	}
}

// openConnections is the set of the endpoint's open connections.
func (f *fixture) openConnections() map[uint32]bool {
	f.ep.mu.Lock()
	defer f.ep.mu.Unlock()
	open := map[uint32]bool{}
	for pid := range f.ep.conns {
		open[pid] = true
	}
	return open
}

// stillOpen reports whether any connection of set is still open.
func (f *fixture) stillOpen(set map[uint32]bool) bool {
	for pid := range f.openConnections() {
		if set[pid] {
			return true
		}
	}
	return false
}

type wideFixture struct{ *fixture }

// newWideFixture adds the model wide (100,000 distinct rows of 200 bytes)
// to the ungoverned fixture, for answers larger than socket buffers.
func newWideFixture(t testing.TB, opts Options) *wideFixture {
	f := newFixture(t, false, opts)
	if err := f.eng.Exec(context.Background(), `CREATE TABLE wide AS SELECT range AS k, repeat('x', 200) AS pad FROM range(200000)`); err != nil {
		t.Fatal(err)
	}
	model := `version: "0.1.1"
semantic_model:
  - name: wide
    datasets:
      - name: wide
        source: wide
        fields:
          - {name: k, expression: {dialects: [{dialect: ANSI_SQL, expression: k}]}, datatype: Integer}
          - {name: pad, expression: {dialects: [{dialect: ANSI_SQL, expression: pad}]}, datatype: String}
`
	path := filepath.Join(t.TempDir(), "wide.yaml")
	if err := os.WriteFile(path, []byte(model), 0o600); err != nil {
		t.Fatal(err)
	}
	arts, err := load.Models([]string{path}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: f.eng, Models: append(f.srv.Models(), arts...)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ep := New(srv, opts)
	go func() { done <- ep.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return &wideFixture{&fixture{eng: f.eng, srv: srv, http: f.http, addr: ln.Addr().String(), ep: ep}}
}

// The message decoder and the connection state machine take any bytes:
// no panic, no hang, bounded reads (the server has no engine, so queries
// that get that far fail cleanly).
func FuzzConnection(f *testing.F) {
	seed := startupBytes()
	q, _ := (&pgproto3.Query{String: "SELECT order_count FROM shop.shop; SELECT * FROM information_schema.tables"}).Encode(nil)
	p, _ := (&pgproto3.Parse{Query: "SELECT orders_status FROM shop.shop WHERE orders_status = $1"}).Encode(nil)
	b, _ := (&pgproto3.Bind{Parameters: [][]byte{[]byte("placed")}}).Encode(nil)
	d, _ := (&pgproto3.Describe{ObjectType: 'P'}).Encode(nil)
	e, _ := (&pgproto3.Execute{}).Encode(nil)
	s, _ := (&pgproto3.Sync{}).Encode(nil)
	ssl, _ := (&pgproto3.SSLRequest{}).Encode(nil)
	f.Add(seed)
	f.Add(append(append([]byte{}, seed...), q...))
	f.Add(append(append(append(append(append(append(append([]byte{}, seed...), p...), b...), d...), e...), s...), q...))
	f.Add(append(append([]byte{}, ssl...), seed...))
	f.Add([]byte{0, 0, 0, 16, 4, 210, 22, 46, 0, 0, 0, 1, 0, 0, 0, 2})
	arts, err := load.Models([]string{"../testdata/shop.yaml"}, compiler.CompileOptions{})
	if err != nil {
		f.Fatal(err)
	}
	srv, err := server.New(server.Config{Models: arts})
	if err != nil {
		f.Fatal(err)
	}
	ep := New(srv, Options{MaxMessageBytes: 64 << 10})
	f.Fuzz(func(t *testing.T, in []byte) {
		client, conn := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			ep.handle(context.Background(), conn)
		}()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		_ = client.SetWriteDeadline(time.Now().Add(2 * time.Second))
		_, _ = client.Write(in)
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the connection handler did not return after the client closed")
		}
	})
}
