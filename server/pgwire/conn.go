package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
)

// conn is one client connection: its session and its statements. The
// messages of a connection are handled one at a time, in order.
type conn struct {
	e      *Endpoint
	nc     net.Conn
	be     *pgproto3.Backend
	pid    uint32
	secret []byte
	ctx    context.Context // carries the caller's Identity
	user   string
	// identity is the authenticated caller; nil when the server runs
	// without authentication (ungoverned).
	identity *auth.Identity
	sess     session
	enc      *encoder
	types    *pgtype.Map

	stmts   map[string]*prepared
	portals map[string]*portal
	// skip: an extended-protocol error happened; messages are ignored
	// until the next Sync (PostgreSQL section 55.2.3).
	skip bool
	tx   byte // transaction status of ReadyForQuery: 'I' or 'T'

	mu      sync.Mutex
	running context.CancelFunc // of the query in progress, for cancel requests
	// idle: the connection waits for a message after ReadyForQuery, so
	// a shutdown may end it at once; draining: the endpoint is shutting
	// down, so the connection ends at its next ReadyForQuery.
	idle, draining bool
}

func (e *Endpoint) handle(ctx context.Context, nc net.Conn) {
	defer nc.Close()
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
	default:
		be := pgproto3.NewBackend(nc, nc)
		be.Send((&sqlError{Code: codeTooMany, Message: "sorry, too many clients already", Fatal: true}).response())
		_ = be.Flush()
		return
	}
	c := &conn{e: e, nc: nc, enc: newEncoder(), types: pgtype.NewMap(), stmts: map[string]*prepared{}, portals: map[string]*portal{}, tx: 'I'}
	c.be = pgproto3.NewBackend(nc, nc)
	c.be.SetMaxBodyLen(e.opts.MaxMessageBytes)
	// A client that never finishes its startup does not hold a slot.
	_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	ok, err := c.startup(ctx)
	if err != nil || !ok {
		if err != nil && !errors.Is(err, io.EOF) {
			e.opts.Logger.Debug("SQL connection refused at startup", "remote", nc.RemoteAddr().String(), "error", err)
		}
		return
	}
	_ = nc.SetReadDeadline(time.Time{})
	e.register(c)
	defer e.unregister(c)
	c.ctx = ctx
	if id := c.identity; id != nil {
		c.ctx = auth.WithIdentity(ctx, id)
	}
	c.ctx = server.ViaSQL(c.ctx)
	if err := c.greet(); err != nil {
		return
	}
	c.loop()
}

// startup reads the startup packet: an SSLRequest or GSSENCRequest first
// (answered 'S' with TLS or 'N'), a CancelRequest (served, then closed),
// or the StartupMessage, followed by authentication. ok=false: the
// connection ends.
func (c *conn) startup(ctx context.Context) (bool, error) {
	for tries := 0; tries < 3; tries++ {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			c.fatal(&sqlError{Code: codeProtocol, Message: "invalid startup packet"})
			return false, err
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if c.e.opts.TLS == nil || tries > 0 {
				if _, err := c.nc.Write([]byte{'N'}); err != nil {
					return false, err
				}
				continue
			}
			if _, err := c.nc.Write([]byte{'S'}); err != nil {
				return false, err
			}
			tc := tls.Server(c.nc, c.e.opts.TLS)
			if err := tc.HandshakeContext(ctx); err != nil {
				return false, err
			}
			c.nc = tc
			c.be = pgproto3.NewBackend(tc, tc)
			c.be.SetMaxBodyLen(c.e.opts.MaxMessageBytes)
		case *pgproto3.GSSEncRequest:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false, err
			}
		case *pgproto3.CancelRequest:
			c.e.cancel(m.ProcessID, m.SecretKey)
			return false, nil
		case *pgproto3.StartupMessage:
			return c.authenticate(m)
		}
	}
	c.fatal(&sqlError{Code: codeProtocol, Message: "too many startup requests"})
	return false, nil
}

// authenticate applies the startup parameters and asks for the password
// when the server requires authentication: the password is a token of
// the server's tokens file (docs/sql-api.md, "Authentication").
func (c *conn) authenticate(m *pgproto3.StartupMessage) (bool, error) {
	c.sess = newSession()
	c.user = m.Parameters["user"]
	for k, v := range m.Parameters {
		switch strings.ToLower(k) {
		case "user", "database", "options", "replication":
		default:
			if err := c.sess.set(k, v); err != nil {
				c.fatal(err.(*sqlError))
				return false, nil
			}
		}
	}
	if m.Parameters["replication"] != "" && m.Parameters["replication"] != "false" {
		c.fatal(&sqlError{Code: codeFeature, Message: "not supported by the Ossie SQL endpoint: replication connections"})
		return false, nil
	}
	c.sess.database = m.Parameters["database"]
	c.sess.settings["session_authorization"] = c.user
	if !c.e.b.AuthRequired() {
		c.identity = nil
		return true, nil
	}
	c.be.Send(&pgproto3.AuthenticationCleartextPassword{})
	if err := c.be.Flush(); err != nil {
		return false, err
	}
	if err := c.be.SetAuthType(pgproto3.AuthTypeCleartextPassword); err != nil {
		return false, err
	}
	msg, err := c.be.Receive()
	if err != nil {
		return false, err
	}
	pw, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		c.fatal(&sqlError{Code: codeProtocol, Message: "expected a password message"})
		return false, nil
	}
	id, ok := c.e.b.AuthenticatePassword(pw.Password)
	if !ok {
		c.fatal(&sqlError{Code: codeAuth, Message: "password authentication failed for user \"" + c.user + "\"",
			Hint: "the password is a token of the server's tokens file"})
		return false, nil
	}
	c.identity = id
	return true, nil
}

// greet completes the startup: AuthenticationOk, the parameter statuses
// clients read, the cancel key and the first ReadyForQuery.
func (c *conn) greet() error {
	c.be.Send(&pgproto3.AuthenticationOk{})
	for _, k := range reportedSettings {
		c.be.Send(&pgproto3.ParameterStatus{Name: k, Value: c.sess.get(k)})
	}
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})
	return c.ready()
}

func (c *conn) ready() error {
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.tx})
	return c.flush()
}

// flush writes what is buffered, within the write timeout.
func (c *conn) flush() error {
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.e.opts.WriteTimeout))
	return c.be.Flush()
}

func (c *conn) fatal(e *sqlError) {
	e.Fatal = true
	c.be.Send(e.response())
	_ = c.flush()
}

func (c *conn) sendError(err error) {
	c.be.Send(asSQLError(err).response())
}

// errShutdown ends a session when the endpoint shuts down (PostgreSQL's
// admin_shutdown).
var errShutdown = &sqlError{Code: codeAdminShutdown, Message: "terminating connection due to administrator command: the server is shutting down"}

// waitMessage marks the connection idle when it waits at a
// ReadyForQuery boundary; it reports false when the endpoint is
// draining, after telling the client so.
func (c *conn) waitMessage(boundary bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.draining && boundary {
		c.fatal(errShutdown)
		return false
	}
	c.idle = boundary
	return true
}

// shutdown ends the connection now when it is idle, else at its next
// ReadyForQuery (the statement in flight completes).
func (c *conn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.draining = true
	if c.idle {
		c.fatal(errShutdown)
		c.nc.Close()
	}
}

// loop handles messages until the client terminates or fails.
func (c *conn) loop() {
	boundary := true // greet sent ReadyForQuery
	for {
		if !c.waitMessage(boundary) {
			return
		}
		msg, err := c.be.Receive()
		c.mu.Lock()
		c.idle = false
		c.mu.Unlock()
		if err != nil {
			var big *pgproto3.ExceededMaxBodyLenErr
			if errors.As(err, &big) {
				c.fatal(&sqlError{Code: codeLimit, Message: "message too large: the limit is " + strconv.Itoa(c.e.opts.MaxMessageBytes) + " bytes"})
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, net.ErrClosed) {
				c.fatal(&sqlError{Code: codeProtocol, Message: "invalid message"})
			}
			return
		}
		var ferr error
		switch m := msg.(type) {
		case *pgproto3.Query:
			ferr = c.simpleQuery(m.String)
		case *pgproto3.Parse:
			if !c.skip {
				c.extended(c.parse(m))
			}
		case *pgproto3.Bind:
			if !c.skip {
				c.extended(c.bind(m))
			}
		case *pgproto3.Describe:
			if !c.skip {
				c.extended(c.describe(m))
			}
		case *pgproto3.Execute:
			if !c.skip {
				c.extended(c.execute(m))
			}
		case *pgproto3.Close:
			if !c.skip {
				c.extended(c.close(m))
			}
		case *pgproto3.Sync:
			c.skip = false
			ferr = c.ready()
		case *pgproto3.Flush:
			ferr = c.flush()
		case *pgproto3.Terminate:
			return
		default:
			c.fatal(&sqlError{Code: codeProtocol, Message: "unexpected message"})
			return
		}
		if ferr != nil {
			return
		}
		switch msg.(type) {
		case *pgproto3.Query, *pgproto3.Sync:
			boundary = true
		case *pgproto3.Flush:
		default:
			boundary = false
		}
	}
}

// extended reports an extended-protocol error and skips to the next Sync.
func (c *conn) extended(err error) {
	if err == nil {
		return
	}
	c.sendError(err)
	c.skip = true
}

func (c *conn) cancelQuery() {
	c.mu.Lock()
	if c.running != nil {
		c.running()
	}
	c.mu.Unlock()
}

// queryContext is the context of one statement, cancelled by a cancel
// request for this connection.
func (c *conn) queryContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.running = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		c.running = nil
		c.mu.Unlock()
		cancel()
	}
}
