// Package pgwire is the PostgreSQL-wire SQL endpoint of the semantic
// server (DESIGN.md section 6; docs/sql-api.md): BI tools connect with
// their PostgreSQL driver, see each model as a schema holding one table of
// dimensions and metrics, and ask for metrics in SQL. Each SELECT is
// translated into the same plan.Query the HTTP API builds and answered by
// the server's one query path (Backend.StreamAnswer), so governance, the
// result cache, rollups, limits, timeouts and the audit log apply
// identically; this package never plans or runs SQL. Catalog queries
// (pg_catalog, information_schema, SHOW, version()) are answered from the
// model metadata the caller's roles may read.
//
// The protocol is PostgreSQL's frontend/backend protocol 3.0 through
// github.com/jackc/pgx/v5/pgproto3: startup, TLS or a refusal, cleartext
// password authentication mapped onto the server's tokens, the simple and
// the extended query protocol (named statements and portals, parameters
// in text and binary), cancel requests.
package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
)

// Backend is what the endpoint needs of the semantic server; *server.Server
// implements it. Every method runs under the Identity in ctx
// (server.WithIdentity).
type Backend interface {
	// AuthRequired: connections must present a password (a token).
	AuthRequired() bool
	// AuthenticatePassword maps a password onto a caller; see
	// server.Server.AuthenticatePassword.
	AuthenticatePassword(password string) (*auth.Identity, bool)
	// VisibleModels and DescribeModel are what the caller may read.
	VisibleModels(ctx context.Context) []server.ModelSummary
	DescribeModel(ctx context.Context, name string) (server.ModelDetail, error)
	// StreamAnswer answers q through the server's query path.
	StreamAnswer(ctx context.Context, model string, q *plan.Query, sink server.RowSink) error
}

// Defaults of Options.
const (
	DefaultAddr            = "127.0.0.1:15432"
	DefaultMaxMessageBytes = 1 << 20
	DefaultMaxConnections  = 256
	DefaultMaxParams       = 1000
	DefaultMaxStatements   = 1000
	DefaultWriteTimeout    = time.Minute
	// ServerVersion is the PostgreSQL version announced to clients, whose
	// catalog queries depend on it.
	ServerVersion = "15.0"
)

// Options configure an Endpoint; zero values take the defaults.
type Options struct {
	// TLS, when set, answers SSLRequest with 'S' and this configuration
	// (the server's certificate); otherwise SSLRequest is refused ('N')
	// and the connection goes on in clear.
	TLS *tls.Config
	// MaxMessageBytes bounds one client message (a statement, a Bind);
	// a larger one is a protocol error that closes the connection.
	MaxMessageBytes int
	// MaxConnections bounds open connections; more are refused (53300).
	MaxConnections int
	// MaxParams bounds the parameters of one statement.
	MaxParams int
	// MaxStatements bounds the prepared statements and portals a
	// connection keeps.
	MaxStatements int
	// WriteTimeout bounds each write to a client: a client that stops
	// reading loses its connection instead of holding the query.
	WriteTimeout time.Duration
	// ShutdownGrace is how long statements in flight may run once Serve's
	// context is done; then they are cancelled. Default
	// server.ShutdownGrace, as for HTTP requests.
	ShutdownGrace time.Duration
	// Logger receives connection errors; never credentials.
	Logger *slog.Logger
}

// Endpoint serves the SQL endpoint on listeners. Safe for concurrent use.
type Endpoint struct {
	b    Backend
	opts Options
	sem  chan struct{}

	mu    sync.Mutex
	conns map[uint32]*conn
	// closing: Serve's context is done; a connection registered now
	// drains from the start.
	closing bool
}

// New returns an endpoint answering through b.
func New(b Backend, opts Options) *Endpoint {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = DefaultMaxConnections
	}
	if opts.MaxParams <= 0 {
		opts.MaxParams = DefaultMaxParams
	}
	if opts.MaxStatements <= 0 {
		opts.MaxStatements = DefaultMaxStatements
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = server.ShutdownGrace
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Endpoint{b: b, opts: opts, sem: make(chan struct{}, opts.MaxConnections), conns: map[uint32]*conn{}}
}

// ListenAndServe listens on addr and serves until ctx is done.
func (e *Endpoint) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return e.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx is done, then drains as the
// HTTP server does (httpapi.Serve): it closes ln and the idle
// connections, lets each statement in flight complete and then ends its
// connection (57P01 admin_shutdown), cancels what still runs after
// ShutdownGrace, and returns nil once every connection is closed.
func (e *Endpoint) Serve(ctx context.Context, ln net.Listener) error {
	// Statements run under hard, which outlives ctx by the grace period.
	hard, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	served := make(chan struct{})
	defer close(served)
	go func() {
		select {
		case <-ctx.Done():
		case <-served:
			return
		}
		ln.Close()
		e.shutdown()
		select {
		case <-time.After(e.opts.ShutdownGrace):
			stop()
			e.closeAll()
		case <-served:
		}
	}()
	e.opts.Logger.Info("serving SQL", "addr", ln.Addr().String())
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.handle(hard, nc)
		}()
	}
}

// shutdown asks every registered connection to end (conn.shutdown).
func (e *Endpoint) shutdown() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closing = true
	for _, c := range e.conns {
		c.shutdown()
	}
}

// closeAll closes every registered connection (the grace period is over).
func (e *Endpoint) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.conns {
		c.nc.Close()
	}
}

// register gives c a process id and secret for cancel requests.
func (e *Endpoint) register(c *conn) {
	var b [8]byte
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		_, _ = rand.Read(b[:])
		c.pid = binary.BigEndian.Uint32(b[:4]) & 0x7fffffff
		if _, taken := e.conns[c.pid]; !taken && c.pid != 0 {
			break
		}
	}
	c.secret = append([]byte(nil), b[4:]...)
	e.conns[c.pid] = c
	c.draining = e.closing
}

func (e *Endpoint) unregister(c *conn) {
	e.mu.Lock()
	delete(e.conns, c.pid)
	e.mu.Unlock()
}

// cancel cancels the running query of connection pid when secret matches
// (PostgreSQL section 55.2.7: no answer either way).
func (e *Endpoint) cancel(pid uint32, secret []byte) {
	e.mu.Lock()
	c := e.conns[pid]
	e.mu.Unlock()
	if c != nil && string(c.secret) == string(secret) {
		c.cancelQuery()
	}
}
