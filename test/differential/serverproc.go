package differential

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/localproc"
)

// binaries are the commands built for this test binary, in one
// temporary directory: name -> its build.
var binaries struct {
	mu    sync.Mutex
	dir   string
	built map[string]*binaryBuild
}

type binaryBuild struct {
	once sync.Once
	path string
	err  error
}

// Binary builds ./cmd/<name> of the module at root once per test binary
// into a temporary directory and returns its path: the entry points that
// serve run as the real process (its flags, its wiring, its signals), not
// a copy of main.
func Binary(root, name string) (string, error) {
	binaries.mu.Lock()
	if binaries.built == nil {
		binaries.built = map[string]*binaryBuild{}
	}
	b := binaries.built[name]
	if b == nil {
		b = &binaryBuild{}
		binaries.built[name] = b
	}
	if binaries.dir == "" {
		dir, err := os.MkdirTemp("", "ossie-differential-")
		if err != nil {
			binaries.mu.Unlock()
			return "", err
		}
		binaries.dir = dir
	}
	dir := binaries.dir
	binaries.mu.Unlock()
	b.once.Do(func() {
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/"+name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cmd/%s: %v\n%s", name, err, out)
		}
	})
	return b.path, b.err
}

// ServerBinary is Binary(root, "server").
func ServerBinary(root string) (string, error) { return Binary(root, "server") }

// RemoveServerBinary removes the built binaries (TestMain calls it).
func RemoveServerBinary() {
	binaries.mu.Lock()
	defer binaries.mu.Unlock()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
}

// Proc is a running server process.
type Proc struct {
	Addr string
	// PgAddr is the SQL endpoint's address (--pg-addr), "" when not served.
	PgAddr string
	Token  string // bearer token of the case's caller, "" ungoverned
	cmd    *exec.Cmd
	done   chan struct{}
	log    string
}

// TokensFile writes a tokens file mapping one fresh token to the caller's
// roles and attributes (docs/server.md), and returns its path and the token.
func TokensFile(dir string, c *dcase.Caller) (string, string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token := hex.EncodeToString(b)
	var attrs []string
	for _, k := range sortedKeys(c.Attributes) {
		attrs = append(attrs, fmt.Sprintf("%q: %q", k, c.Attributes[k]))
	}
	roles := make([]string, len(c.Roles))
	for i, r := range c.Roles {
		roles[i] = fmt.Sprintf("%q", r)
	}
	doc := fmt.Sprintf("tokens:\n  - {name: caller, token: %q, roles: [%s], attributes: {%s}}\n", token, strings.Join(roles, ", "), strings.Join(attrs, ", "))
	path := filepath.Join(dir, "tokens.yaml")
	return path, token, os.WriteFile(path, []byte(doc), 0o600)
}

// LocalServerArgs are the flags of `server --models` for c at p (without
// --addr): the result cache off, so that every cell is a trip to the
// engine.
func LocalServerArgs(c dcase.Case, files Files, p Place, tokens string) []string {
	args := []string{"--models", files.Model, "--cache-bytes", "0"}
	args = append(args, engineArgs(p)...)
	if files.Governance != "" {
		args = append(args, "--governance", files.Governance)
	}
	if tokens != "" {
		args = append(args, "--tokens-file", tokens)
	}
	return args
}

// StartServer runs bin with args on a free loopback port, its output in
// dir/server-N.log, and waits until ready says it serves (nil: until
// /healthz answers 200). A port is free only when it is picked: another
// process, or a port the caller picked for args a moment before (the SQL
// endpoint's), may take it before the server binds it, so a server that
// exits with "address already in use" is started again on a new port, up
// to three times.
func StartServer(ctx context.Context, bin, dir string, args []string, ready func(context.Context, *Proc) bool) (*Proc, error) {
	for attempt := 1; ; attempt++ {
		p, err := startServerOnce(ctx, bin, dir, args, ready)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			return p, err
		}
	}
}

// startServerOnce is StartServer's one attempt.
func startServerOnce(ctx context.Context, bin, dir string, args []string, ready func(context.Context, *Proc) bool) (*Proc, error) {
	port, err := localproc.FreePort()
	if err != nil {
		return nil, err
	}
	p := &Proc{Addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan struct{})}
	logf, err := os.CreateTemp(dir, "server-*.log")
	if err != nil {
		return nil, err
	}
	p.log = logf.Name()
	p.cmd = exec.Command(bin, append(args, "--addr", p.Addr)...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); logf.Close(); close(p.done) }()
	if ready == nil {
		ready = func(ctx context.Context, p *Proc) bool {
			code, _, _ := p.Get(ctx, "/healthz")
			return code == http.StatusOK
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ready(ctx, p) {
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("server exited before serving: %s", p.Log())
		case <-ctx.Done():
			p.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("server not ready within 60s: %s", p.Log())
		}
	}
}

// Log is the process's output so far.
func (p *Proc) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// Stop sends SIGTERM and waits for the process to exit (SIGKILL after 20s).
func (p *Proc) Stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Get sends GET path and returns the status and body.
func (p *Proc) Get(ctx context.Context, path string) (int, []byte, error) {
	code, body, _, err := p.Do(ctx, http.MethodGet, path, "", nil)
	return code, body, err
}

// Do sends method path with body (JSON) and accept to the server, with
// the caller's bearer token, and returns the status, the whole body and
// the headers with the trailers merged in.
func (p *Proc) Do(ctx context.Context, method, path, accept string, body []byte) (int, []byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+p.Addr+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if p.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		// An answer cut after its first bytes: the body is incomplete.
		return resp.StatusCode, b, nil, fmt.Errorf("reading the body: %w", err)
	}
	hdr := resp.Header.Clone()
	for k, vs := range resp.Trailer {
		hdr[k] = vs
	}
	return resp.StatusCode, b, hdr, nil
}

// HTTP formats and their media types (server/format/respond.go negotiates them).
var httpFormats = []struct{ Name, Accept string }{
	{"json", "application/json"},
	{"csv", "text/csv"},
	{"arrow", "application/vnd.apache.arrow.stream"},
}

// RunHTTP posts c's query body to modelPath/query (/v1/models/{model} or
// the namespaced path) asking for
// format and decodes the answer with a reader that is not ours
// (encoding/json, encoding/csv, arrow-go's ipc reader). A non-200 status
// is a refusal with the problem document's codes.
func RunHTTP(ctx context.Context, p *Proc, c dcase.Case, modelPath, format string) (Outcome, error) {
	accept := ""
	for _, f := range httpFormats {
		if f.Name == format {
			accept = f.Accept
		}
	}
	if accept == "" {
		return Outcome{}, fmt.Errorf("format %q", format)
	}
	code, body, hdr, err := p.Do(ctx, http.MethodPost, modelPath+"/query", accept, c.Query)
	if err != nil {
		return Outcome{}, err
	}
	if code != http.StatusOK {
		return refusal(fmt.Sprintf("HTTP %d: %s", code, body)), nil
	}
	var res dcase.Result
	switch format {
	case "json":
		res, err = DecodeJSON(body)
	case "csv":
		res, err = DecodeCSV(body, c.Want)
	case "arrow":
		res, err = DecodeArrow(body)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("%w\nbody: %.2000s", err, body)
	}
	if format != "json" {
		// CSV and Arrow carry the row count and total in the
		// Ossie-Row-Count and Ossie-Total headers or trailers; the reader
		// must have found every row the server counted.
		if v := hdr.Get("Ossie-Row-Count"); v != strconv.Itoa(len(res.Rows)) {
			return Outcome{}, fmt.Errorf("%s: Ossie-Row-Count %q, the reader found %d rows\nbody: %.2000q", format, v, len(res.Rows), body)
		}
		if v := hdr.Get("Ossie-Total"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Outcome{}, fmt.Errorf("Ossie-Total %q: %w", v, err)
			}
			res.Total = &n
		}
	}
	return answer(res), nil
}

// PID is the server's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Signal sends sig to the server (SIGTERM to drain, SIGKILL to lose
// everything not durable) without waiting.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Exited is closed once the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// ExitCode is the exit status once Exited is closed (-1 when a signal
// ended the process).
func (p *Proc) ExitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// errExited is returned for a server that is no longer running.
var errExited = errors.New("the server exited")

// Alive reports errExited (with its log) when the process has exited.
func (p *Proc) Alive() error {
	select {
	case <-p.done:
		return fmt.Errorf("%w: %s", errExited, p.Log())
	default:
		return nil
	}
}
