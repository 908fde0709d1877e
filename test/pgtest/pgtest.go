// Package pgtest starts throw-away PostgreSQL servers for tests: a data
// directory copied from an initdb template made once per machine, the
// postgres server process on a free loopback port with password
// (SCRAM-SHA-256) authentication and a generated password, one fresh
// database per test, and cleanup. It uses the PostgreSQL binaries installed
// on the machine (/usr/lib/postgresql/15/bin; see BinDir), never a
// container. A test binary that dies without cleanup takes its servers
// with it (parent-death signal); the next Start removes their directories.
//
// PostgreSQL refuses to run as root. When the test process is root the
// harness runs initdb and postgres as the `postgres` OS user (the temporary
// directory is chowned to it); otherwise it runs them as the current user.
//
// Typical use shares one server per test binary:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.Shared(t).NewDatabase(t)
//		...
//	}
//
// Tests that stop and start the server (to see an engine become
// unavailable and recover) use a private server from Start instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/test/localproc"
)

// Superuser is the name of the superuser role initdb creates.
const Superuser = "postgres"

// Server is one PostgreSQL server started by Start. Its methods are safe
// for concurrent use.
type Server struct {
	dir      string // temporary directory: data/, socket, log, password file
	bin      string
	port     int
	password string
	cred     *syscall.Credential // nil: run as the current user

	// StartDuration is how long Start took (initdb + first start + ready).
	StartDuration time.Duration

	mu      sync.Mutex
	proc    *exec.Cmd
	exited  chan struct{} // closed when proc has exited
	stopped bool          // Stop has removed everything
	dbSeq   atomic.Int64
}

// startTimeout bounds how long a starting server may take to accept
// connections (well under a second on an idle machine).
const startTimeout = 60 * time.Second

// Start creates a cluster in a new temporary directory (a copy of the
// initdb template, see template) and starts a server on a free loopback
// port with a new random password. The caller must call Stop. Errors:
// ErrNoBinaries when no PostgreSQL installation is found; otherwise initdb
// or server failures with the server log attached.
func Start() (*Server, error) {
	begin := time.Now()
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	removeStale()
	dir, err := os.MkdirTemp("", stalePrefix)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, password: randomHex(16)}
	fail := func(err error) (*Server, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fail(err)
	}
	if os.Geteuid() == 0 {
		cred, err := postgresUser()
		if err != nil {
			return fail(err)
		}
		s.cred = cred
	}
	if s.cred != nil {
		if err := chownTree(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fail(err)
		}
	}
	// initdb is most of a cold start; a cluster initialised once per
	// machine is copied instead (cp -a keeps the postgres owner and 0700).
	tmpl, err := s.template()
	if err != nil {
		return fail(err)
	}
	if out, err := exec.Command("cp", "-a", filepath.Join(tmpl, "data"), s.dataDir()).CombinedOutput(); err != nil {
		return fail(fmt.Errorf("pgtest: copying the initdb template: %v\n%s", err, out))
	}
	// A port picked free can be taken before postgres binds it; retry.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s.port, err = localproc.FreePort()
		if err != nil {
			return fail(err)
		}
		if lastErr = s.StartServer(); lastErr == nil {
			// The template's password is shared; this server gets its own.
			if err := s.execSocket("ALTER ROLE " + Superuser + " PASSWORD '" + s.password + "'"); err != nil {
				_ = s.StopServer()
				return fail(fmt.Errorf("pgtest: setting the password: %w", err))
			}
			s.StartDuration = time.Since(begin)
			return s, nil
		}
		if !strings.Contains(lastErr.Error(), "could not bind") && !strings.Contains(lastErr.Error(), "already in use") {
			break
		}
	}
	return fail(lastErr)
}

// DSN is the URL of database db on this server as the superuser, with the
// password: postgres://postgres:PASSWORD@127.0.0.1:PORT/db?sslmode=disable.
func (s *Server) DSN(db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(Superuser, s.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// AdminDSN is DSN("postgres"), the maintenance database.
func (s *Server) AdminDSN() string { return s.DSN("postgres") }

// Port is the loopback TCP port the server listens on (kept across
// StopServer/StartServer).
func (s *Server) Port() int { return s.port }

// Password is the superuser's generated password (hex, 32 characters).
func (s *Server) Password() string { return s.password }

// LogPath is the server log file (stderr of the postgres process).
func (s *Server) LogPath() string { return filepath.Join(s.dir, "server.log") }

func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }

// NewDatabase creates an empty database with a unique name and returns its
// DSN; it is dropped (connections forced off) when t ends. It fails t when
// the server cannot create it.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.dbSeq.Add(1))
	if err := s.Exec(context.Background(), "postgres", "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		// The server may have been stopped by the test; nothing to drop then.
		_ = s.Exec(context.Background(), "postgres", "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	return s.DSN(name)
}

// Exec runs sql (one or more statements) in database db as the superuser.
func (s *Server) Exec(ctx context.Context, db, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// socketDSN reaches the server through its Unix socket, where the
// superuser is trusted (the 0700 directory admits only the harness).
func (s *Server) socketDSN() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", s.dir, s.port, Superuser)
}

func (s *Server) execSocket(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.socketDSN())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// StartServer starts the postgres process on the existing data directory
// and port and waits until it accepts connections. Starting a running
// server is a no-op.
func (s *Server) StartServer() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("pgtest: server was removed by Stop")
	}
	if s.proc != nil {
		return nil
	}
	logf, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	logStart, _ := logf.Seek(0, 2)
	cmd := s.command("postgres", "-D", s.dataDir(), "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+s.dir,
		// Durability buys nothing for throw-away test data and costs seconds.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=100",
		"-c", "log_min_messages=warning", "-c", "log_min_error_statement=panic")
	cmd.Stdout, cmd.Stderr = logf, logf
	// If the test binary dies (timeout panic, kill), the kernel tells the
	// server to shut down (SIGINT = fast shutdown) instead of leaving an
	// orphan holding the port.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGINT
	// Ctrl-C in a terminal (make cluster-demo) reaches the program, which
	// stops the server itself, not the server directly.
	cmd.SysProcAttr.Setpgid = true
	exited, err := localproc.Spawn(cmd, logf)
	if err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	if err := waitReady(s.socketDSN(), exited); err != nil {
		localproc.Kill(cmd, exited)
		return fmt.Errorf("pgtest: postgres did not start: %v\nlog:\n%s", err, readFrom(s.LogPath(), logStart))
	}
	s.proc, s.exited = cmd, exited
	return nil
}

// StopServer shuts the server down (fast shutdown: open sessions are
// disconnected) and keeps the data directory so StartServer can bring it
// back on the same port. Stopping a stopped server is a no-op.
func (s *Server) StopServer() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	_ = s.proc.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.proc.Process.Kill()
		<-s.exited
	}
	s.proc, s.exited = nil, nil
	return nil
}

// Restart is StopServer then StartServer.
func (s *Server) Restart() error {
	if err := s.StopServer(); err != nil {
		return err
	}
	return s.StartServer()
}

// Stop shuts the server down and removes its directory. Safe to call more
// than once.
func (s *Server) Stop() error {
	err := s.StopServer()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return err
	}
	s.stopped = true
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// command builds an exec.Cmd for a PostgreSQL binary, run as the postgres
// OS user when the harness is root, with libpq environment variables that
// could redirect it removed.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	env := []string{"LC_ALL=C", "LANG=C", "TZ=UTC"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "TZ=") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = env
	return cmd
}

// waitReady polls until a connection succeeds, the process exits or
// startTimeout passes.
func waitReady(dsn string, exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("postgres exited")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(context.Background())
		}
		cancel()
		if err == nil {
			return nil
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %s: %v", startTimeout, last)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// readFrom returns a file's content from offset (for error messages).
func readFrom(path string, off int64) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if off > 0 && off <= int64(len(b)) {
		b = b[off:]
	}
	return string(b)
}
