package soak

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/test/differential"
	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/differential/gen"
	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// pgDSNEnv names the environment variable the server reads its
// PostgreSQL connection string from (--dsn-env): never a flag value.
const pgDSNEnv = "OSSIE_SOAK_PG_DSN"

// soakCase is one generated case as the soak serves it: its own model
// name, namespace and PostgreSQL schema, and its caller's token.
type soakCase struct {
	dcase.Case
	NS     string
	Place  differential.Place
	Files  differential.Files
	Path   string // the namespaced HTTP path of the model
	mcpOK  bool   // the MCP query tool carries the query
	wireOK bool   // the SQL endpoint carries the query
	trino  bool   // on Trino, served by trinoProc (trino.go)
	// variant: the query has no limit and no offset, so a large unique
	// limit asks a question never cached with the same answer.
	variant bool
	// role names the token the memory soak asks with (memory.go).
	role string
}

// world is everything the soak runs: PostgreSQL, etcd and kube-apiserver,
// the published cases, the tokens file and the server process.
type world struct {
	o      Options
	dir    string
	pg     *pgtest.Server
	env    *envtest.Environment
	kube   *differential.Kube
	kcfg   string
	cases  []*soakCase
	bin    string
	pgPort int

	tokensPath string
	tokens     atomic.Pointer[map[string]string] // case name -> token in use
	revoked    sync.Map                          // tokens rotated out -> true

	// held is the case whose tables a fault holds locked: the load pauses
	// meanwhile, so that exactly the fault's own queries are in flight
	// and all of them get an engine slot (8 connections).
	held atomic.Pointer[soakCase]

	// op is the operator and its case (operator.go).
	op *operatorRun
	// trino and trinoProc hold the Trino case (trino.go).
	trino     *trinoserver.Server
	trinoProc *differential.Proc
	// trinoReload is held while the Trino case's tables are loaded again;
	// its questions wait (read-locked) meanwhile.
	trinoReload sync.RWMutex

	mu   sync.Mutex
	proc *differential.Proc
	// restarts counts server starts after the first.
	restarts int
}

// caseOptions are the generator's options: every shape, governance
// included, none of the known bugs.
var caseOptions = gen.Options{}

// setUp starts PostgreSQL, the control plane and the server and
// publishes o.Seeds cases. On error what was started is left for
// tearDown.
func (w *world) setUp(ctx context.Context) error {
	var err error
	if w.dir, err = os.MkdirTemp("", "ossie-soak-"); err != nil {
		return err
	}
	if w.bin, err = differential.ServerBinary(kubetest.Root()); err != nil {
		return err
	}
	if w.pg, err = pgtest.Start(); err != nil {
		return err
	}
	if err := w.pg.Exec(ctx, "postgres", "CREATE DATABASE soak"); err != nil {
		return err
	}
	os.Setenv(pgDSNEnv, w.pg.DSN("soak"))
	if err := w.startControlPlane(); err != nil {
		return err
	}
	if w.kube, err = differential.NewKube(w.kcfg); err != nil {
		return err
	}
	// Bound like the operator binds before it publishes.
	if w.kube.Engine, err = connect.Open(ctx, connect.Options{Engine: "postgres", DSNEnv: pgDSNEnv}); err != nil {
		return err
	}
	for seed := int64(1); len(w.cases) < w.o.Cases; seed++ {
		if seed > int64(w.o.Cases)*4 {
			return fmt.Errorf("only %d of %d answerable cases in seeds 1..%d", len(w.cases), w.o.Cases, seed-1)
		}
		c, err := w.addCase(ctx, seed, false)
		if err != nil {
			return err
		}
		if c != nil {
			w.cases = append(w.cases, c)
		}
	}
	// The operator's case comes first: the ConfigMap faults of the soak
	// itself take the last case.
	for seed := int64(len(w.cases)) * 4; ; seed++ {
		c, err := w.addCase(ctx, seed, true)
		if err != nil {
			return err
		}
		if c != nil {
			if err := w.startOperator(ctx, c); err != nil {
				return err
			}
			w.cases = append([]*soakCase{c}, w.cases...)
			break
		}
	}
	var trinoCase *soakCase
	if w.o.Trino {
		if trinoCase, err = w.addTrinoCase(ctx, int64(len(w.cases))*8); err != nil {
			return err
		}
		// After the operator's case; the soak's own ConfigMap faults take
		// the last case, which must be published by the soak.
		w.cases = append([]*soakCase{w.cases[0], trinoCase}, w.cases[1:]...)
	}
	w.tokens.Store(ptr(w.freshTokens()))
	if err := w.writeTokens(*w.tokens.Load()); err != nil {
		return err
	}
	if w.pgPort, err = localproc.FreePort(); err != nil {
		return err
	}
	if err := w.startServer(ctx); err != nil {
		return err
	}
	if trinoCase != nil {
		return w.startTrinoServer(ctx, trinoCase)
	}
	return nil
}

// startControlPlane starts etcd and kube-apiserver with a certificate
// directory of our own: envtest keeps it across an API server restart, so
// the kubeconfig stays valid when the API server comes back.
func (w *world) startControlPlane() error {
	assets, err := kubetest.Assets()
	if err != nil {
		return err
	}
	certs := filepath.Join(w.dir, "apiserver-certs")
	if err := os.Mkdir(certs, 0o700); err != nil {
		return err
	}
	// controller-runtime logs through envtest; without a logger its first
	// line prints a warning with a stack trace.
	ctrllog.SetLogger(logr.Discard())
	w.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStopTimeout: 2 * time.Minute,
		CRDDirectoryPaths: []string{filepath.Join(kubetest.Root(), "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	// A kube-apiserver with watches open can take more than envtest's
	// default 20 s to stop on a loaded machine.
	w.env.ControlPlane.APIServer = &envtest.APIServer{CertDir: certs}
	// On SIGTERM kube-apiserver waits up to its request timeout (60 s by
	// default) for open connections such as the server's watches; the
	// soak's requests are short.
	w.env.ControlPlane.APIServer.Configure().Set("request-timeout", "5s")
	if _, err := w.env.Start(); err != nil {
		w.env = nil
		return err
	}
	w.kcfg = filepath.Join(w.dir, "kubeconfig")
	return os.WriteFile(w.kcfg, w.env.KubeConfig, 0o600)
}

// addCase generates seed's case and, when the reference answers it,
// gives it a model name of its own, loads its tables into a schema of its
// own and publishes its artifact in a namespace of its own (operated:
// the operator publishes it, in opNamespace). A case the reference
// refuses is skipped (nil): the soak checks answers.
func (w *world) addCase(ctx context.Context, seed int64, operated bool) (*soakCase, error) {
	g := gen.GenerateWith(seed, caseOptions)
	c := g.Case
	if c.Want == nil {
		return nil, nil
	}
	name := fmt.Sprintf("g%d", seed)
	if err := rename(&c, name); err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	ns := fmt.Sprintf("soak-%d", seed)
	if operated {
		ns = opNamespace
	}
	sc := &soakCase{Case: c, NS: ns,
		Place: differential.Place{Engine: differential.Postgres, Schema: fmt.Sprintf("s%d", seed), DSN: w.pg.DSN("soak")}}
	sc.Path = differential.KubePath(sc.NS, name)
	if err := differential.LoadPostgres(ctx, sc.Place, c.Tables); err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	dir := filepath.Join(w.dir, "case-"+strconv.FormatInt(seed, 10))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	var err error
	if sc.Files, err = differential.WriteFiles(dir, c); err != nil {
		return nil, err
	}
	if !operated {
		if err := w.publish(ctx, sc); err != nil {
			return nil, err
		}
	}
	_, mcpErr := differential.MCPArgs(c.Query, sc.NS, name)
	sc.mcpOK = mcpErr == nil
	sc.variant = takesLimit(c.Query)
	sc.wireOK = true // until the first baseline answer says otherwise
	return sc, nil
}

// rename gives c's model the name name, so that several cases of one
// generated shape are served side by side.
func rename(c *dcase.Case, name string) error {
	model := strings.Replace(string(c.Model), "\n  - name: "+c.ModelName+"\n", "\n  - name: "+name+"\n", 1)
	if model == string(c.Model) {
		return fmt.Errorf("the model name %q is not where the generator writes it", c.ModelName)
	}
	c.Model, c.ModelName = []byte(model), name
	return nil
}

// publish writes sc's artifact ConfigMap as the operator does.
func (w *world) publish(ctx context.Context, sc *soakCase) error {
	refused, err := w.kube.Publish(ctx, sc.NS, sc.Files, sc.Place)
	if err != nil {
		return err
	}
	if refused != nil {
		return fmt.Errorf("%s: the model does not compile: %s", sc.Name, refused.Text)
	}
	return nil
}

// freshTokens is a new random token per case.
func (w *world) freshTokens() map[string]string {
	m := map[string]string{}
	for _, c := range w.cases {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		m[c.Name] = hex.EncodeToString(b)
	}
	return m
}

// writeTokens replaces the tokens file (write then rename, as a Secret
// volume does) with an entry per case holding the caller's roles and
// attributes (an ungoverned case's caller gets the role "reader"), for
// each token map given (a rotation lists the old and the new one).
func (w *world) writeTokens(maps ...map[string]string) error {
	var b strings.Builder
	b.WriteString("tokens:\n")
	for i, m := range maps {
		if m == nil {
			continue
		}
		for _, c := range w.cases {
			roles, attrs := []string{`"reader"`}, []string{}
			if c.Caller != nil {
				roles = roles[:0]
				for _, r := range c.Caller.Roles {
					roles = append(roles, strconv.Quote(r))
				}
				for k, v := range c.Caller.Attributes {
					attrs = append(attrs, strconv.Quote(k)+": "+strconv.Quote(v))
				}
			}
			fmt.Fprintf(&b, "  - {name: %q, token: %q, roles: [%s], attributes: {%s}}\n",
				fmt.Sprintf("%s-%d", c.ModelName, i), m[c.Name], strings.Join(roles, ", "), strings.Join(attrs, ", "))
		}
	}
	if w.tokensPath == "" {
		w.tokensPath = filepath.Join(w.dir, "tokens.yaml")
	}
	return replaceFile(w.tokensPath, []byte(b.String()))
}

// replaceFile writes data next to path and renames it over path.
func replaceFile(path string, data []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// serverArgs are the server's flags: Kubernetes mode over every case's
// namespace, PostgreSQL, the tokens file reloaded every 200 ms, the SQL
// endpoint, a small result cache and the soak's query timeout.
func (w *world) serverArgs() []string {
	var ns []string
	for _, c := range w.cases {
		if !c.trino {
			ns = append(ns, c.NS)
		}
	}
	return []string{"--kube", "--kubeconfig", w.kcfg, "--namespaces", strings.Join(ns, ","),
		"--engine", "postgres", "--dsn-env", pgDSNEnv,
		"--tokens-file", w.tokensPath, "--auth-reload-interval", "200ms",
		"--pg-addr", fmt.Sprintf("127.0.0.1:%d", w.pgPort),
		"--cache-bytes", strconv.FormatInt(w.o.CacheBytes, 10),
		"--query-timeout", w.o.QueryTimeout.String(), "--max-rows", strconv.Itoa(maxRows),
		// The pool's 8 connections less one for /readyz; one caller may
		// hold 6 of them (the 5 queries a fault keeps in flight).
		"--max-in-flight", "7", "--max-per-caller", "6"}
}

// startServer starts the server and waits until it serves every case.
func (w *world) startServer(ctx context.Context) error {
	ready := func(ctx context.Context, p *differential.Proc) bool {
		for _, c := range w.cases {
			if !c.trino && !differential.ServesModel(c.NS, c.ModelName)(ctx, p) {
				return false
			}
		}
		return true
	}
	p, err := differential.StartServer(ctx, w.bin, w.dir, w.serverArgs(), ready)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.proc != nil {
		w.restarts++
	}
	w.proc = p
	w.mu.Unlock()
	return nil
}

// server is the server process now running (or last run).
func (w *world) server() *differential.Proc {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proc
}

// tearDown stops everything setUp started.
func (w *world) tearDown() {
	if p := w.server(); p != nil {
		p.Stop()
	}
	w.stopOperator()
	if w.trinoProc != nil {
		w.trinoProc.Stop()
	}
	if w.trino != nil {
		w.trino.Stop()
	}
	if w.kube != nil && w.kube.Engine != nil {
		w.kube.Engine.Close()
	}
	if w.env != nil {
		_ = w.env.Stop()
	}
	if w.pg != nil {
		_ = w.pg.Stop()
	}
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cond()
}
