package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// boundFixture serves a copy of testdata/shop.yaml bound to a DuckDB
// engine (ModelFiles.Engine set, as bin/server and ossiectl serve do),
// watched every 50 ms.
type boundFixture struct {
	model string
	eng   *duckdb.Engine
	srv   *server.Server
	logs  *syncBuffer
	http  *fixture
}

func newBoundFixture(t *testing.T, tables string) *boundFixture {
	t.Helper()
	f := &boundFixture{model: filepath.Join(t.TempDir(), "shop.yaml"), logs: &syncBuffer{}}
	b, err := os.ReadFile("../testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.model, string(b))
	if f.eng, err = duckdb.Open(""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.eng.Close() })
	if tables != "" {
		if err := f.eng.Exec(context.Background(), tables); err != nil {
			t.Fatal(err)
		}
	}
	files := load.ModelFiles{Paths: []string{f.model}, Engine: f.eng}
	arts, err := files.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.srv, err = server.New(server.Config{Engine: f.eng, Models: arts, Logger: slog.New(slog.NewJSONHandler(f.logs, nil))}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.srv.WatchModelFiles(ctx, files, 50*time.Millisecond)
	ts := httptest.NewServer(handlerOf(f.srv))
	t.Cleanup(ts.Close)
	f.http = &fixture{ts: ts}
	return f
}

// readyz is the /readyz status code, its "status" member and the entry
// of model shop.
func (f *boundFixture) readyz(t *testing.T) (int, string, server.ModelStatus) {
	t.Helper()
	resp, body := f.http.do(t, "GET", "/readyz", "")
	var doc struct {
		Status any                           `json:"status"`
		Models map[string]server.ModelStatus `json:"models"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return resp.StatusCode, fmt.Sprint(doc.Status), doc.Models["shop"]
}

// revenueByState asks the served model for revenue by state over HTTP and
// returns state → revenue and the version that answered.
func (f *boundFixture) revenueByState(t *testing.T) (map[string]float64, string) {
	t.Helper()
	resp, body := f.http.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"],"dimensions":["customers.state"]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("query: %d %s", resp.StatusCode, body)
	}
	var doc struct {
		Rows         [][]any `json:"rows"`
		ModelVersion string  `json:"model_version"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range doc.Rows {
		out[fmt.Sprint(r[0])] = toFloat(t, r[1])
	}
	return out, doc.ModelVersion
}

// handRevenueByState is the same question in hand-written SQL, on the
// table's column named amount.
func (f *boundFixture) handRevenueByState(t *testing.T, amount string) map[string]float64 {
	t.Helper()
	res, err := f.eng.Query(context.Background(), `SELECT c.state, CAST(SUM(o.`+amount+`) AS DOUBLE) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.state`, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range res.Rows {
		out[fmt.Sprint(r[0])] = toFloat(t, r[1])
	}
	return out
}

func toFloat(t *testing.T, v any) float64 {
	t.Helper()
	switch v := v.(type) {
	case float64:
		return v
	case string:
		var x float64
		if _, err := fmt.Sscan(v, &x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	var x float64
	if _, err := fmt.Sscan(fmt.Sprint(v), &x); err != nil {
		t.Fatalf("not a number: %#v", v)
	}
	return x
}

func sameNumbers(a, b map[string]float64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for k, v := range a {
		if d := v - b[k]; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return true
}

// TestReloadRefusesUnboundModel (issue 28 item 5): an edit of the model
// file to a column the engine does not have compiles but does not bind.
// It never swaps in: queries keep answering from the last good version
// with the numbers of hand-written SQL, /v1/models and /readyz say why,
// /readyz stays 200 with status "degraded" (every served model binds),
// the log and the load error metric (reason bind) record it. When the
// engine's column is renamed too, the next poll binds the edit and
// swaps it in.
func TestReloadRefusesUnboundModel(t *testing.T) {
	f := newBoundFixture(t, servertest.ShopTables)
	want := f.handRevenueByState(t, "amount")
	got, v1 := f.revenueByState(t)
	if !sameNumbers(got, want) {
		t.Fatalf("start: %v, hand-written SQL: %v", got, want)
	}
	if code, status, st := f.readyz(t); code != 200 || status != "ready" || st.Version != v1 {
		t.Fatalf("start: /readyz %d %s %+v", code, status, st)
	}
	bindErrors := loadErrors(t, f.srv, server.LoadErrorBind)

	orig, _ := os.ReadFile(f.model)
	edited := strings.Replace(string(orig), "expression: amount}", "expression: amount_usd}", 1)
	if edited == string(orig) {
		t.Fatal("the fixture has no amount field to rename")
	}
	writeFile(t, f.model, edited)
	servertest.Eventually(t, "the refusal shows in /readyz", func() (bool, string) { _, _, st := f.readyz(t); return st.Error != "", st.Error })

	code, status, st := f.readyz(t)
	if code != 200 || status != "degraded" || st.Version != v1 || !strings.Contains(st.Error, "amount_usd") || !strings.Contains(st.Error, "shop.yaml") || st.Drift != "" {
		t.Fatalf("after the edit: /readyz %d %s %+v", code, status, st)
	}
	got, v := f.revenueByState(t)
	if v != v1 || !sameNumbers(got, want) {
		t.Fatalf("after the edit: version %s (want %s), %v, hand-written SQL: %v", v, v1, got, want)
	}
	_, body := f.http.do(t, "GET", "/v1/models", "")
	var list struct {
		Models []server.ModelSummary `json:"models"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Models) != 1 || !strings.Contains(list.Models[0].LoadError, "amount_usd") || list.Models[0].Version != v1 {
		t.Fatalf("/v1/models: %s", body)
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "the last good version keeps serving") || !strings.Contains(logs, "amount_usd") || !strings.Contains(logs, `"reason":"bind"`) {
		t.Fatalf("log: %s", logs)
	}
	if n := loadErrors(t, f.srv, server.LoadErrorBind); n != bindErrors+1 {
		t.Fatalf("load errors (bind): %v, want %v (one refusal, counted once though polled again)", n, bindErrors+1)
	}

	// The engine catches up: the refused edit binds now and swaps in.
	if err := f.eng.Exec(context.Background(), `ALTER TABLE orders RENAME COLUMN amount TO amount_usd`); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "the edit serves once it binds", func() (bool, string) {
		_, status, st := f.readyz(t)
		return st.Version != v1 && st.Error == "" && status == "ready", fmt.Sprintf("%s %+v", status, st)
	})
	got, v = f.revenueByState(t)
	if v == v1 || !sameNumbers(got, f.handRevenueByState(t, "amount_usd")) || !sameNumbers(got, want) {
		t.Fatalf("after the engine's rename: version %s, %v, want %v", v, got, want)
	}
}

// loadErrors is ossie_server_artifact_load_errors_total{reason} of s, as
// /metrics serves it.
func loadErrors(t *testing.T, s *server.Server, reason string) float64 {
	t.Helper()
	mfs, err := s.Config().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "ossie_server_artifact_load_errors_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestReadyOnlyWhenBound: a server started on an engine without the
// model's tables serves (it has nothing older) but is not ready, and says
// which table is missing; an edit then swaps in (the served version binds
// no better) and is not ready either; once the tables exist the next
// poll finds the model bound and it is ready.
func TestReadyOnlyWhenBound(t *testing.T) {
	f := newBoundFixture(t, "")
	code, _, st := f.readyz(t)
	if code != http.StatusServiceUnavailable || !strings.Contains(st.Drift, "orders") {
		t.Fatalf("no tables: /readyz %d %+v", code, st)
	}
	_, body := f.http.do(t, "GET", "/readyz", "")
	if !strings.Contains(string(body), "a served model does not bind to the engine (see models.NAME.drift)") {
		t.Fatalf("no tables: /readyz detail: %s", body)
	}
	if !strings.Contains(f.logs.String(), "do not bind to the engine") {
		t.Fatalf("log: %s", f.logs.String())
	}
	// An edit is no worse than the version served without binding: it
	// swaps in, and is not ready for the same reason.
	v1 := servertest.Version(f.srv.Models(), "shop")
	orig, _ := os.ReadFile(f.model)
	writeFile(t, f.model, strings.Replace(string(orig), "Orders of a small shop", "Orders of a bigger shop", 1))
	servertest.Eventually(t, "the edit serves", func() (bool, string) { return servertest.Version(f.srv.Models(), "shop") != v1, "" })
	if code, _, st := f.readyz(t); code != http.StatusServiceUnavailable || !strings.Contains(st.Drift, "orders") || st.Error != "" {
		t.Fatalf("edited without tables: /readyz %d %+v", code, st)
	}
	if err := f.eng.Exec(context.Background(), servertest.ShopTables); err != nil {
		t.Fatal(err)
	}
	servertest.Eventually(t, "ready once the tables exist", func() (bool, string) {
		code, status, st := f.readyz(t)
		return code == 200 && status == "ready" && st.Drift == "", fmt.Sprintf("%d %s %+v", code, status, st)
	})
	got, _ := f.revenueByState(t)
	if want := f.handRevenueByState(t, "amount"); !sameNumbers(got, want) {
		t.Fatalf("%v, hand-written SQL: %v", got, want)
	}
}
