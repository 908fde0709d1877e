package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/test/differential"
)

// step is one fault of the sequence; it returns once the fault is over
// (the runner then checks that every case is answered again).
type step struct {
	name string
	run  func(context.Context, *recorder)
}

// sequence is the scripted order of faults, one at a time.
func (w *world) sequence() []step {
	steps := []step{
		{"PostgreSQL restart mid-query", w.restartPostgres},
		{"SIGTERM with queries in flight", w.drainServer},
		{"SIGKILL and restart", w.killServer},
		{"artifact ConfigMap corrupted", w.corruptConfigMap},
		{"artifact ConfigMap deleted", w.deleteConfigMap},
		{"tokens file rotated and corrupted", w.rotateTokens},
		{"tokens file deleted", w.deleteTokens},
		{"kube-apiserver away and back", w.apiServerAway},
		{"result cache filled", w.fillCache},
		{"operator: its ConfigMap corrupted and deleted", w.operatorConfigMap},
		{"operator: its table renamed away and back", w.operatorDrift},
	}
	if w.trinoCase() != nil {
		steps = append(steps, step{"Trino restart mid-query", w.restartTrino})
	}
	return steps
}

// lockedCase is the case whose tables a lock holds so that its queries
// stay in flight: one whose query takes a limit (variant) and answers
// fewer than 150 rows, so that each request is a question the cache has
// never seen with the case's answer.
func (w *world) lockedCase() *soakCase {
	for _, c := range w.cases {
		if c.variant && !c.trino && len(c.Want.Rows) < 150 {
			return c
		}
	}
	return nil
}

// lock takes an ACCESS EXCLUSIVE lock on every table of c in a
// transaction of its own: every engine query of c waits until release.
func (w *world) lock(ctx context.Context, c *soakCase) (release func(), err error) {
	conn, err := pgx.Connect(ctx, w.pg.DSN("soak"))
	if err != nil {
		return nil, err
	}
	tx, err := conn.Begin(ctx)
	if err == nil {
		for _, t := range c.Tables {
			if _, err = tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{c.Place.Schema, t.Name}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				break
			}
		}
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return func() {
		_ = tx.Commit(context.Background())
		conn.Close(context.Background())
	}, nil
}

// waiting is how many sessions of the soak database wait on a lock.
func (w *world) waiting(ctx context.Context) int {
	conn, err := pgx.Connect(ctx, w.pg.DSN("postgres"))
	if err != nil {
		return -1
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'soak' AND wait_event_type = 'Lock'").Scan(&n); err != nil {
		return -1
	}
	return n
}

// sessions describes the soak database's sessions (for a failure).
func (w *world) sessions(ctx context.Context) string {
	conn, err := pgx.Connect(ctx, w.pg.DSN("postgres"))
	if err != nil {
		return err.Error()
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT coalesce(wait_event_type, '') || '/' || coalesce(state, '') || ': ' || left(query, 80) FROM pg_stat_activity WHERE datname = 'soak'")
	if err != nil {
		return err.Error()
	}
	var out []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

// flight is one request sent while c's tables are locked.
type flight struct {
	ep       string
	o        outcome
	from, to time.Time
}

// sendInFlight sends one new question of c per applicable entry point
// and returns a function that waits for their outcomes.
func (w *world) sendInFlight(ctx context.Context, c *soakCase) (n int, wait func() []flight) {
	var eps []string
	for _, ep := range entryPoints {
		if (ep == epMCP && !c.mcpOK) || (ep == epWire && !c.wireOK) {
			continue
		}
		eps = append(eps, ep)
	}
	out := make([]flight, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := time.Now()
			limit := nextLimit()
			if ep == epMCP {
				limit = mcpLimit()
			}
			o := w.ask(ctx, c, ep, w.token(c), limit)
			out[i] = flight{ep: ep, o: o, from: from, to: time.Now()}
		}()
	}
	return len(eps), func() []flight { wg.Wait(); return out }
}

// holdInFlight locks c's tables, sends the in-flight questions and waits
// until PostgreSQL shows them waiting (at least n sessions).
func (w *world) holdInFlight(ctx context.Context, rec *recorder, c *soakCase) (release func(), wait func() []flight, ok bool) {
	w.held.Store(c)
	release, err := w.lock(ctx, c)
	if err != nil {
		w.held.Store(nil)
		rec.fail("locking %s's tables: %v", c.Name, err)
		return nil, nil, false
	}
	n, waitAll := w.sendInFlight(ctx, c)
	wait = func() []flight {
		defer w.held.Store(nil)
		return waitAll()
	}
	if !waitFor(15*time.Second, func() bool { return w.waiting(ctx) >= n }) {
		release()
		wait()
		rec.fail("the %d queries of %s never waited on the lock in PostgreSQL (%d waiting; sessions: %s)", n, c.Name, w.waiting(ctx), w.sessions(ctx))
		return nil, nil, false
	}
	return release, wait, true
}

// restartPostgres restarts PostgreSQL (fast shutdown: sessions are
// terminated) while queries wait in it: they must fail clearly (503 or
// 504) or be answered right, and every case is answered again after.
func (w *world) restartPostgres(ctx context.Context, rec *recorder) {
	c := w.lockedCase()
	if c == nil {
		rec.fail("no case takes a limit: nothing can be held in flight")
		return
	}
	release, wait, ok := w.holdInFlight(ctx, rec, c)
	if !ok {
		return
	}
	if err := w.pg.StopServer(); err != nil {
		rec.fail("stopping PostgreSQL: %v", err)
	}
	release()
	for _, f := range wait() {
		rec.count(c.Name, f.ep, f.o, f.from, f.to)
	}
	sleepCtx(ctx, w.o.Load/2) // load meets a PostgreSQL that is down
	if err := w.pg.StartServer(); err != nil {
		rec.fail("starting PostgreSQL again: %v", err)
	}
}

// drainServer sends SIGTERM while queries wait in PostgreSQL: the server
// must keep running until they are answered (right), then exit 0.
func (w *world) drainServer(ctx context.Context, rec *recorder) {
	c := w.lockedCase()
	if c == nil {
		return
	}
	release, wait, ok := w.holdInFlight(ctx, rec, c)
	if !ok {
		return
	}
	down := rec.open(winServerDown, "")
	defer rec.close(down)
	p := w.server()
	_ = p.Signal(syscall.SIGTERM)
	sleepCtx(ctx, 500*time.Millisecond)
	select {
	case <-p.Exited():
		rec.fail("the server exited within 500 ms of SIGTERM with queries in flight")
	default:
	}
	release()
	for _, f := range wait() {
		rec.count(c.Name, f.ep, f.o, f.from, f.to)
		if f.o.class != "answer" {
			rec.fail("a query in flight at SIGTERM was not answered: %s: %s", f.o.label(), f.o.detail)
		}
	}
	select {
	case <-p.Exited():
		if code := p.ExitCode(); code != 0 {
			rec.fail("the server exited %d after SIGTERM, want 0; its log: %s", code, tail(p.Log()))
		}
	case <-time.After(40 * time.Second):
		rec.fail("the server did not exit within 40 s of SIGTERM")
		_ = p.Signal(syscall.SIGKILL)
		<-p.Exited()
	}
	w.restart(ctx, rec)
}

// restart starts the server again.
func (w *world) restart(ctx context.Context, rec *recorder) {
	if err := w.startServer(ctx); err != nil {
		rec.fail("starting the server again: %v", err)
	}
}

// killServer sends SIGKILL under load, starts the server again and
// checks it serves exactly the versions it served before: nothing
// durable lived in the process.
func (w *world) killServer(ctx context.Context, rec *recorder) {
	before, err := w.served(ctx)
	if err != nil {
		rec.fail("/readyz before SIGKILL: %v", err)
	}
	down := rec.open(winServerDown, "")
	defer rec.close(down)
	p := w.server()
	_ = p.Signal(syscall.SIGKILL)
	<-p.Exited()
	sleepCtx(ctx, w.o.Load/2)
	w.restart(ctx, rec)
	after, err := w.served(ctx)
	if err != nil {
		rec.fail("/readyz after SIGKILL: %v", err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		rec.fail("served before SIGKILL %v, after the restart %v", before, after)
	}
}

// served is /readyz's models: namespace/name -> what it says of each.
func (w *world) served(ctx context.Context) (map[string]string, error) {
	code, body, err := w.server().Get(ctx, "/readyz")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/readyz %d: %s", code, body)
	}
	var ready struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(body, &ready); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range ready.Models {
		out[k] = string(v)
	}
	return out, nil
}

// versionOf is the version in a /readyz model entry.
func versionOf(entry string) string {
	var m struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal([]byte(entry), &m)
	return m.Version
}

// configMapName is the artifact ConfigMap of c (the operator's name).
func configMapName(c *soakCase) string { return "ossie-" + c.ModelName }

// corruptConfigMap overwrites a case's bundle with bytes that are no
// bundle: the server must say so (ossie_server_model_load_error) and
// keep serving the last good version, answered right.
func (w *world) corruptConfigMap(ctx context.Context, rec *recorder) {
	c := w.cases[len(w.cases)-1]
	before, _ := w.served(ctx)
	cms := w.kube.Clientset().CoreV1().ConfigMaps(c.NS)
	cm, err := cms.Get(ctx, configMapName(c), metav1.GetOptions{})
	if err != nil {
		rec.fail("reading %s's ConfigMap: %v", c.Name, err)
		return
	}
	cm.BinaryData[v1alpha1.ArtifactKey] = []byte("\x1f\x8b not a bundle")
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		rec.fail("corrupting %s's ConfigMap: %v", c.Name, err)
		return
	}
	if !waitFor(20*time.Second, func() bool { return w.loadError(ctx, c) }) {
		rec.fail("the server never reported the corrupt artifact of %s (ossie_server_model_load_error)", c.Name)
	}
	sleepCtx(ctx, w.o.Load)
	after, _ := w.served(ctx)
	key := c.NS + "/" + c.ModelName
	if v := versionOf(before[key]); v == "" || v != versionOf(after[key]) {
		rec.fail("after the corrupt artifact /readyz says %s of %s, before %s", after[key], key, before[key])
	}
}

// loadError reports whether /metrics says c's newest artifact is refused.
func (w *world) loadError(ctx context.Context, c *soakCase) bool {
	_, body, err := w.server().Get(ctx, "/metrics")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "ossie_server_model_load_error{") && strings.Contains(line, c.NS) && strings.HasSuffix(line, " 1") {
			return true
		}
	}
	return false
}

// deleteConfigMap deletes a case's ConfigMap: its model stops being
// served (404 OSS5003, the operator's finalizer does this when a
// SemanticModel is deleted) while every other model is answered; the
// operator publishing it again brings it back.
func (w *world) deleteConfigMap(ctx context.Context, rec *recorder) {
	w.republish(ctx, rec, w.cases[len(w.cases)-1], 20*time.Second)
}

// republish deletes c's ConfigMap, waits until c is no longer served,
// publishes it again and waits until it is.
func (w *world) republish(ctx context.Context, rec *recorder, c *soakCase, within time.Duration) {
	gone := rec.open(winModelGone, c.Name)
	defer rec.close(gone)
	cms := w.kube.Clientset().CoreV1().ConfigMaps(c.NS)
	if err := cms.Delete(ctx, configMapName(c), metav1.DeleteOptions{}); err != nil {
		rec.fail("deleting %s's ConfigMap: %v", c.Name, err)
		return
	}
	if !waitFor(within, func() bool {
		code, _, _, err := w.asCaller(c).Do(ctx, http.MethodGet, c.Path, "", nil)
		return err == nil && code == http.StatusNotFound
	}) {
		rec.fail("%s still served %s after its ConfigMap was deleted", c.Name, within)
	}
	if err := w.publish(ctx, c); err != nil {
		rec.fail("publishing %s again: %v", c.Name, err)
		return
	}
	if !waitFor(within, func() bool { return differential.ServesModel(c.NS, c.ModelName)(ctx, w.server()) }) {
		rec.fail("%s not served %s after it was published again", c.Name, within)
	}
}

// asCaller is the server process with c's caller's token.
func (w *world) asCaller(c *soakCase) *differential.Proc {
	p := *w.server()
	p.Token = w.token(c)
	return &p
}

// status is GET /v1/models with token on every server process (the
// Trino case's too: they read one tokens file): the status they all
// answer, or 0 while they differ or one cannot be asked.
func (w *world) status(ctx context.Context, token string) int {
	procs := []*differential.Proc{w.server()}
	if w.trinoProc != nil {
		procs = append(procs, w.trinoProc)
	}
	agreed := 0
	for i, proc := range procs {
		p := *proc
		p.Token = token
		code, _, _, err := p.Do(ctx, http.MethodGet, "/v1/models", "", nil)
		if err != nil || (i > 0 && code != agreed) {
			return 0
		}
		agreed = code
	}
	return agreed
}

// rotateTokens rotates every token the way an operator rotates a Secret:
// old and new both valid, clients switch, the old ones removed (they must
// then get 401 within a reload); then a corrupt tokens file must leave
// the last good tokens in force.
func (w *world) rotateTokens(ctx context.Context, rec *recorder) {
	old, fresh := *w.tokens.Load(), w.freshTokens()
	probe := w.cases[0].Name
	if err := w.writeTokens(old, fresh); err != nil {
		rec.fail("%v", err)
		return
	}
	if !waitFor(10*time.Second, func() bool { return w.status(ctx, fresh[probe]) == http.StatusOK }) {
		rec.fail("a new token was not accepted within 10 s of the rotation")
	}
	w.tokens.Store(&fresh)
	for _, t := range old {
		// A request that read its token just before the switch may
		// still carry an old one: its 401 is right.
		w.revoked.Store(t, true)
	}
	if err := w.writeTokens(fresh); err != nil {
		rec.fail("%v", err)
		return
	}
	if !waitFor(10*time.Second, func() bool { return w.status(ctx, old[probe]) == http.StatusUnauthorized }) {
		rec.fail("a rotated-out token was still accepted 10 s after it left the tokens file")
	}
	if err := replaceFile(w.tokensPath, []byte("tokens: [{name: x, token: [[[\n")); err != nil {
		rec.fail("%v", err)
		return
	}
	sleepCtx(ctx, w.o.Load) // load runs on the last good tokens
	if code := w.status(ctx, fresh[probe]); code != http.StatusOK {
		rec.fail("with a corrupt tokens file the last good token got %d, want 200", code)
	}
	if err := w.writeTokens(fresh); err != nil {
		rec.fail("%v", err)
	}
}

// deleteTokens deletes the tokens file: every credential is revoked (401)
// until it is back, then every caller is answered again.
func (w *world) deleteTokens(ctx context.Context, rec *recorder) {
	cur := *w.tokens.Load()
	probe := cur[w.cases[0].Name]
	win := rec.open(winNoTokens, "")
	defer rec.close(win)
	if err := os.Remove(w.tokensPath); err != nil {
		rec.fail("%v", err)
		return
	}
	if !waitFor(10*time.Second, func() bool { return w.status(ctx, probe) == http.StatusUnauthorized }) {
		rec.fail("a token was still accepted 10 s after the tokens file was deleted")
	}
	sleepCtx(ctx, w.o.Load/2)
	if err := w.writeTokens(cur); err != nil {
		rec.fail("%v", err)
		return
	}
	if !waitFor(10*time.Second, func() bool { return w.status(ctx, probe) == http.StatusOK }) {
		rec.fail("the token was not accepted again within 10 s of the tokens file's return")
	}
}

// apiServerAway stops kube-apiserver under load (every model must keep
// being answered from what the server holds), starts it again, and
// checks the server's watch came back: a ConfigMap deleted and published
// again afterwards is seen.
func (w *world) apiServerAway(ctx context.Context, rec *recorder) {
	api := w.env.ControlPlane.APIServer
	begin := time.Now()
	err := api.Stop()
	w.o.Log("soak:   kube-apiserver stopped in %s", time.Since(begin).Round(100*time.Millisecond))
	if err != nil {
		rec.fail("stopping kube-apiserver: %v", err)
		return
	}
	sleepCtx(ctx, w.o.Load)
	w.recover(ctx, rec) // answered while the API server is away
	if err := api.Start(); err != nil {
		rec.fail("starting kube-apiserver again: %v", err)
		return
	}
	// The last case: the first is the operator's, which writes its own
	// ConfigMap back.
	w.republish(ctx, rec, w.cases[len(w.cases)-1], 90*time.Second)
}

// fillCache asks many questions never asked before (each a new cache
// entry, more than --cache-bytes holds) from four clients at once.
func (w *world) fillCache(ctx context.Context, rec *recorder) {
	var variants []*soakCase
	for _, c := range w.cases {
		if c.variant {
			variants = append(variants, c)
		}
	}
	if len(variants) == 0 {
		return
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < w.o.CacheFill/4; i++ {
				c := variants[(g+i)%len(variants)]
				from := time.Now()
				o := w.ask(ctx, c, epJSON, w.token(c), nextLimit())
				rec.count(c.Name, epJSON, o, from, time.Now())
			}
		}(g)
	}
	wg.Wait()
}

// tail is the end of a log.
func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}
