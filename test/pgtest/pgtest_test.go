package pgtest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/test/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func connect(t *testing.T, dsn string) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

func TestDatabasesAreIsolated(t *testing.T) {
	s := pgtest.Shared(t)
	t.Logf("shared server start took %s", s.StartDuration)
	begin := time.Now()
	a, b := s.NewDatabase(t), s.NewDatabase(t)
	t.Logf("two databases created in %s", time.Since(begin))
	if a == b {
		t.Fatalf("NewDatabase returned the same DSN twice: %s", a)
	}
	ca, err := connect(t, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Exec(context.Background(), "CREATE TABLE only_in_a (x int); INSERT INTO only_in_a VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	cb, err := connect(t, b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cb.Exec(context.Background(), "SELECT * FROM only_in_a")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("table of database a visible in b, or unexpected error: %v", err)
	}
}

func TestPasswordIsRequired(t *testing.T) {
	s := pgtest.Shared(t)
	if len(s.Password()) < 16 {
		t.Fatalf("generated password too short: %q", s.Password())
	}
	wrong := strings.Replace(s.AdminDSN(), s.Password(), "not-the-password", 1)
	_, err := connect(t, wrong)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" {
		t.Fatalf("wrong password: want invalid_password (28P01), got %v", err)
	}
	if _, err := connect(t, s.AdminDSN()); err != nil {
		t.Fatalf("right password refused: %v", err)
	}
}

func TestStopAndStartKeepData(t *testing.T) {
	s := pgtest.Private(t)
	t.Logf("private server start took %s", s.StartDuration)
	dsn := s.NewDatabase(t)
	c, err := connect(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	if err := s.StopServer(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stop took %s", time.Since(begin))
	if _, err := connect(t, dsn); err == nil {
		t.Fatal("connected to a stopped server")
	}
	begin = time.Now()
	if err := s.StartServer(); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %s", time.Since(begin))
	c, err = connect(t, dsn)
	if err != nil {
		t.Fatalf("after StartServer: %v", err)
	}
	var x int
	if err := c.QueryRow(context.Background(), "SELECT x FROM kept").Scan(&x); err != nil || x != 42 {
		t.Fatalf("data after restart: x=%d err=%v", x, err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t, dsn); err != nil {
		t.Fatalf("after Restart: %v", err)
	}
}

func TestStopRemovesDirectory(t *testing.T) {
	s, err := pgtest.Start()
	if err != nil {
		pgtest.SkipOrFail(t, err)
	}
	dir := s.LogPath()[:strings.LastIndex(s.LogPath(), "/")]
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("directory %s still exists after Stop (%v)", dir, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := s.StartServer(); err == nil {
		t.Fatal("StartServer after Stop succeeded")
	}
}

// TestStartRemovesLeftovers: a directory left by a test binary that died
// (its owner pid no longer runs) is removed by the next Start.
func TestStartRemovesLeftovers(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	left, err := os.MkdirTemp("", "ossie-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "owner.pid"), []byte(strconv.Itoa(dead.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	live, err := os.MkdirTemp("", "ossie-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)
	if err := os.WriteFile(filepath.Join(live, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	pgtest.Private(t)
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("leftover of a dead test binary still exists (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("directory of a running process was removed: %v", err)
	}
}

func TestBinDirOverride(t *testing.T) {
	t.Setenv(pgtest.BinEnv, t.TempDir())
	if _, err := pgtest.BinDir(); !errors.Is(err, pgtest.ErrNoBinaries) {
		t.Fatalf("empty %s: want ErrNoBinaries, got %v", pgtest.BinEnv, err)
	}
	if _, err := pgtest.Start(); !errors.Is(err, pgtest.ErrNoBinaries) {
		t.Fatalf("Start without binaries: want ErrNoBinaries, got %v", err)
	}
	t.Setenv(pgtest.BinEnv, pgtest.DefaultBinDir)
	if d, err := pgtest.BinDir(); err != nil || d != pgtest.DefaultBinDir {
		t.Skipf("machine without %s: %v", pgtest.DefaultBinDir, err)
	}
}
