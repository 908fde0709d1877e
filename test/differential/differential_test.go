package differential

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/differential/gen"
	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/reference"
)

var (
	flagEngines = flag.String("engines", "", "comma-separated engines to run (default: duckdb,postgres,trino)")
	flagKube    = flag.Bool("kube", true, "run the Kubernetes-mode cells (a kube-apiserver and etcd for the test binary)")
	flagSeed    = flag.Int64("seed", 0, "run this generated seed only (with the hand cases and regressions left out)")
	flagN       = flag.Int64("seeds", FixedSeeds, "run the generated seeds 1..seeds (make differential N=...)")
)

// cellStats counts what ran, for the summary TestMain prints.
var cellStats = struct {
	sync.Mutex
	cases  map[string]bool
	ran    map[string]int // engine → cells checked
	passed map[string]int
	known  map[string]int // known failures, skipped
	na     int
	took   map[string]time.Duration // engine → loading, servers and cells
}{cases: map[string]bool{}, ran: map[string]int{}, passed: map[string]int{}, known: map[string]int{}, took: map[string]time.Duration{}}

// cell is one entry point × format: run gives its outcome for the
// session's case and engine.
type cell struct {
	name string
	run  func(ctx context.Context, s *session) (Outcome, error)
	kube bool // needs the kube-apiserver
	// unordered: the entry point has no row order (a view); rows compare
	// as a multiset.
	unordered bool
}

// cells in the order they run. A DuckDB file has one writer process at a
// time: the in-process cells run before the servers open it, and the
// local server stops before the Kubernetes-mode one starts.
var cells = []cell{
	{name: "ossiectl-json", run: func(ctx context.Context, s *session) (Outcome, error) {
		return RunOssiectl(ctx, s.c, s.files, s.p, "json")
	}},
	{name: "ossiectl-csv", run: func(ctx context.Context, s *session) (Outcome, error) {
		return RunOssiectl(ctx, s.c, s.files, s.p, "csv")
	}},
	{name: "governed-view", unordered: true, run: func(ctx context.Context, s *session) (Outcome, error) { return RunView(ctx, s.c, s.files, s.p) }},
	{name: "rollup", run: func(ctx context.Context, s *session) (Outcome, error) { return RunRollup(ctx, s.c, s.files, s.p) }},
	httpCell("http-json", "json", false), httpCell("http-csv", "csv", false), httpCell("http-arrow", "arrow", false),
	mcpCell("mcp", false),
	{name: "pgwire", run: func(ctx context.Context, s *session) (Outcome, error) {
		srv, _, _, refused := s.server(false)
		if refused != nil {
			return *refused, nil
		}
		return RunWire(ctx, srv, s.c)
	}},
	// The rollup cell through `server --models --rollups` (HTTP, JSON),
	// on a server of its own: the local one stops first.
	{name: "local-rollup", run: func(ctx context.Context, s *session) (Outcome, error) {
		s.stop(0)
		return RunLocalRollup(ctx, s.h.bin, s.t.TempDir(), s.c, s.files, s.p)
	}},
	httpCell("kube-json", "json", true), httpCell("kube-csv", "csv", true), httpCell("kube-arrow", "arrow", true),
	mcpCell("kube-mcp", true),
}

func httpCell(name, format string, kube bool) cell {
	return cell{name: name, kube: kube, run: func(ctx context.Context, s *session) (Outcome, error) {
		srv, path, _, refused := s.server(kube)
		if refused != nil {
			return *refused, nil
		}
		return RunHTTP(ctx, srv, s.c, path, format)
	}}
}

func mcpCell(name string, kube bool) cell {
	return cell{name: name, kube: kube, run: func(ctx context.Context, s *session) (Outcome, error) {
		srv, _, ns, refused := s.server(kube)
		if refused != nil {
			return *refused, nil
		}
		return RunMCP(ctx, srv, s.c, ns)
	}}
}

// session is one case on one engine: its place and files, and the
// servers, started on first use and stopped by close.
type session struct {
	t     *testing.T
	h     *harness
	c     dcase.Case
	p     Place
	files Files
	// servers: [0] local mode, [1] Kubernetes mode.
	srv     [2]*Proc
	refused [2]*Outcome
	started [2]bool
	ns      string
}

func newSession(t *testing.T, h *harness, c dcase.Case, engine string) *session {
	t.Helper()
	s := &session{t: t, h: h, c: c, p: h.place(t, engine, c)}
	var err error
	if s.files, err = WriteFiles(t.TempDir(), c); err != nil {
		t.Fatal(err)
	}
	return s
}

// server is the running server of the mode (local or Kubernetes), the
// model's path and namespace there; or the refusal every served cell
// reports when it does not start (a case that must be refused may be
// refused at load) or its artifact does not compile.
func (s *session) server(kube bool) (*Proc, string, string, *Outcome) {
	i := 0
	if kube {
		i = 1
		s.stop(0) // the DuckDB file's one writer
	}
	if !s.started[i] {
		s.started[i] = true
		s.srv[i], s.refused[i] = s.start(kube)
	}
	if kube {
		return s.srv[i], KubePath(s.ns, s.c.ModelName), s.ns, s.refused[i]
	}
	return s.srv[i], "/v1/models/" + s.c.ModelName, "", s.refused[i]
}

func (s *session) start(kube bool) (*Proc, *Outcome) {
	t := s.t
	tokens, token := "", ""
	if s.c.Caller != nil {
		var err error
		if tokens, token, err = TokensFile(t.TempDir(), s.c.Caller); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var srv *Proc
	var err error
	if kube {
		s.ns = fmt.Sprintf("%s-%s", s.p.Schema, s.p.Engine)
		o, err := s.h.kube.Publish(ctx, s.ns, s.files, s.p)
		if err != nil {
			t.Fatalf("publishing the artifact: %v", err)
		}
		if o != nil {
			return nil, o
		}
		srv, err = StartServer(ctx, s.h.bin, t.TempDir(), KubeServerArgs(s.h.kube.Kubeconfig, s.ns, s.p, tokens), ServesModel(s.ns, s.c.ModelName))
	} else {
		// The local server also serves the SQL endpoint (the pgwire cell).
		port, perr := localproc.FreePort()
		if perr != nil {
			t.Fatal(perr)
		}
		pgAddr := fmt.Sprintf("127.0.0.1:%d", port)
		srv, err = StartServer(ctx, s.h.bin, t.TempDir(), append(LocalServerArgs(s.c, s.files, s.p, tokens), "--pg-addr", pgAddr), nil)
		if err == nil {
			srv.PgAddr = pgAddr
		}
	}
	if err != nil {
		o := refusal(err.Error())
		return nil, &o
	}
	srv.Token = token
	return srv, nil
}

func (s *session) stop(i int) {
	if s.srv[i] != nil {
		if err := s.srv[i].Alive(); err != nil {
			s.t.Error(err)
		}
		s.srv[i].Stop()
		s.srv[i] = nil
	}
}

func (s *session) close() { s.stop(0); s.stop(1) }

// failure is a cell that failed, for the shrinking after the case.
type failure struct{ cell, engine string }

// checkCell runs one cell as the subtest name/engine and compares its
// outcome with the case's expectation; a known failure is skipped with its
// reason (and reported when it passes). It reports whether the cell failed.
func checkCell(t *testing.T, s *session, cl cell) bool {
	c, engine := s.c, s.p.Engine
	failed := false
	t.Run(cl.name+"/"+engine, func(t *testing.T) {
		o, err := cl.run(context.Background(), s)
		cellStats.Lock()
		cellStats.cases[label(c)] = true
		cellStats.Unlock()
		if errors.Is(err, ErrNotApplicable) {
			cellStats.Lock()
			cellStats.na++
			cellStats.Unlock()
			t.Skip(err)
		}
		check := func(o Outcome) error {
			c := c
			c.Ordered = c.Ordered && !cl.unordered
			return Check(c, o, strings.HasSuffix(cl.name, "-csv"), strings.HasPrefix(cl.name, "http-") || strings.HasPrefix(cl.name, "kube-") || cl.name == "local-rollup")
		}
		if err == nil {
			err = check(o)
		}
		cellStats.Lock()
		cellStats.ran[engine]++
		cellStats.Unlock()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		k := knownFailure(label(c), cl.name+"/"+engine, msg)
		reason := k.Reason
		switch {
		case err != nil && reason != "":
			cellStats.Lock()
			cellStats.known[engine]++
			cellStats.Unlock()
			t.Skipf("KNOWN FAILURE (%s):\n%v", reason, err)
		case err != nil:
			failed = true
			t.Errorf("%v\nreplay: %s", err, replayCommand(c, cl.name, engine))
		case reason != "":
			t.Logf("KNOWN FAILURE NO LONGER FAILS, remove it from the known list: %s", reason)
			fallthrough
		default:
			cellStats.Lock()
			cellStats.passed[engine]++
			cellStats.Unlock()
		}
	})
	return failed
}

// runCase runs every cell of c on every engine; the first failing cell is
// then shrunk and the minimal case printed once.
func runCase(t *testing.T, h *harness, c dcase.Case, reeval func(dcase.Case) (dcase.Case, error)) {
	var fails []failure
	for _, engine := range engines() {
		start := time.Now()
		s := newSession(t, h, c, engine)
		for _, cl := range cells {
			if cl.kube && h.kube == nil {
				continue
			}
			if checkCell(t, s, cl) {
				fails = append(fails, failure{cl.name, engine})
			}
		}
		s.close()
		cellStats.Lock()
		cellStats.took[engine] += time.Since(start)
		cellStats.Unlock()
	}
	if len(fails) > 0 {
		t.Logf("%d cells failed; the first, shrunk:\n%s", len(fails), shrinkReport(t, h, c, fails[0], reeval))
	}
}

// describe prints a case in full: model, governance, caller, tables, query
// and the expectation.
func describe(c dcase.Case) string {
	s := fmt.Sprintf("--- model (%s):\n%s", c.ModelName, c.Model)
	if c.Governance != nil {
		s += fmt.Sprintf("--- governance:\n%s", c.Governance)
	}
	if c.Caller != nil {
		s += fmt.Sprintf("--- caller: roles %v attributes %v\n", c.Caller.Roles, c.Caller.Attributes)
	}
	for _, tb := range c.Tables {
		s += fmt.Sprintf("--- table %s %v:%s\n", tb.Name, tb.Columns, dcase.Format(tb.Rows))
	}
	s += fmt.Sprintf("--- query: %s\n", c.Query)
	if c.WantCode != "" {
		s += "--- want: refused with " + c.WantCode
	} else if c.Want != nil {
		s += fmt.Sprintf("--- want (ordered=%v): %v%s", c.Ordered, c.Want.Columns, dcase.Format(c.Want.Rows))
	}
	return s
}

// FixedSeeds is how many generated seeds `make test` runs (1..FixedSeeds),
// besides the hand cases and the regression seeds.
const FixedSeeds = 12

// TestDifferential runs every case through every cell: the hand cases,
// the regression seeds, and the generated seeds 1..-seeds (or -seed alone).
func TestDifferential(t *testing.T) {
	h := getHarness(t)
	var seeds []int64
	if *flagSeed != 0 {
		seeds = []int64{*flagSeed}
	} else {
		for _, c := range handCases() {
			t.Run(c.Name, func(t *testing.T) { runCase(t, h, c, nil) })
		}
		rs, err := regressions()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, r := range rs {
			if !seen[r.Seed] {
				seen[r.Seed] = true
				seeds = append(seeds, r.Seed)
			}
		}
		for seed := int64(1); seed <= *flagN; seed++ {
			if !seen[seed] {
				seeds = append(seeds, seed)
			}
		}
	}
	for _, seed := range seeds {
		t.Run(seedName(seed), func(t *testing.T) {
			g := gen.GenerateWith(seed, gen.Options{})
			c := g.Case
			if c.Want == nil && c.WantCode == "" {
				t.Skipf("%s: the reference does not cover the case: %v", c.Name, g.Err)
			}
			runCase(t, h, c, regenerate(g))
		})
	}
}

// regenerate recomputes the expectation of a cut-down version of g's case
// with the reference evaluator (for shrinking): same model, governance and
// caller, the candidate's tables and query.
func regenerate(g *gen.Generated) func(dcase.Case) (dcase.Case, error) {
	return func(c dcase.Case) (dcase.Case, error) {
		want, err := reference.Evaluate(reference.Input{Model: g.Model, Governance: g.Governance, Caller: g.Case.Caller, Tables: c.Tables, Query: c.Query})
		c.Want, c.WantCode = want, ""
		var q struct {
			OrderBy []any `json:"order_by"`
		}
		_ = json.Unmarshal(c.Query, &q)
		c.Ordered = len(q.OrderBy) > 0
		if r, ok := err.(*reference.Refused); ok {
			c.WantCode = r.Code
		} else if err != nil {
			return c, err
		}
		return c, nil
	}
}

// label is a case's subtest name: seed=N for a generated case, its name
// for a hand case.
func label(c dcase.Case) string {
	if c.Seed != 0 {
		return seedName(c.Seed)
	}
	return c.Name
}
