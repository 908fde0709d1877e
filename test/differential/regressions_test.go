package differential

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// regression is one line of testdata/regressions.txt.
type regression struct {
	Seed   int64
	Known  bool
	Cell   string
	Note   string
	LineNo int
}

var regressions = sync.OnceValues(func() ([]regression, error) {
	return readRegressions("testdata/regressions.txt")
})

// readRegressions parses the file: SEED STATUS CELL NOTE per line,
// comments and blank lines skipped.
func readRegressions(path string) ([]regression, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []regression
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			return nil, &lineError{path, n, "want SEED STATUS CELL NOTE"}
		}
		seed, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return nil, &lineError{path, n, "SEED " + strconv.Quote(fs[0]) + " is not an integer"}
		}
		r := regression{Seed: seed, Cell: fs[2], Note: strings.Join(fs[3:], " "), LineNo: n}
		switch fs[1] {
		case "known":
			r.Known = true
		case "fixed":
		default:
			return nil, &lineError{path, n, "STATUS " + strconv.Quote(fs[1]) + " is neither known nor fixed"}
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

type lineError struct {
	path string
	line int
	msg  string
}

func (e *lineError) Error() string { return e.path + ":" + strconv.Itoa(e.line) + ": " + e.msg }

// regressionKnown are the known failures of the regression seeds.
func regressionKnown() []known {
	rs, _ := regressions()
	var out []known
	for _, r := range rs {
		if r.Known {
			out = append(out, known{Case: seedName(r.Seed), Cell: r.Cell, Reason: r.Note})
		}
	}
	return out
}

// seedName is the subtest name of a generated case.
func seedName(seed int64) string { return "seed=" + strconv.FormatInt(seed, 10) }

func TestRegressionsFileParses(t *testing.T) {
	if _, err := regressions(); err != nil {
		t.Fatal(err)
	}
	if _, err := readRegressions(writeTemp(t, "12 maybe - x\n")); err == nil || !strings.Contains(err.Error(), ":1: STATUS") {
		t.Errorf("a bad STATUS: %v", err)
	}
}

func writeTemp(t *testing.T, s string) string {
	p := t.TempDir() + "/r.txt"
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
