package differential

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

var (
	flagEngines = flag.String("engines", "", "comma-separated engines to run (default: duckdb,postgres,trino)")
	flagKube    = flag.Bool("kube", true, "run the Kubernetes-mode cells (a kube-apiserver and etcd for the test binary)")
)

// cellStats counts what ran, for the summary TestMain prints.
var cellStats = struct {
	sync.Mutex
	cases  map[string]bool
	ran    map[string]int // engine → cells checked
	passed map[string]int
	known  map[string]int // known failures, skipped
	na     int
	took   map[string]time.Duration
}{cases: map[string]bool{}, ran: map[string]int{}, passed: map[string]int{}, known: map[string]int{}, took: map[string]time.Duration{}}

// runner is one entry point × format: run gives the cell's outcome.
type cell struct {
	name string
	run  func(ctx context.Context) (Outcome, error)
}

// checkCell runs one cell as the subtest name/engine and compares its
// outcome with the case's expectation; a known failure is skipped with its
// reason (and reported when it passes).
func checkCell(t *testing.T, c dcase.Case, engine string, cl cell) {
	t.Run(cl.name+"/"+engine, func(t *testing.T) {
		start := time.Now()
		o, err := cl.run(context.Background())
		cellStats.Lock()
		cellStats.cases[c.Name] = true
		cellStats.took[engine] += time.Since(start)
		cellStats.Unlock()
		if errors.Is(err, ErrNotApplicable) {
			cellStats.Lock()
			cellStats.na++
			cellStats.Unlock()
			t.Skip(err)
		}
		if err == nil {
			err = Check(c, o, strings.HasSuffix(cl.name, "-csv"))
		}
		cellStats.Lock()
		cellStats.ran[engine]++
		cellStats.Unlock()
		reason := knownFailure(c.Name, cl.name+"/"+engine)
		switch {
		case err != nil && reason != "":
			cellStats.Lock()
			cellStats.known[engine]++
			cellStats.Unlock()
			t.Skipf("KNOWN FAILURE (%s):\n%v", reason, err)
		case err != nil:
			t.Errorf("%v\n%s", err, replay(c, cl.name, engine))
		case reason != "":
			t.Logf("KNOWN FAILURE NO LONGER FAILS, remove it from the known list: %s", reason)
			fallthrough
		default:
			cellStats.Lock()
			cellStats.passed[engine]++
			cellStats.Unlock()
		}
	})
}

// runCase runs every cell of c on every engine.
func runCase(t *testing.T, h *harness, c dcase.Case) {
	for _, engine := range engines() {
		p := h.place(t, engine, c)
		files, err := WriteFiles(t.TempDir(), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"json", "csv"} {
			checkCell(t, c, engine, cell{"ossiectl-" + format, func(ctx context.Context) (Outcome, error) {
				return RunOssiectl(ctx, c, files, p, format)
			}})
		}
		checkCell(t, c, engine, cell{"governed-view", func(ctx context.Context) (Outcome, error) {
			return RunView(ctx, c, files, p)
		}})
		runServed(t, h, c, files, p)
		if h.kube != nil {
			runKube(t, h, c, files, p)
		}
	}
}

// runServed starts `server --models` for c at p and runs the HTTP formats
// and the MCP query tool against it.
func runServed(t *testing.T, h *harness, c dcase.Case, files Files, p Place) {
	t.Helper()
	tokens, token := tokensFor(t, c)
	served(t, c, p.Engine, "http-", "mcp", "/v1/models/"+c.ModelName, "", token, func() (*Proc, error) {
		return StartServer(context.Background(), h.bin, t.TempDir(), LocalServerArgs(c, files, p, tokens), nil)
	})
}

// runKube publishes c's artifact for p in a namespace of its own and runs
// the HTTP formats and the MCP query tool against `server --kube`
// watching it.
func runKube(t *testing.T, h *harness, c dcase.Case, files Files, p Place) {
	t.Helper()
	ns := fmt.Sprintf("%s-%s", p.Schema, p.Engine)
	o, err := h.kube.Publish(context.Background(), ns, files, p)
	if err != nil {
		t.Fatalf("publishing the artifact: %v", err)
	}
	if o != nil { // the documents do not compile: nothing is published
		for _, f := range []string{"kube-json", "kube-csv", "kube-arrow", "kube-mcp"} {
			checkCell(t, c, p.Engine, cell{f, func(context.Context) (Outcome, error) { return *o, nil }})
		}
		return
	}
	tokens, token := tokensFor(t, c)
	served(t, c, p.Engine, "kube-", "kube-mcp", KubePath(ns, c.ModelName), ns, token, func() (*Proc, error) {
		return StartServer(context.Background(), h.bin, t.TempDir(), KubeServerArgs(h.kube.Kubeconfig, ns, p, tokens), ServesModel(ns, c.ModelName))
	})
}

// tokensFor writes the tokens file of c's caller: its path and the token,
// both "" for an ungoverned case.
func tokensFor(t *testing.T, c dcase.Case) (string, string) {
	if c.Caller == nil {
		return "", ""
	}
	tokens, token, err := TokensFile(t.TempDir(), c.Caller)
	if err != nil {
		t.Fatal(err)
	}
	return tokens, token
}

// served runs the HTTP formats (cells prefix+format) and the MCP query
// tool (cell mcpCell) against the server start gives. A server that does
// not start is every cell's refusal (a case that must be refused may be
// refused at load).
func served(t *testing.T, c dcase.Case, engine, prefix, mcpCell, modelPath, ns, token string, start func() (*Proc, error)) {
	t.Helper()
	names := []string{prefix + "json", prefix + "csv", prefix + "arrow", mcpCell}
	srv, err := start()
	if err != nil {
		for _, f := range names {
			checkCell(t, c, engine, cell{f, func(context.Context) (Outcome, error) { return refusal(err.Error()), nil }})
		}
		return
	}
	defer srv.Stop()
	srv.Token = token
	for _, f := range httpFormats {
		checkCell(t, c, engine, cell{prefix + f.Name, func(ctx context.Context) (Outcome, error) {
			return RunHTTP(ctx, srv, c, modelPath, f.Name)
		}})
	}
	checkCell(t, c, engine, cell{mcpCell, func(ctx context.Context) (Outcome, error) { return RunMCP(ctx, srv, c, ns) }})
	if err := srv.Alive(); err != nil {
		t.Error(err)
	}
}

// replay is the failure's footer: the case, shrunk where it can be, and
// the command that replays it.
func replay(c dcase.Case, cellName, engine string) string {
	return fmt.Sprintf("case %s\n%s\nreplay: go test ./test/differential -run 'TestDifferential/%s/%s/%s'%s",
		c.Name, describe(c), c.Name, cellName, engine, seedArg(c))
}

func seedArg(c dcase.Case) string {
	if c.Seed == 0 {
		return ""
	}
	return fmt.Sprintf(" -args -seed=%d", c.Seed)
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

func TestDifferential(t *testing.T) {
	h := getHarness(t)
	for _, c := range handCases() {
		t.Run(c.Name, func(t *testing.T) { runCase(t, h, c) })
	}
}
