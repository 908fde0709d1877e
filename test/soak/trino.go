package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ossie-dev/ossie/test/differential"
	"github.com/ossie-dev/ossie/test/differential/gen"
	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// Trino in the soak (Options.Trino). A real Trino coordinator
// (test/trinoserver) holds one more generated case in its memory catalog,
// served by a second server process in local mode (`server --models
// --engine trino`, the same tokens file, its own SQL endpoint); the load
// asks it like every other case. Its fault: the coordinator is killed
// with that case's questions in flight on every entry point and started
// again. Those questions, and all others meanwhile, are answered right
// or refused clearly; the memory catalog comes back empty, so until the
// soak loads the tables again the case's queries fail at the engine
// (excused, any refusal with a code); after that every entry point
// answers it right again.

// winEngineRestart: the Trino coordinator is down or its tables not yet
// loaded again.
const winEngineRestart = "engine restarted"

// addTrinoCase starts Trino and adds the first answerable seed from seed
// on whose query takes a limit (so that its in-flight questions are new)
// as a Trino case, loaded into schema t<seed> of the memory catalog.
func (w *world) addTrinoCase(ctx context.Context, seed int64) (*soakCase, error) {
	var err error
	if w.trino, err = trinoserver.Start(trinoserver.Options{}); err != nil {
		return nil, err
	}
	os.Setenv(differential.TrinoDSNEnv, w.trino.DSN("ossie", "memory", ""))
	for ; ; seed++ {
		g := gen.GenerateWith(seed, caseOptions)
		c := g.Case
		if c.Want == nil || !takesLimit(c.Query) {
			continue
		}
		name := fmt.Sprintf("t%d", seed)
		if err := rename(&c, name); err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		sc := &soakCase{Case: c, trino: true, variant: true, wireOK: true, Path: "/v1/models/" + name,
			Place: differential.Place{Engine: differential.Trino, Schema: name, Catalog: "memory", DSN: os.Getenv(differential.TrinoDSNEnv)}}
		if err := differential.LoadTrino(ctx, w.trino.DB, sc.Place, c.Tables); err != nil {
			return nil, fmt.Errorf("seed %d on Trino: %w", seed, err)
		}
		dir := filepath.Join(w.dir, "trino-case-"+strconv.FormatInt(seed, 10))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
		if sc.Files, err = differential.WriteFiles(dir, c); err != nil {
			return nil, err
		}
		_, mcpErr := differential.MCPArgs(c.Query, "", name)
		sc.mcpOK = mcpErr == nil
		return sc, nil
	}
}

// takesLimit: the query has no limit and no offset, so a new limit
// above its row count asks a new question with the same answer.
func takesLimit(query []byte) bool {
	var q map[string]any
	if json.Unmarshal(query, &q) != nil {
		return false
	}
	_, hasLimit := q["limit"]
	_, hasOffset := q["offset"]
	return !hasLimit && !hasOffset
}

// startTrinoServer starts the local-mode server of the Trino case.
func (w *world) startTrinoServer(ctx context.Context, c *soakCase) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := append(differential.LocalServerArgs(c.Case, c.Files, c.Place, w.tokensPath),
		"--auth-reload-interval", "200ms", "--pg-addr", addr,
		"--query-timeout", w.o.QueryTimeout.String(), "--max-rows", strconv.Itoa(maxRows),
		// As the other server: the questions a fault keeps in flight (one
		// per entry point) fit one caller's share.
		"--max-in-flight", "7", "--max-per-caller", "6")
	p, err := differential.StartServer(ctx, w.bin, w.dir, args, nil)
	if err != nil {
		return err
	}
	p.PgAddr = addr
	w.trinoProc = p
	return nil
}

// trinoCase is the Trino case (nil without Options.Trino).
func (w *world) trinoCase() *soakCase {
	for _, c := range w.cases {
		if c.trino {
			return c
		}
	}
	return nil
}

// restartTrino kills the coordinator with the Trino case's questions in
// flight and starts it again, then loads the case's tables again.
func (w *world) restartTrino(ctx context.Context, rec *recorder) {
	c := w.trinoCase()
	win := rec.open(winEngineRestart, c.Name)
	_, wait := w.sendInFlight(ctx, c)
	// The questions are sent: the server plans them and polls Trino for
	// their results, several round trips each.
	time.Sleep(20 * time.Millisecond)
	begin := time.Now()
	err := w.trino.Restart()
	w.o.Log("soak:   Trino restarted in %s", time.Since(begin).Round(100*time.Millisecond))
	inFlight := map[string]int{}
	for _, f := range wait() {
		rec.count(c.Name, f.ep, f.o, f.from, f.to)
		inFlight[f.o.label()]++
	}
	w.o.Log("soak:   the questions in flight: %s", sortedCounts(inFlight))
	if err != nil {
		rec.fail("starting Trino again: %v", err)
		rec.close(win)
		return
	}
	w.trinoReload.Lock()
	if err := differential.LoadTrino(ctx, w.trino.DB, c.Place, c.Tables); err != nil {
		rec.fail("loading %s's tables into Trino again: %v", c.Name, err)
	}
	w.trinoReload.Unlock()
	rec.close(win)
}
