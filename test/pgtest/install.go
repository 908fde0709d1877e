package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoBinaries means no PostgreSQL server installation was found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, postgres) not found")

// BinEnv names the environment variable that points at a PostgreSQL bin
// directory, overriding the search.
const BinEnv = "OSSIE_PG_BIN"

// DefaultBinDir is where the machine's PostgreSQL 15 lives (Debian layout).
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// BinDir finds the directory holding initdb and postgres: $OSSIE_PG_BIN,
// then /usr/lib/postgresql/15/bin, then the newest /usr/lib/postgresql/*/bin,
// then initdb on PATH. Error: ErrNoBinaries (wrapped with where it looked).
func BinDir() (string, error) {
	if d := os.Getenv(BinEnv); d != "" {
		if hasServer(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w in %s=%s", ErrNoBinaries, BinEnv, d)
	}
	if hasServer(DefaultBinDir) {
		return DefaultBinDir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasServer(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && hasServer(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("%w (looked in $%s, %s, /usr/lib/postgresql/*/bin, PATH)", ErrNoBinaries, BinEnv, DefaultBinDir)
}

func hasServer(dir string) bool {
	for _, b := range []string{"initdb", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// version extracts the major version from /usr/lib/postgresql/<v>/bin.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// postgresUser returns the credentials of the `postgres` OS user, which the
// harness switches to when it runs as root (PostgreSQL refuses root).
func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs an OS user named postgres to run the server as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("pgtest: bad uid/gid %q/%q for user postgres", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// chownTree gives the server's user the temporary directory.
func chownTree(root string, uid, gid int) error {
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// Stale directories: each server directory records the pid of the test
// process that made it. A test binary killed before its cleanup (timeout,
// SIGKILL) leaves the directory behind; its server shuts itself down via
// the parent-death signal. The next Start removes such leftovers.
const (
	stalePrefix = "ossie-pgtest-"
	ownerFile   = "owner.pid"
)

func removeStale() {
	removeStaleTemplates()
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), stalePrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created right now, or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		if serverRunning(d) {
			continue // still shutting down; a later run removes it
		}
		_ = os.RemoveAll(d)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// serverRunning reports whether the postmaster named in the data
// directory's postmaster.pid still runs.
func serverRunning(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	return err == nil && pid > 0 && alive(pid)
}
