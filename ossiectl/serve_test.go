package ossiectl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
)

func TestServeAuthUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--models", "../server/testdata/shop.yaml", "--addr", ":0"},
		{"serve", "--models", "../server/testdata/shop.yaml", "--addr", "0.0.0.0:0"},
		{"serve", "--models", "../server/testdata/shop.yaml", "--no-auth", "--tokens-file", "x"},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, ExitUsage, errs)
		}
	}
	code, _, errs := run(t, "", "serve", "--models", "../server/testdata/shop.yaml", "--tokens-file", filepath.Join(t.TempDir(), "none.yaml"), "--addr", "127.0.0.1:0")
	if code != ExitProblems || !strings.Contains(errs, "none.yaml") {
		t.Errorf("missing tokens file: exit %d\n%s", code, errs)
	}
}

// TestServePassesAuthAndGovernance runs `ossiectl serve` with a tokens
// file and a governance file: no token is 401, a token plans under its
// role. It stops the command with SIGINT, as a user would.
func TestServePassesAuthAndGovernance(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	const token = "ossiectl-serve-token-0123456789"
	if err := os.WriteFile(tokens, []byte("tokens:\n  - {name: ca, token: "+token+", roles: [state_analyst], attributes: {state: CA}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", "../server/testdata/shop.yaml", "--governance", "../server/testdata/shop.governance.yaml",
			"--tokens-file", tokens, "--addr", addr}, strings.NewReader(""), &out, &errb)
	})
	srv.WaitServing(t)
	if code, body := srv.Call("GET", "/v1/models", "", ""); code != 401 {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, body := srv.Call("GET", "/v1/models/shop", "", token); code != 200 || strings.Contains(body, "avg_amount") {
		t.Errorf("detail under the role: %d %s", code, body)
	}
	// The SQL preview is refused exactly when the caller is governed, so a
	// 403 OSS5007 proves the governance file and the token's role arrived.
	if code, body := srv.Call("POST", "/v1/models/shop/sql", `{"metrics":["order_count"]}`, token); code != 403 || !strings.Contains(body, "OSS5007") {
		t.Errorf("sql under the role: %d %s", code, body)
	}
	interruptServe(t, srv, &errb)
	if strings.Contains(errb.String(), token) {
		t.Error("the log shows the token")
	}
}

// TestServeReloadsModelFiles: `ossiectl serve` picks up an edit of its
// model file while serving, keeps serving through a broken edit (shown in
// /readyz), and the explorer page and /mcp are served too.
func TestServeReloadsModelFiles(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "shop.yaml")
	orig, err := os.ReadFile("../server/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", model, "--addr", addr}, strings.NewReader(""), &out, &errb)
	})
	srv.WaitServing(t)
	if code, body := srv.Call("GET", "/", "", ""); code != 200 || !strings.Contains(body, "Ossie explorer") {
		t.Errorf("explorer: %d %.100s", code, body)
	}
	waitFor := func(what string, cond func(string) bool, path string) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, body := srv.Call("GET", path, "", "")
			if cond(body) {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20s; last %s", what, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	edited := strings.Replace(string(orig), "Orders of a small shop", "Orders of a bigger shop", 1)
	if err := os.WriteFile(model, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("the edit serves", func(b string) bool { return strings.Contains(b, "bigger shop") }, "/v1/models")
	if err := os.WriteFile(model, []byte(strings.Replace(edited, "COUNT(orders.order_id)", "NOSUCHFUNC(orders.order_id)", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	body := waitFor("the refusal in /readyz", func(b string) bool { return strings.Contains(b, "OSS3003") }, "/readyz")
	if _, models := srv.Call("GET", "/v1/models", "", ""); !strings.Contains(models, "bigger shop") {
		t.Errorf("a broken edit replaced the serving model: %s (readyz %s)", models, body)
	}
	interruptServe(t, srv, &errb)
}

// TestServeLimitFlags: `ossiectl serve` takes the query caps and load
// limits as flags (--help lists them; a negative one is a usage error);
// --max-filters 1 refuses a two-filter plan with the limit named.
func TestServeLimitFlags(t *testing.T) {
	code, help, _ := run(t, "", "serve", "--help")
	for _, f := range []string{"--max-in-flight", "--max-queued", "--queue-wait", "--max-per-caller", "--max-filters", "--max-filter-values", "--max-order-keys", "--max-dimensions", "--max-metrics"} {
		if code != 0 || !strings.Contains(help, f) {
			t.Errorf("serve --help (exit %d) does not list %s", code, f)
		}
	}
	if code, _, errs := run(t, "", "serve", "--models", "../server/testdata/shop.yaml", "--max-in-flight", "-2", "--addr", "127.0.0.1:0"); code != ExitUsage || !strings.Contains(errs, "--max-in-flight must not be negative") || strings.Contains(errs, "serving without authentication") {
		// A wrong command line is only its usage error: nothing is opened
		// or logged first.
		t.Errorf("negative --max-in-flight: exit %d %s", code, errs)
	}
	var out, errb bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", "../server/testdata/shop.yaml", "--addr", addr, "--max-filters", "1"}, strings.NewReader(""), &out, &errb)
	})
	srv.WaitServing(t)
	q := `{"metrics":["order_count"],"filters":[{"field":"orders.status","op":"=","values":["paid"]},{"field":"customers.state","op":"=","values":["CA"]}]}`
	if code, body := srv.Call("POST", "/v1/models/shop/sql", q, ""); code != 400 || !strings.Contains(body, "OSS4020") || !strings.Contains(body, "2 filters, over the limit of 1") {
		t.Errorf("two filters with --max-filters 1: %d %s", code, body)
	}
	interruptServe(t, srv, &errb)
}

// interruptServe stops a serve started by servertest.Start as Ctrl-C
// does (SIGINT to this process) and checks it exits 0; log is its stderr.
func interruptServe(t *testing.T, srv *servertest.Command, log *bytes.Buffer) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit %d after SIGINT\n%s", code, log.String())
	}
}

// TestServeResultCache: `ossiectl serve` keeps a result cache as
// bin/server does: the same question asked twice is answered from it the
// second time ("cached": true), with the engine's numbers; --cache-bytes 0
// turns it off; a negative bound is a usage error.
func TestServeResultCache(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shop.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(context.Background(), servertest.ShopTables); err != nil {
		t.Fatal(err)
	}
	var want int64
	if err := eng.DB().QueryRow(`SELECT count(*) FROM orders`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	if code, _, errs := run(t, "", "serve", "--models", "../server/testdata/shop.yaml", "--cache-bytes", "-1", "--addr", "127.0.0.1:0"); code != ExitUsage || !strings.Contains(errs, "--cache-bytes") {
		t.Errorf("negative --cache-bytes: exit %d %s", code, errs)
	}
	const q = `{"metrics":["order_count"]}`
	for _, c := range []struct {
		flags        []string
		secondCached bool
	}{{nil, true}, {[]string{"--cache-bytes", "0"}, false}} {
		var out, errb bytes.Buffer
		srv := servertest.Start(t, func(addr string) int {
			return Do(append([]string{"serve", "--models", "../server/testdata/shop.yaml", "--duckdb", db, "--addr", addr}, c.flags...), strings.NewReader(""), &out, &errb)
		})
		srv.WaitServing(t)
		for i, cached := range []bool{false, c.secondCached} {
			code, body := srv.Call("POST", "/v1/models/shop/query", q, "")
			var ans struct {
				Cached bool      `json:"cached"`
				Rows   [][]int64 `json:"rows"`
			}
			if err := json.Unmarshal([]byte(body), &ans); code != 200 || err != nil || ans.Cached != cached || len(ans.Rows) != 1 || ans.Rows[0][0] != want {
				t.Errorf("%v, ask %d: %d %s; want cached %v and %d orders", c.flags, i+1, code, body, cached, want)
			}
		}
		interruptServe(t, srv, &errb)
	}
}
