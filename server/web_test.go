package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the headless browser of the explorer test
// (scripts/install-chromium.sh installs Debian's chromium). Without it the
// test skips, unless OSSIE_REQUIRE_BROWSER=1 (make test) makes that a
// failure.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("OSSIE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("OSSIE_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium found; run scripts/install-chromium.sh")
	}
	t.Skip("no chromium found (scripts/install-chromium.sh installs it; OSSIE_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// browser starts headless Chromium for the test's lifetime.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// tableJS reads the explorer's answer table: the column names and each
// cell's value as the API returned it (data-value, JSON).
const tableJS = `(() => ({
  columns: [...document.querySelectorAll('#result thead th')].map(th => th.dataset.name),
  rows: [...document.querySelectorAll('#result tbody tr')].map(tr => [...tr.children].map(td => JSON.parse(td.dataset.value))),
  bars: document.querySelectorAll('#chart svg rect').length,
  sql: document.getElementById('sql').textContent,
  hash: location.hash,
}))()`

type explorerView struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Bars    int      `json:"bars"`
	SQL     string   `json:"sql"`
	Hash    string   `json:"hash"`
}

// TestExplorerInChromium drives the web explorer in headless Chromium
// against a real server on loopback, as a governed caller: it enters the
// token, picks a metric and a dimension, runs, and checks the table's
// numbers against the API's answer and hand-written SQL, the bar chart,
// the refused SQL preview, and that the shareable link reproduces the
// answer. The screenshot is saved in the test's artifact directory
// (go test -artifacts keeps it).
func TestExplorerInChromium(t *testing.T) {
	f := newGovernedFixture(t)
	ctx := browser(t)
	token := governedToken("state")

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('status').textContent + "\n" + document.getElementById('model').outerHTML`))
			t.Fatalf("%v; the page shows: %s", err, page)
		}
	}
	read := func() explorerView {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[explorerView](tableJS))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// wait polls until a CSS selector matches (the page renders
	// asynchronously after each API call).
	wait := func(sel string) {
		t.Helper()
		var err error
		for range 20 {
			_, err = chromedp.Run(ctx, chromedp.Poll[bool]("!!document.querySelector("+strconvQuote(sel)+")"))
			// A poll started while a navigation swaps the page's execution
			// context loses it; poll again in the new one.
			if err == nil || !strings.Contains(err.Error(), "Cannot find context") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v; the page shows: %.2000s", sel, err, page)
		}
	}
	do(chromedp.Navigate(f.ts.URL + "/"))
	wait("body[data-ready]")
	do(chromedp.SendKeys(chromedp.CSS("#token"), token))
	// The user leaves the token field, then picks the model shop.
	js := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err != nil {
			t.Fatal(err)
		}
	}
	js(`document.getElementById('token').dispatchEvent(new Event('change'))`)
	wait(`#model option[value="shop"]`)
	js(`(() => { const m = document.getElementById('model'); m.value = 'shop'; return m.dispatchEvent(new Event('change')); })()`)
	wait(`#metrics input[value="revenue"]`)
	// Clicks through the DOM (chromedp's mouse Click waits on layout
	// events that a loaded CI machine may not deliver in time).
	for _, sel := range []string{`#metrics input[value="revenue"]`, `#dimensions input[value="orders.status"]`, "#run"} {
		js(`(() => { document.querySelector(` + strconvQuote(sel) + `).click(); return true; })()`)
	}
	wait("#result tbody tr")
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('sql').textContent.length > 0`)); err != nil {
		t.Fatal(err)
	}
	view := read()

	// The same query through the API, as the page sent it.
	body := `{"metrics":["revenue"],"dimensions":["orders.status"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":100}`
	resp, b := f.call(t, "POST", "/v1/models/shop/query", body, bearer(token))
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var api Response
	if err := json.Unmarshal(b, &api); err != nil {
		t.Fatal(err)
	}
	if !equalJSON(view.Columns, []string{"orders.status", "revenue"}) || !equalJSON(view.Rows, api.Rows) {
		t.Fatalf("table %v %v, API %v", view.Columns, view.Rows, api.Rows)
	}
	// The role hides returned orders: hand-written SQL on the same data.
	want := engineRows(t, f.fixture, `SELECT status, SUM(amount) FROM orders WHERE status <> 'returned' GROUP BY status ORDER BY 2 DESC`)
	if !equalJSON(view.Rows, want) || len(want) != 2 {
		t.Fatalf("table %v, SQL %v", view.Rows, want)
	}
	if view.Bars != len(want) {
		t.Errorf("%d bars for %d rows", view.Bars, len(want))
	}
	if !strings.Contains(view.SQL, "OSS5007") || strings.Contains(view.SQL, "SELECT") {
		t.Errorf("SQL box under a role: %q", view.SQL)
	}
	if !strings.Contains(view.Hash, "metrics=revenue") || !strings.Contains(view.Hash, "dimensions=orders.status") {
		t.Errorf("shareable fragment %q", view.Hash)
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "explorer.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	// The link reproduces the answer in a fresh page (the token stays in
	// this tab's sessionStorage, never in the URL).
	do(chromedp.Navigate("about:blank"), chromedp.Navigate(f.ts.URL+"/"+view.Hash))
	wait("#result tbody tr")
	again := read()
	if !equalJSON(again.Rows, want) || strings.Contains(again.Hash, token) {
		t.Fatalf("shared link: %v (hash %q)", again.Rows, again.Hash)
	}

	// A time series: the line chart over months, numbers as the API's.
	do(chromedp.Navigate("about:blank"),
		chromedp.Navigate(f.ts.URL+"/#model=shop&metrics=order_count&time=orders.order_date&grain=month&from=2024-01-01&to=2024-02-29"))
	wait("#chart svg polyline")
	again = read()
	want = engineRows(t, f.fixture, `SELECT strftime(date_trunc('month', order_date), '%Y-%m-%d'), COUNT(order_id) FROM orders
		WHERE status <> 'returned' AND order_date BETWEEN '2024-01-01' AND '2024-02-29' GROUP BY 1 ORDER BY 1`)
	if !equalJSON(again.Rows, want) || len(want) != 2 {
		t.Fatalf("monthly table %v, SQL %v", again.Rows, want)
	}
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile(filepath.Join(t.ArtifactDir(), "explorer-months.png"), png, 0o644)
	}
}

// TestExplorerFiles: the page and its files are served from the binary,
// with a policy that keeps the page to this server.
func TestExplorerFiles(t *testing.T) {
	f := newFixture(t, nil)
	for path, want := range map[string]string{"/": "<title>Ossie explorer</title>", "/ui/app.js": "function buildQuery", "/ui/style.css": "#output"} {
		resp, b := f.do(t, "GET", path, "")
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Fatalf("%s: %d %.200s", path, resp.StatusCode, b)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
	}
	resp, b := f.do(t, "GET", "/nope", "")
	wantProblem(t, resp, b, 404, "")
}

// TestExplorerNamespacedModels: two namespaces publish a model named shop
// (team-b's revenue is doubled). The explorer lists each as
// namespace/name and answers from the one chosen, through its namespaced
// path; the bare name, which is 409 OSS5013, is never asked.
func TestExplorerNamespacedModels(t *testing.T) {
	store := NewStore(nil)
	for ns, edit := range map[string]func(string) string{"team-a": nil, "team-b": doubledRevenue} {
		if err := store.Set(Source{Key: "configmap " + ns + "/ossie-shop", Namespace: ns, Model: "shop"}, shopVersion(t, edit)); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, func(c *Config) { c.Models, c.Store = nil, store })
	ctx := browser(t)
	run := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err != nil {
			t.Fatal(err)
		}
	}
	poll := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("waiting for %s: %v; the page shows: %.2000s", expr, err, page)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(f.ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	poll(`!!document.querySelector('#model option[value="team-a/shop"]') && !!document.querySelector('#model option[value="team-b/shop"]')`)
	shown := map[string][][]any{}
	for _, ns := range []string{"team-a", "team-b"} {
		// The metric list is emptied first, so the wait below sees the
		// chosen model's metrics, not the previous one's.
		run(`(() => { document.getElementById('metrics').replaceChildren(); const m = document.getElementById('model'); m.value = '` + ns + `/shop'; return m.dispatchEvent(new Event('change')); })()`)
		poll(`!!document.querySelector('#metrics input[value="revenue"]')`)
		run(`(() => { document.querySelectorAll('#result tbody tr').forEach((r) => r.remove()); document.querySelector('#metrics input[value="revenue"]').checked = true; document.getElementById('run').click(); return true; })()`)
		poll(`!!document.querySelector('#result tbody tr')`)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[explorerView](tableJS))
		if err != nil {
			t.Fatal(err)
		}
		resp, b := f.do(t, "POST", "/v1/namespaces/"+ns+"/models/shop/query", `{"metrics":["revenue"]}`)
		var api Response
		if err := json.Unmarshal(b, &api); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", ns, resp.StatusCode, b)
		}
		if !equalJSON(v.Rows, api.Rows) {
			t.Errorf("%s: the explorer shows %v, the namespaced API %v", ns, v.Rows, api.Rows)
		}
		shown[ns] = v.Rows
	}
	// Hand-written SQL on the same data: team-b's planner doubles it.
	want := map[string][][]any{"team-a": engineRows(t, f, `SELECT SUM(amount) FROM orders`),
		"team-b": engineRows(t, f, `SELECT SUM(amount) * 2 FROM orders`)}
	for ns, rows := range shown {
		if !equalJSON(rows, want[ns]) {
			t.Errorf("%s: the explorer shows %v, SQL %v", ns, rows, want[ns])
		}
	}
}
