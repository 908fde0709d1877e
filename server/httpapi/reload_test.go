package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// reloadFixture serves a copy of testdata/shop.yaml and its governance
// file from a temporary directory, watched by WatchModelFiles.
type reloadFixture struct {
	dir, model, gov string
	srv             *server.Server
	rel             *server.Reloader
	logs            *syncBuffer
	ts              *httptest.Server
}

func newReloadFixture(t *testing.T) *reloadFixture {
	t.Helper()
	f := &reloadFixture{dir: t.TempDir(), logs: &syncBuffer{}}
	f.model, f.gov = filepath.Join(f.dir, "shop.yaml"), filepath.Join(f.dir, "shop.governance.yaml")
	for src, dst := range map[string]string{"../testdata/shop.yaml": f.model, "../testdata/shop.governance.yaml": f.gov} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dst, string(b))
	}
	files := load.ModelFiles{Paths: []string{f.model}, Governance: f.gov}
	arts, err := files.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Exec(context.Background(), servertest.ShopTables); err != nil {
		t.Fatal(err)
	}
	f.srv, err = server.New(server.Config{Engine: eng, Models: arts, Logger: slog.New(slog.NewJSONHandler(f.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.rel = f.srv.WatchModelFiles(ctx, files, 50*time.Millisecond)
	f.ts = httptest.NewServer(handlerOf(f.srv))
	t.Cleanup(f.ts.Close)
	return f
}

// readyz returns the /readyz status of model shop.
func (f *reloadFixture) readyz(t *testing.T) (int, server.ModelStatus) {
	t.Helper()
	resp, body := (&fixture{ts: f.ts}).do(t, "GET", "/readyz", "")
	var doc struct {
		Models map[string]server.ModelStatus `json:"models"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return resp.StatusCode, doc.Models["shop"]
}

// TestReloadModelFiles: an edit that compiles swaps in (new version, new
// member answering); a broken edit keeps the last good version serving
// with its problems in /readyz and the log; a governance edit counts too.
func TestReloadModelFiles(t *testing.T) {
	f := newReloadFixture(t)
	v1 := servertest.Version(f.srv.Models(), "shop")
	_, st := f.readyz(t)
	if st.Version != v1 || st.Error != "" {
		t.Fatalf("start: %+v", st)
	}
	orig, _ := os.ReadFile(f.model)

	// A new metric appears: a new version serves it.
	edited := strings.Replace(string(orig), "    metrics:\n", "    metrics:\n      - name: max_amount\n        expression: {dialects: [{dialect: ANSI_SQL, expression: MAX(orders.amount)}]}\n        datatype: Decimal\n", 1)
	writeFile(t, f.model, edited)
	servertest.Eventually(t, "the edited model serves", func() (bool, string) { return servertest.Version(f.srv.Models(), "shop") != v1, "" })
	v2 := servertest.Version(f.srv.Models(), "shop")
	resp, err := f.srv.Answer(context.Background(), "shop", servertest.MustQuery(t, `{"metrics":["max_amount"]}`))
	if err != nil || len(resp.Rows) != 1 || resp.ModelVersion != v2 {
		t.Fatalf("answer of the new metric: %+v %v", resp, err)
	}

	// A broken edit: the last good version keeps serving, /readyz shows why.
	writeFile(t, f.model, strings.Replace(edited, "MAX(orders.amount)", "NOSUCHFUNC(orders.amount)", 1))
	servertest.Eventually(t, "the refusal shows in /readyz", func() (bool, string) { _, st := f.readyz(t); return st.Error != "", st.Error })
	code, st := f.readyz(t)
	if code != 200 || st.Version != v2 || !strings.Contains(st.Error, "OSS3003") || !strings.Contains(st.Error, "shop.yaml") {
		t.Fatalf("after a broken edit: %d %+v", code, st)
	}
	if servertest.Version(f.srv.Models(), "shop") != v2 {
		t.Fatal("a broken edit replaced the serving version")
	}
	if logs := f.logs.String(); !strings.Contains(logs, "the last good version keeps serving") || !strings.Contains(logs, "OSS3003") {
		t.Fatalf("log: %s", logs)
	}

	// Back to the original: the error clears and v1 serves again.
	writeFile(t, f.model, string(orig))
	servertest.Eventually(t, "the fixed model serves", func() (bool, string) { _, st := f.readyz(t); return st.Error == "" && st.Version == v1, st.Error })

	// A governance edit alone reloads too: the state analyst may now
	// read avg_amount.
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Name: "t", Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}})
	if d, _ := f.srv.DescribeModel(ctx, "shop"); len(d.Metrics) != 2 {
		t.Fatalf("state analyst metrics before the governance edit: %+v", d.Metrics)
	}
	gov, _ := os.ReadFile(f.gov)
	writeFile(t, f.gov, strings.Replace(string(gov), "deny: [avg_amount]", "deny: []", 1))
	servertest.Eventually(t, "the governance edit serves", func() (bool, string) { return servertest.Version(f.srv.Models(), "shop") != v1, "" })
	if _, err := f.srv.Answer(ctx, "shop", servertest.MustQuery(t, `{"metrics":["avg_amount"]}`)); err != nil {
		t.Fatalf("avg_amount after the governance edit: %v", err)
	}
}

// TestReloadOnSIGHUP: SIGHUP reloads at once, even unchanged files, and
// does not stop the process.
func TestReloadOnSIGHUP(t *testing.T) {
	f := newReloadFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.rel.ReloadOn(ctx, syscall.SIGHUP)
	time.Sleep(50 * time.Millisecond) // signal.Notify is registered synchronously; let the loop start
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "the SIGHUP reload", func() (bool, string) {
		l := f.logs.String()
		return strings.Contains(l, `"signal":"hangup"`) && strings.Contains(l, "reloaded model files"), l
	})
	if err := f.rel.Reload(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.model, "version: \"0.2.0.dev0\"\nsemantic_model: [")
	err := f.rel.Reload()
	var le *load.Error
	if !errors.As(err, &le) || servertest.Version(f.srv.Models(), "shop") == "" {
		t.Fatalf("reload of a broken file: %v", err)
	}
}
