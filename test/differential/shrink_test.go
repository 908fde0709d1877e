package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Shrinking budget: attempts (each loads the tables and runs one cell) and
// wall time.
const (
	shrinkRuns = 60
	shrinkTime = 90 * time.Second
)

// replayCommand is the one line that reruns one cell of c.
func replayCommand(c dcase.Case, cellName, engine string) string {
	cmd := fmt.Sprintf("go test ./test/differential -run 'TestDifferential/^%s$/^%s$/^%s$' -args -engines=%s", label(c), cellName, engine, engine)
	if c.Seed != 0 {
		cmd += fmt.Sprintf(" -seed=%d", c.Seed)
	}
	return cmd
}

// shrinkReport is the failure's footer: the case cut down while the cell
// still fails (rows, then dimensions, filters and metrics of the query),
// printed in full, and the replay line.
// reevaluate recomputes a cut-down case's expectation (the reference
// evaluator); nil (a hand case) leaves the case unshrunk, since a smaller
// case without its own expectation proves nothing.
func shrinkReport(t *testing.T, h *harness, c dcase.Case, f failure, reevaluate func(dcase.Case) (dcase.Case, error)) string {
	min, note := c, "not shrunk: no reference evaluator to recompute a smaller case's expectation"
	if reevaluate != nil {
		var runs int
		min, runs = shrink(t, h, c, f, reevaluate)
		note = fmt.Sprintf("shrunk in %d runs of %s/%s (%d of %d rows left)", runs, f.cell, f.engine, rowCount(min), rowCount(c))
	}
	return fmt.Sprintf("seed %d, %s\n%s\n%s\nreplay: %s", c.Seed, c.Name, describe(min), note, replayCommand(c, f.cell, f.engine))
}

func rowCount(c dcase.Case) int {
	n := 0
	for _, t := range c.Tables {
		n += len(t.Rows)
	}
	return n
}

// shrink is a greedy reduction: the first smaller candidate whose cell
// still fails replaces the case, until none does or the budget is spent.
func shrink(t *testing.T, h *harness, c dcase.Case, f failure, reevaluate func(dcase.Case) (dcase.Case, error)) (dcase.Case, int) {
	var cl cell
	for _, x := range cells {
		if x.name == f.cell {
			cl = x
		}
	}
	deadline := time.Now().Add(shrinkTime)
	runs := 0
	cur := c
	for improved := true; improved; {
		improved = false
		for _, cand := range candidates(cur) {
			if runs >= shrinkRuns || time.Now().After(deadline) {
				return cur, runs
			}
			next, err := reevaluate(cand)
			if err != nil || (next.WantCode != "") != (c.WantCode != "") {
				continue
			}
			runs++
			if stillFails(t, h, next, cl, f.engine) {
				cur, improved = next, true
				break
			}
		}
	}
	return cur, runs
}

func stillFails(t *testing.T, h *harness, c dcase.Case, cl cell, engine string) bool {
	s := newSession(t, h, c, engine)
	defer s.close()
	o, err := cl.run(context.Background(), s)
	if errors.Is(err, ErrNotApplicable) {
		return false
	}
	return err != nil || Check(c, o, strings.HasSuffix(cl.name, "-csv"), strings.HasPrefix(cl.name, "http-") || strings.HasPrefix(cl.name, "kube-")) != nil
}

// candidates are the cases one step smaller than c: half, then quarter…
// then single rows of a table dropped; one dimension, filter or metric of
// the query dropped.
func candidates(c dcase.Case) []dcase.Case {
	var out []dcase.Case
	for ti, tb := range c.Tables {
		for size := max(len(tb.Rows)/2, 1); size >= 1 && len(tb.Rows) > 0; size /= 2 {
			for start := 0; start+size <= len(tb.Rows); start += size {
				cand := c
				cand.Tables = append([]dcase.Table(nil), c.Tables...)
				rows := append(append([][]any(nil), tb.Rows[:start]...), tb.Rows[start+size:]...)
				cand.Tables[ti].Rows = rows
				out = append(out, cand)
			}
		}
	}
	var q map[string]any
	if json.Unmarshal(c.Query, &q) != nil {
		return out
	}
	for _, key := range []string{"dimensions", "filters", "metrics", "order_by"} {
		list, _ := q[key].([]any)
		for i := range list {
			if key == "metrics" && len(list) == 1 && q["dimensions"] == nil {
				continue
			}
			m := map[string]any{}
			for k, v := range q {
				m[k] = v
			}
			rest := append(append([]any(nil), list[:i]...), list[i+1:]...)
			if len(rest) == 0 && key != "metrics" {
				delete(m, key)
			} else {
				m[key] = rest
			}
			b, err := json.Marshal(m)
			if err != nil {
				continue
			}
			cand := c
			cand.Query = b
			out = append(out, cand)
		}
	}
	return out
}
