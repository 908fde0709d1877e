// Package trinoserver starts a real Trino coordinator for tests: the
// trino-server-core release and the plugins that scripts/trino.sh fetched
// into bin/trino/<version>/, run as one single-node coordinator (it also
// runs the tasks) on a free loopback port, with a small heap, in a
// temporary directory removed at Stop. Catalogs: `memory` (the memory
// connector, which stores tables and views), `system`, and any a test
// passes in Options.Catalogs (with the plugins they need in
// Options.Plugins, e.g. an Iceberg REST catalog of test/icebergrest).
// Access control: Trino's file-based system access control with Rules
// (users below).
//
// Start-up took 16 s to 49 s on a shared 2-core machine; the JVM's
// resident memory is about 270 MiB after start and under 1 GiB after the
// conformance suite (heap capped at 1 GiB; docs/trino.md has the measured
// numbers). So a test binary shares one server:
//
//	func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m)) }
//
//	func TestX(t *testing.T) {
//		srv := trinoserver.Shared(t)
//		schema := srv.NewSchema(t) // memory.<fresh schema>, dropped after t
//		...
//	}
//
// A test binary that dies without cleanup takes its server with it
// (parent-death signal: SIGKILL); the next Start removes stale directories.
// When bin/trino is missing the tests skip loudly, unless
// OSSIE_REQUIRE_TRINO=1 (set by `make test`), which makes it a failure.
package trinoserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/trinodb/trino-go-client/trino" // database/sql driver "trino"

	"github.com/ossie-dev/ossie/test/localproc"
)

// Version is the Trino release scripts/trino.sh installs by default.
const Version = "476"

// Environment variables.
const (
	// HomeEnv points at an install made by scripts/trino.sh (the
	// directory it prints); default: bin/trino/<Version> of this repo.
	HomeEnv = "OSSIE_TRINO_HOME"
	// RequireEnv set to "1" turns a missing install into a failure.
	RequireEnv = "OSSIE_REQUIRE_TRINO"
)

// The users of Rules. Without authentication Trino takes the user the
// client names (X-Trino-User); the access control decides what it may do.
const (
	// AdminUser may do everything (create schemas, tables, views).
	AdminUser = "ossie"
	// ReaderUser may only SELECT from the tables and views of
	// memory.ReaderSchema: the consumer of governed views.
	ReaderUser = "reader"
	// ReaderSchema is the one schema ReaderUser can read.
	ReaderSchema = "governed"
	// DeniedUser is granted nothing.
	DeniedUser = "nobody"
)

// Rules is the file-based access control (Trino docs, "File-based access
// control", system-level rules) every server gets. Views run with their
// owner's rights (SECURITY DEFINER, Trino's default), so AdminUser needs
// GRANT_SELECT on the tables a view reads for ReaderUser to read it.
const Rules = `{
  "catalogs": [
    {"user": "` + AdminUser + `", "allow": "all"},
    {"user": "` + ReaderUser + `", "catalog": "memory", "allow": "read-only"},
    {"user": "` + ReaderUser + `", "catalog": "system", "allow": "read-only"},
    {"allow": "none"}
  ],
  "schemas": [
    {"user": "` + AdminUser + `", "owner": true},
    {"owner": false}
  ],
  "tables": [
    {"user": "` + AdminUser + `", "privileges": ["SELECT", "INSERT", "DELETE", "UPDATE", "OWNERSHIP", "GRANT_SELECT"]},
    {"user": "` + ReaderUser + `", "catalog": "memory", "schema": "` + ReaderSchema + `", "privileges": ["SELECT"]},
    {"user": "` + ReaderUser + `", "catalog": "system", "privileges": ["SELECT"]},
    {"privileges": []}
  ]
}
`

// ErrNotInstalled means no Trino install was found (run scripts/trino.sh).
var ErrNotInstalled = errors.New("no Trino install (run scripts/trino.sh, or `make test`, which runs it)")

// Options tune Start. The zero value is what Shared uses.
type Options struct {
	// HeapMB is the JVM's maximum heap (default 1024).
	HeapMB int
	// WhileStarting, if set, is called once with the server while its
	// HTTP endpoint answers but the coordinator still reports
	// "starting" (plugins and catalogs loading), for tests of how a
	// starting server refuses queries. Start waits for it to return.
	WhileStarting func(*Server)
	// Plugins are the connector plugins to load besides memory (names
	// under <install>/plugin/, e.g. "iceberg"); a plugin that is not
	// installed is ErrNotInstalled. Only the named plugins are loaded: the
	// Iceberg plugin alone adds hundreds of jars to every start.
	Plugins []string
	// Catalogs are extra catalogs: name -> the properties of
	// etc/catalog/<name>.properties (e.g. icebergrest's TrinoCatalog).
	Catalogs map[string]string
}

// Server is one Trino coordinator started by Start. Its methods are safe
// for concurrent use.
type Server struct {
	home string // install directory (server/, plugin/, jdk)
	dir  string // temporary directory: etc/, data/, server.log
	port int
	opts Options // what Start was given, for Restart

	// StartDuration is how long Start took (process start to "not
	// starting" on /v1/info).
	StartDuration time.Duration
	// DB is a connection pool as AdminUser (no default catalog).
	DB *sql.DB

	proc     *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
	seq      atomic.Int64
}

// startTimeout bounds a start on a busy shared machine.
const startTimeout = 4 * time.Minute

// Home finds the install: $OSSIE_TRINO_HOME, else bin/trino/<Version> of
// the repository holding this file. Error: ErrNotInstalled, wrapped with
// where it looked.
func Home() (string, error) {
	dir := os.Getenv(HomeEnv)
	where := "$" + HomeEnv + "=" + dir
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "bin", "trino", Version)
		where = dir
	}
	for _, p := range []string{".complete", "jdk/bin/java", "server/lib", "plugin/memory"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return "", fmt.Errorf("%w: %s lacks %s", ErrNotInstalled, where, p)
		}
	}
	return filepath.Abs(dir)
}

// Start writes a configuration into a new temporary directory and starts
// the coordinator on a free loopback port, waiting until it has started
// (at most startTimeout). The caller must call Stop. Errors:
// ErrNotInstalled, or the failure with the end of the server log.
func Start(opts Options) (*Server, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	for _, p := range opts.Plugins {
		if _, err := os.Stat(filepath.Join(home, "plugin", p)); err != nil {
			return nil, fmt.Errorf("%w: %s lacks plugin/%s (scripts/trino.sh installs it)", ErrNotInstalled, home, p)
		}
	}
	removeStale()
	dir, err := os.MkdirTemp("", stalePrefix)
	if err != nil {
		return nil, err
	}
	s := &Server{home: home, dir: dir, opts: opts}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// A port picked free can be taken before Trino binds it; retry.
	for attempt := 0; ; attempt++ {
		if s.port, err = localproc.FreePort(); err == nil {
			err = s.start(opts)
		}
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s.DB, err = sql.Open("trino", s.DSN(AdminUser, "", ""))
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(opts Options) error {
	heap := opts.HeapMB
	if heap <= 0 {
		heap = 1024
	}
	if err := s.writeConfig(heap, opts); err != nil {
		return err
	}
	logf, err := os.Create(s.LogPath())
	if err != nil {
		return err
	}
	begin := time.Now()
	args := []string{
		"-Xmx" + strconv.Itoa(heap) + "m", "-Xms128m",
		// One collector thread and no C2 compiler: on a shared 2-core
		// machine these cut start-up CPU; test queries are small.
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=128m",
		"-XX:+ExitOnOutOfMemoryError", "-Djdk.attach.allowAttachSelf=true",
		"--enable-native-access=ALL-UNNAMED",
		"-Duser.timezone=UTC", "-Dfile.encoding=UTF-8",
		"-Dconfig=etc/config.properties", "-Dlog.levels-file=etc/log.properties",
		"-cp", filepath.Join(s.home, "server", "lib", "*"),
		"io.trino.server.TrinoServer",
	}
	cmd := exec.Command(filepath.Join(s.home, "jdk", "bin", "java"), args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "TZ=UTC")
	// If the test binary dies (timeout panic, kill), the kernel kills the
	// JVM instead of leaving an orphan holding a gigabyte.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited, err := localproc.Spawn(cmd, logf)
	if err != nil {
		return fmt.Errorf("trinoserver: start java: %w", err)
	}
	s.proc, s.exited = cmd, exited
	err = s.waitStarted(opts.WhileStarting)
	if err == nil {
		err = s.waitNodes()
	}
	if err != nil {
		localproc.Kill(cmd, exited)
		return fmt.Errorf("trinoserver: Trino did not start: %v\nend of %s:\n%s", err, s.LogPath(), localproc.Tail(s.LogPath(), 4000))
	}
	s.StartDuration = time.Since(begin)
	return nil
}

// writeConfig lays out etc/: the coordinator's properties, the memory
// catalog and opts.Catalogs, the access-control rules and quiet logging;
// and plugin/: links to the memory plugin and opts.Plugins.
func (s *Server) writeConfig(heapMB int, opts Options) error {
	port := strconv.Itoa(s.port)
	// Per-query memory stays well under the heap minus Trino's default
	// headroom (30 % of the heap).
	queryMem := strconv.Itoa(heapMB/4) + "MB"
	files := map[string]string{
		"config.properties": strings.Join([]string{
			"coordinator=true",
			"node-scheduler.include-coordinator=true",
			"node.environment=ossie_test",
			"node.id=ossie-test-" + port,
			// Loopback only: without these Trino announces the machine's
			// first non-loopback address and talks to itself through it.
			"node.internal-address=127.0.0.1",
			"node.bind-ip=127.0.0.1",
			"http-server.http.port=" + port,
			"discovery.uri=http://127.0.0.1:" + port,
			"plugin.dir=" + filepath.Join(s.dir, "plugin"),
			"catalog.config-dir=" + filepath.Join(s.dir, "etc", "catalog"),
			"query.max-memory=" + queryMem,
			"query.max-memory-per-node=" + queryMem,
			"task.concurrency=2",
			// Test loads send rows as one JSON literal of up to a few MB.
			"query.max-length=20000000",
			"task.max-worker-threads=4",
			"access-control.config-files=" + filepath.Join(s.dir, "etc", "access-control.properties"),
		}, "\n") + "\n",
		"access-control.properties": "access-control.name=file\nsecurity.config-file=" + filepath.Join(s.dir, "etc", "rules.json") + "\n",
		"rules.json":                Rules,
		"log.properties":            "io.trino=WARN\nio.airlift=WARN\norg.eclipse.jetty=WARN\n",
		filepath.Join("catalog", "memory.properties"): "connector.name=memory\nmemory.max-data-per-node=256MB\n",
	}
	for name, body := range opts.Catalogs {
		files[filepath.Join("catalog", name+".properties")] = body
	}
	for _, p := range append([]string{"memory"}, opts.Plugins...) {
		link := filepath.Join(s.dir, "plugin", p)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(filepath.Join(s.home, "plugin", p), link); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	for name, body := range files {
		p := filepath.Join(s.dir, "etc", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(s.dir, "data"), 0o755)
}

// waitStarted polls GET /v1/info until it reports "starting": false, the
// process exits or startTimeout passes. whileStarting runs once on the
// first answer that says "starting": true.
func (s *Server) waitStarted(whileStarting func(*Server)) error {
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return errors.New("the JVM exited")
		default:
		}
		starting, err := s.starting(client)
		switch {
		case err != nil:
			last = err
		case starting && whileStarting != nil:
			whileStarting(s)
			whileStarting = nil
		case !starting:
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("not started after %s (last: %v)", startTimeout, last)
}

// waitNodes writes and reads a memory-connector table until the
// coordinator schedules both: "starting": false on /v1/info comes before
// the node is announced with its catalogs, and a memory query in between
// fails with NO_NODES_AVAILABLE (system tables answer earlier, so they do
// not prove it).
func (s *Server) waitNodes() error {
	db, err := sql.Open("trino", s.DSN(AdminUser, "memory", "default"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(startTimeout))
	defer cancel()
	var last error
	for ctx.Err() == nil {
		var n int
		_, last = db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS memory.default.trinoserver_ready AS SELECT 1 AS x")
		if last == nil {
			last = db.QueryRowContext(ctx, "SELECT count(*) FROM memory.default.trinoserver_ready").Scan(&n)
		}
		if last == nil && n == 1 {
			_, last = db.ExecContext(ctx, "DROP TABLE memory.default.trinoserver_ready")
			return last
		}
		select {
		case <-s.exited:
			return errors.New("the JVM exited")
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("no active node after %s (last: %v)", startTimeout, last)
}

// starting asks /v1/info whether the coordinator is still starting.
func (s *Server) starting(client *http.Client) (bool, error) {
	resp, err := client.Get(s.URL() + "/v1/info")
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("/v1/info: %s", resp.Status)
	}
	var info struct {
		Starting bool `json:"starting"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return false, err
	}
	return info.Starting, nil
}

// URL is the coordinator's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.port) }

// Port is the coordinator's loopback HTTP port.
func (s *Server) Port() int { return s.port }

// LogPath is the JVM's stdout and stderr.
func (s *Server) LogPath() string { return filepath.Join(s.dir, "server.log") }

// DSN is a trino-go-client DSN for user with optional session catalog and
// schema: http://USER@127.0.0.1:PORT?catalog=C&schema=S. There is no
// password: the server does not authenticate (the client refuses a
// password over http), the access control authorizes by user name.
func (s *Server) DSN(user, catalog, schema string) string {
	return loopbackDSN(s.port, user, catalog, schema)
}

func loopbackDSN(port int, user, catalog, schema string) string {
	q := url.Values{}
	if catalog != "" {
		q.Set("catalog", catalog)
	}
	if schema != "" {
		q.Set("schema", schema)
	}
	u := url.URL{Scheme: "http", User: url.User(user), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), RawQuery: q.Encode()}
	return u.String()
}

// Exec runs statements one by one as AdminUser, reading each to its end.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	for _, stmt := range stmts {
		if _, err := s.DB.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w\nstatement: %s", err, stmt)
		}
	}
	return nil
}

// NewSchema creates an empty schema with a unique name (prefix_N) in the
// memory catalog and returns its name; it is dropped with everything in
// it when t ends. It fails t when the server cannot create it.
func (s *Server) NewSchema(t testing.TB, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d", prefix, s.seq.Add(1))
	s.Schema(t, name)
	return name
}

// Schema creates the schema memory.name (a lower-case name: Trino stores
// identifiers lower-cased), for tests whose output names it (goldens); it
// is dropped with everything in it when t ends. Prefer NewSchema
// elsewhere. It fails t when the server cannot create it.
func (s *Server) Schema(t testing.TB, name string) {
	t.Helper()
	if err := s.Exec(context.Background(), `CREATE SCHEMA memory."`+name+`"`); err != nil {
		t.Fatalf("trinoserver: %v", err)
	}
	t.Cleanup(func() {
		_ = s.Exec(context.Background(), `DROP SCHEMA IF EXISTS memory."`+name+`" CASCADE`)
	})
}

// Restart kills the coordinator, as a crash or an eviction does, and
// starts it again on the same port with the same configuration, waiting
// as Start does. The memory catalog starts empty: its tables are gone.
// Not safe to call concurrently with Stop or another Restart.
func (s *Server) Restart() error {
	s.Kill()
	return s.start(s.opts)
}

// Kill kills the coordinator (SIGKILL) and waits until it has exited;
// Restart starts it again, Stop cleans up.
func (s *Server) Kill() {
	localproc.Kill(s.proc, s.exited)
}

// RSS is the JVM's resident memory in bytes (from /proc), 0 if unknown.
func (s *Server) RSS() int64 {
	return localproc.RSS(s.proc.Process.Pid)
}

// Stop kills the JVM (the data is throw-away, so no graceful shutdown) and
// removes the directory. Safe to call more than once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.DB != nil {
			s.DB.Close()
		}
		if s.proc != nil {
			_ = s.proc.Process.Kill()
			<-s.exited
		}
		_ = os.RemoveAll(s.dir)
	})
}

// Stale directories: each holds the pid of the test process that made it.
const (
	stalePrefix = "ossie-trino-"
	ownerFile   = "owner.pid"
)

// removeStale deletes directories left by test processes that no longer
// exist (their JVMs died with them).
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), stalePrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.RemoveAll(d)
		}
	}
}
