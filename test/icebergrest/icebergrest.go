// Package icebergrest starts an Apache Iceberg REST catalog for tests: the
// fixture the Iceberg project publishes on Maven Central
// (org.apache.iceberg:iceberg-open-api:<Version>:jar:test-fixtures, main
// class org.apache.iceberg.rest.RESTCatalogServer, the code of the
// apache/iceberg-rest-fixture image), with the runtime jars that
// scripts/iceberg-rest.sh resolved into bin/iceberg-rest/<Version>/lib.
// It is the catalog protocol Apache Polaris serves; its backend is a JDBC
// catalog on a SQLite file and its warehouse a directory of the local file
// system, both in a temporary directory removed at Stop.
//
// The server starts in about 3 s and stays under 200 MiB (heap capped at
// 256 MiB), so a test binary shares one:
//
//	func TestMain(m *testing.M) { os.Exit(icebergrest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		cat := icebergrest.Shared(t)
//		props := cat.TrinoCatalog() // etc/catalog/<name>.properties for Trino
//		...
//	}
//
// A test binary that dies without cleanup takes the JVM with it
// (parent-death signal: SIGKILL). When bin/iceberg-rest is missing the
// tests skip loudly, unless OSSIE_REQUIRE_TRINO=1 (the fixture is only used
// with the real Trino; `make test` sets it), which makes it a failure.
package icebergrest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/localproc"
)

// Version is the Iceberg release scripts/iceberg-rest.sh installs.
const Version = "1.10.0"

// Environment variables.
const (
	// HomeEnv points at an install made by scripts/iceberg-rest.sh (the
	// directory it prints); default: bin/iceberg-rest/<Version> of this
	// repository.
	HomeEnv = "OSSIE_ICEBERG_REST_HOME"
	// RequireEnv set to "1" turns a missing install into a failure: the
	// same variable as the real-Trino suites, whose Iceberg catalog this
	// is.
	RequireEnv = "OSSIE_REQUIRE_TRINO"
)

// ErrNotInstalled means no fixture install was found.
var ErrNotInstalled = errors.New("no Iceberg REST catalog fixture (run scripts/iceberg-rest.sh, or `make test`, which runs it)")

// startTimeout bounds a start on a busy shared machine.
const startTimeout = 2 * time.Minute

// Catalog is one running REST catalog server.
type Catalog struct {
	dir  string // temporary directory: warehouse/, catalog.db, server.log
	port int

	// StartDuration is how long Start took (process start to the first
	// answer of GET /v1/config).
	StartDuration time.Duration

	proc     *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
}

// Home finds the install: $OSSIE_ICEBERG_REST_HOME, else
// bin/iceberg-rest/<Version> of the repository holding this file. Error:
// ErrNotInstalled, wrapped with where it looked.
func Home() (string, error) {
	dir := os.Getenv(HomeEnv)
	where := "$" + HomeEnv + "=" + dir
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "bin", "iceberg-rest", Version)
		where = dir
	}
	for _, p := range []string{".complete", "lib"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return "", fmt.Errorf("%w: %s lacks %s", ErrNotInstalled, where, p)
		}
	}
	return filepath.Abs(dir)
}

// java is $JAVA_HOME/bin/java, else java on PATH (the fixture runs on
// Java 11 or later; Maven, which installed it, brought one).
func java() (string, error) {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		if p := filepath.Join(h, "bin", "java"); fileExists(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: no java on PATH nor in $JAVA_HOME", ErrNotInstalled)
	}
	return p, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Start starts a catalog on a free loopback port with an empty warehouse
// in a new temporary directory and waits until it answers (at most
// startTimeout). The caller must call Stop. Errors: ErrNotInstalled, or
// the failure with the end of the server log.
func Start() (*Catalog, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	javaBin, err := java()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ossie-iceberg-rest-")
	if err != nil {
		return nil, err
	}
	c := &Catalog{dir: dir}
	if err := os.MkdirAll(c.Warehouse(), 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// A port picked free can be taken before Jetty binds it; retry.
	for attempt := 0; ; attempt++ {
		if c.port, err = localproc.FreePort(); err == nil {
			err = c.start(home, javaBin)
		}
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Catalog) start(home, javaBin string) error {
	logf, err := os.Create(c.LogPath())
	if err != nil {
		return err
	}
	begin := time.Now()
	cmd := exec.Command(javaBin,
		"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
		"-cp", filepath.Join(home, "lib", "*"),
		"org.apache.iceberg.rest.RESTCatalogServer")
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// RESTCatalogServer reads its configuration from CATALOG_* variables
	// (CATALOG_REST_PORT is rest.port). Its backend is a JDBC catalog on
	// SQLite; not its default jdbc:sqlite::memory:, which gives each of
	// the catalog's pooled connections a database of its own (a namespace
	// made on one is missing on the other: "Failed to list namespaces"
	// now and then), but a file in the temporary directory.
	cmd.Env = append(os.Environ(),
		"CATALOG_REST_PORT="+strconv.Itoa(c.port),
		"CATALOG_WAREHOUSE="+c.WarehouseURI(),
		"CATALOG_URI=jdbc:sqlite:"+filepath.Join(c.dir, "catalog.db"),
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited, err := localproc.Spawn(cmd, logf)
	if err != nil {
		return fmt.Errorf("icebergrest: start java: %w", err)
	}
	c.proc, c.exited = cmd, exited
	// GET /v1/config is the first call of every REST catalog client.
	if err := localproc.WaitHTTP(c.URI()+"/v1/config", exited, startTimeout); err != nil {
		localproc.Kill(cmd, exited)
		return fmt.Errorf("icebergrest: the catalog did not start: %v\nend of %s:\n%s", err, c.LogPath(), localproc.Tail(c.LogPath(), 4000))
	}
	c.StartDuration = time.Since(begin)
	return nil
}

// URI is the catalog's base URI, http://127.0.0.1:PORT.
func (c *Catalog) URI() string { return "http://127.0.0.1:" + strconv.Itoa(c.port) }

// Warehouse is the local directory holding the tables' metadata and data.
func (c *Catalog) Warehouse() string { return filepath.Join(c.dir, "warehouse") }

// WarehouseURI is Warehouse as the catalog and Trino address it:
// file:///tmp/…/warehouse.
func (c *Catalog) WarehouseURI() string { return "file://" + c.Warehouse() }

// LogPath is the JVM's stdout and stderr.
func (c *Catalog) LogPath() string { return filepath.Join(c.dir, "server.log") }

// TrinoCatalog is the properties of a Trino catalog (Iceberg connector)
// reading this REST catalog, for trinoserver.Options.Catalogs: the REST
// catalog type at URI, and Trino's local file system (Trino docs, "Local
// file system support") rooted at / so that the file:// locations the
// catalog writes into its metadata resolve to the same files.
func (c *Catalog) TrinoCatalog() string {
	return strings.Join([]string{
		"connector.name=iceberg",
		"iceberg.catalog.type=rest",
		"iceberg.rest-catalog.uri=" + c.URI(),
		"fs.native-local.enabled=true",
		"local.location=/",
	}, "\n") + "\n"
}

// Stop kills the JVM (the catalog is throw-away) and removes the
// directory. Safe to call more than once.
func (c *Catalog) Stop() {
	c.stopOnce.Do(func() {
		if c.proc != nil {
			_ = c.proc.Process.Kill()
			<-c.exited
		}
		_ = os.RemoveAll(c.dir)
	})
}

var shared = &localproc.Shared[*Catalog]{
	Label: "icebergrest", What: "ICEBERG REST", RequireEnv: RequireEnv, Missing: ErrNotInstalled,
	Start: Start,
	Started: func(c *Catalog) string {
		return fmt.Sprintf("Iceberg %s REST catalog started on %s in %s", Version, c.URI(), c.StartDuration.Round(time.Millisecond))
	},
	Stop: (*Catalog).Stop,
}

// Shared returns the test binary's shared catalog, starting it on first
// use. Never stop it; Main does. A missing install skips the test loudly,
// unless OSSIE_REQUIRE_TRINO=1, which makes it a failure; any other start
// failure fails the test.
func Shared(t testing.TB) *Catalog { t.Helper(); return shared.Get(t) }

// Main runs the tests of a package and then stops the shared catalog if
// one was started. Use it from TestMain: os.Exit(icebergrest.Main(m)).
func Main(m *testing.M) int { return shared.Main(m) }

// StopShared stops the shared catalog, if it was started.
func StopShared() { shared.StopShared() }
