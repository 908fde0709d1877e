package ossiectl

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/engine"
)

// dialTimeout bounds the first TCP connection to a networked engine. The
// engine clients retry refused connections for minutes (Trino's client
// for 2 minutes, and init's --timeout is 5), which reads as a hang; a
// host that does not accept a connection within this time is reported as
// unreachable (exit 3) at once. It is separate from --timeout, which
// bounds the whole command.
const dialTimeout = 10 * time.Second

// preflight opens and closes one TCP connection to the host and port of
// the PostgreSQL or Trino connection string, so an unreachable engine
// fails fast with exit 3. It does nothing for DuckDB, for a DSN it cannot
// read (the engine's own Open reports that) and for Unix sockets. The
// error names host:port, never the DSN.
func preflight(ctx context.Context, kind, dsnEnv, dsnFile string) error {
	if dsnEnv == "" && dsnFile == "" {
		return nil
	}
	dsn, err := engine.ResolveDSN("", dsnEnv, dsnFile)
	if err != nil {
		return nil
	}
	addr := engineAddr(kind, dsn)
	if addr == "" {
		return nil
	}
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		msg := err.Error()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			msg = fmt.Sprintf("no answer within %v", dialTimeout)
		}
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf(
			"cannot reach the %s engine at %s (%s); check %s (host and port) and that the server is running and reachable from here, then retry",
			kind, addr, scrubAddrErr(msg, dsn), dsnWhere(dsnEnv, dsnFile))}
	}
	conn.Close()
	return nil
}

// engineAddr is host:port of a PostgreSQL (URL or key=value) or Trino
// (URL) connection string, "" when it has none to dial.
func engineAddr(kind, dsn string) string {
	switch kind {
	case "postgres":
		cfg, err := pgconn.ParseConfig(dsn)
		if err != nil || cfg.Host == "" || strings.HasPrefix(cfg.Host, "/") {
			return ""
		}
		return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	case "trino":
		u, err := url.Parse(dsn)
		if err != nil || u.Hostname() == "" {
			return ""
		}
		port := u.Port()
		if port == "" {
			port = "80"
			if u.Scheme == "https" {
				port = "443"
			}
		}
		return net.JoinHostPort(u.Hostname(), port)
	}
	return ""
}

// scrubAddrErr keeps a dial error free of the connection string (dial
// errors name the address only, but a DSN may be pasted as a host).
func scrubAddrErr(msg, dsn string) string { return engine.Scrub(msg, dsn) }
