package differential

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

var (
	flagEngines = flag.String("engines", "", "comma-separated engines to run (default: duckdb,postgres,trino)")
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
			err = Check(c, o, path.Base(cl.name) == "csv" || cl.name == "ossiectl-csv" || cl.name == "http-csv")
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
		runServed(t, h, c, files, p)
	}
}

// runServed starts `server --models` for c at p and runs the HTTP formats
// and the MCP query tool against it.
func runServed(t *testing.T, h *harness, c dcase.Case, files Files, p Place) {
	t.Helper()
	tokens, token := "", ""
	if c.Caller != nil {
		var err error
		if tokens, token, err = TokensFile(t.TempDir(), c.Caller); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	srv, err := StartServer(ctx, h.bin, t.TempDir(), LocalServerArgs(c, files, p, tokens), "")
	if err != nil {
		// The model does not load: every served cell reports the same
		// refusal (a case that must be refused may be refused at load).
		for _, f := range []string{"http-json", "http-csv", "http-arrow", "mcp"} {
			checkCell(t, c, p.Engine, cell{f, func(context.Context) (Outcome, error) { return refusal(err.Error()), nil }})
		}
		return
	}
	defer srv.Stop()
	srv.Token = token
	for _, f := range httpFormats {
		checkCell(t, c, p.Engine, cell{"http-" + f.Name, func(ctx context.Context) (Outcome, error) {
			return RunHTTP(ctx, srv, c, c.ModelName, f.Name)
		}})
	}
	checkCell(t, c, p.Engine, cell{"mcp", func(ctx context.Context) (Outcome, error) { return RunMCP(ctx, srv, c) }})
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
