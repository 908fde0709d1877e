package differential

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) {
	begin := time.Now()
	// DuckDB reads the first ask of a SQL text through Arrow (built with
	// duckdb_arrow) and, with no answer counted large, every later ask (by
	// the next cell of the same process) row by row: both fetch paths are
	// compared with the reference on every answer asked twice.
	os.Setenv(duckdb.ArrowMinRowsEnv, strconv.Itoa(math.MaxInt32))
	code := m.Run()
	fmt.Fprintf(os.Stderr, "differential: %s wall time; %s\n", time.Since(begin).Round(time.Millisecond), summary())
	trinoserver.StopShared()
	pgtest.StopShared()
	RemoveServerBinary()
	os.Exit(code)
}

// summary counts the cases and cells that ran, per engine.
func summary() string {
	cellStats.Lock()
	defer cellStats.Unlock()
	s := fmt.Sprintf("%d cases", len(cellStats.cases))
	for _, e := range Engines {
		if cellStats.ran[e] > 0 {
			s += fmt.Sprintf("; %s: %d cells checked, %d passed, %d known failures, %s (tables, servers, cells)", e, cellStats.ran[e], cellStats.passed[e], cellStats.known[e], cellStats.took[e].Round(time.Millisecond))
		}
	}
	return s + fmt.Sprintf("; %d cells not applicable", cellStats.na)
}

// harness holds what every case of a test binary shares: one PostgreSQL
// database and Trino's memory catalog (each case in a schema of its own),
// the built server binary, and a directory for the DuckDB files.
type harness struct {
	dir     string
	bin     string
	trinoDB *sql.DB
	kube    *Kube // nil with -kube=false
	seq     int
}

var (
	sharedHarness *harness
	harnessOnce   sync.Once
)

// engines is the engines to run: -engines, default all three.
func engines() []string {
	if *flagEngines == "" {
		return Engines
	}
	return strings.Split(*flagEngines, ",")
}

func getHarness(t *testing.T) *harness {
	t.Helper()
	harnessOnce.Do(func() {
		h := &harness{}
		var err error
		if h.dir, err = os.MkdirTemp("", "ossie-differential-data-"); err != nil {
			t.Fatal(err)
		}
		if h.bin, err = ServerBinary(kubetest.Root()); err != nil {
			t.Fatal(err)
		}
		for _, e := range engines() {
			switch e {
			case Postgres:
				pg := pgtest.Shared(t)
				name := fmt.Sprintf("differential_%d", os.Getpid())
				if err := pg.Exec(context.Background(), "postgres", "CREATE DATABASE "+quoteIdent(name)); err != nil {
					t.Fatal(err)
				}
				os.Setenv(PostgresDSNEnv, pg.DSN(name))
			case Trino:
				tr := trinoserver.Shared(t)
				h.trinoDB = tr.DB
				os.Setenv(TrinoDSNEnv, tr.DSN("ossie", "memory", ""))
			}
		}
		if *flagKube {
			_, kubeconfig := kubetest.Start(t)
			if h.kube, err = NewKube(kubeconfig); err != nil {
				t.Fatal(err)
			}
		}
		sharedHarness = h
	})
	if sharedHarness == nil {
		t.Fatal("the harness failed to start (see the first test)")
	}
	return sharedHarness
}

// place makes a fresh place for one case on engine and loads its tables.
func (h *harness) place(t *testing.T, engine string, c dcase.Case) Place {
	t.Helper()
	h.seq++
	p := Place{Engine: engine, Schema: fmt.Sprintf("c%d", h.seq)}
	ctx := context.Background()
	var err error
	switch engine {
	case DuckDB:
		// The file's name is its catalog's: never the schema's.
		if err = os.Mkdir(filepath.Join(h.dir, p.Schema), 0o700); err != nil {
			t.Fatal(err)
		}
		p.DuckDBPath = filepath.Join(h.dir, p.Schema, "data.duckdb")
		err = LoadDuckDB(ctx, p, c.Tables)
	case Postgres:
		p.DSN = os.Getenv(PostgresDSNEnv)
		err = LoadPostgres(ctx, p, c.Tables)
	case Trino:
		p.DSN, p.Catalog = os.Getenv(TrinoDSNEnv), "memory"
		err = LoadTrino(ctx, h.trinoDB, p, c.Tables)
	default:
		t.Fatalf("no engine %q", engine)
	}
	if err != nil {
		t.Fatalf("loading the tables into %s: %v", engine, err)
	}
	return p
}
