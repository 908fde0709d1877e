package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/servertest"
)

// tableJS reads the explorer's answer table: the column names and each
// cell's value as the API returned it (data-value, JSON), the values the
// first chart marks, the SQL shown and the link.
const tableJS = `(() => ({
  columns: [...document.querySelectorAll('#result thead th')].map(th => th.dataset.name),
  rows: [...document.querySelectorAll('#result tbody tr')].map(tr => [...tr.children].map(td => JSON.parse(td.dataset.value))),
  marks: [...document.querySelectorAll('#charts figure.chart:first-child .mark')].map(m => JSON.parse(m.dataset.value)),
  sql: document.getElementById('sql').textContent,
  hash: location.hash,
}))()`

type explorerView struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Marks   []any    `json:"marks"`
	SQL     string   `json:"sql"`
	Hash    string   `json:"hash"`
}

// TestExplorerInChromium drives the web explorer in headless Chromium
// against a real server on loopback, as a governed caller: it enters the
// token, picks a metric and a dimension, runs, and checks the table's
// numbers against the API's answer and hand-written SQL, the chart, the
// refused SQL preview, and that the shareable link reproduces the answer.
// Screenshots are saved in the test's artifact directory (go test
// -artifacts keeps them).
func TestExplorerInChromium(t *testing.T) {
	f := newGovernedFixture(t)
	p := newExplorerPage(t)
	token := governedToken("state")

	p.open(f.ts.URL + "/")
	p.waitFor("body[data-ready]")
	if err := chromedp.Do(p.ctx, chromedp.SendKeys(chromedp.CSS("#token"), token)); err != nil {
		t.Fatal(err)
	}
	// The user leaves the token field, then picks the model shop.
	p.js(`document.getElementById('token').dispatchEvent(new Event('change'))`)
	p.waitFor(`#model option[value="shop"]`)
	p.js(`(() => { const m = document.getElementById('model'); m.value = 'shop'; return m.dispatchEvent(new Event('change')); })()`)
	p.waitFor(`#metrics input[value="revenue"]`)
	for _, sel := range []string{`#metrics input[value="revenue"]`, `#dimensions input[value="orders.status"]`, "#run"} {
		p.click(sel)
	}
	p.waitFor("#result tbody tr")
	p.wait(`document.getElementById('sql').textContent.length > 0`)
	view := read[explorerView](p, tableJS)

	// The same query through the API, as the page sent it.
	body := `{"metrics":["revenue"],"dimensions":["orders.status"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":100}`
	resp, b := f.call(t, "POST", "/v1/models/shop/query", body, bearer(token))
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var api server.Response
	if err := json.Unmarshal(b, &api); err != nil {
		t.Fatal(err)
	}
	if !servertest.EqualJSON(view.Columns, []string{"orders.status", "revenue"}) || !servertest.EqualJSON(view.Rows, api.Rows) {
		t.Fatalf("table %v %v, API %v", view.Columns, view.Rows, api.Rows)
	}
	// The role hides returned orders: hand-written SQL on the same data.
	want := servertest.EngineRows(t, f.fixture.eng, `SELECT status, SUM(amount) FROM orders WHERE status <> 'returned' GROUP BY status ORDER BY 2 DESC`)
	if !servertest.EqualJSON(view.Rows, want) || len(want) != 2 {
		t.Fatalf("table %v, SQL %v", view.Rows, want)
	}
	if !servertest.EqualJSON(view.Marks, column(want, 1)) {
		t.Errorf("chart marks %v, SQL %v", view.Marks, column(want, 1))
	}
	if !strings.Contains(view.SQL, "OSS5007") || strings.Contains(view.SQL, "SELECT") {
		t.Errorf("SQL box under a role: %q", view.SQL)
	}
	if !strings.Contains(view.Hash, "metrics=revenue") || !strings.Contains(view.Hash, "dimensions=orders.status") {
		t.Errorf("shareable fragment %q", view.Hash)
	}
	p.screenshot("explorer.png")

	// The link reproduces the answer in a fresh page (the token stays in
	// this tab's sessionStorage, never in the URL).
	p.open(f.ts.URL + "/" + view.Hash)
	p.waitFor("#result tbody tr")
	again := read[explorerView](p, tableJS)
	if !servertest.EqualJSON(again.Rows, want) || strings.Contains(again.Hash, token) {
		t.Fatalf("shared link: %v (hash %q)", again.Rows, again.Hash)
	}

	// A time series: the line chart over months, numbers as the API's.
	p.open(f.ts.URL + "/#model=shop&metrics=order_count&time=orders.order_date&grain=month&from=2024-01-01&to=2024-02-29")
	p.waitFor("#charts svg path.line")
	again = read[explorerView](p, tableJS)
	want = servertest.EngineRows(t, f.fixture.eng, `SELECT strftime(date_trunc('month', order_date), '%Y-%m-%d'), COUNT(order_id) FROM orders
		WHERE status <> 'returned' AND order_date BETWEEN '2024-01-01' AND '2024-02-29' GROUP BY 1 ORDER BY 1`)
	if !servertest.EqualJSON(again.Rows, want) || len(want) != 2 {
		t.Fatalf("monthly table %v, SQL %v", again.Rows, want)
	}
	if !servertest.EqualJSON(again.Marks, column(want, 1)) {
		t.Errorf("monthly chart marks %v, SQL %v", again.Marks, column(want, 1))
	}
	p.screenshot("explorer-months.png")
}

// column is the j-th value of each row.
func column(rows [][]any, j int) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[j]
	}
	return out
}

// TestExplorerFiles: the page and its files are served from the binary,
// with a policy that keeps the page to this server.
func TestExplorerFiles(t *testing.T) {
	f := newFixture(t, nil)
	for path, want := range map[string]string{"/": "<title>Ossie explorer</title>", "/ui/app.js": "function buildQuery", "/ui/chart.js": "function renderCharts", "/ui/table.js": "function sortRows", "/ui/style.css": "#output"} {
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
	store := server.NewStore(nil)
	for ns, edit := range map[string]func(string) string{"team-a": nil, "team-b": servertest.DoubledRevenue} {
		if err := store.Set(server.Source{Key: "configmap " + ns + "/ossie-shop", Namespace: ns, Model: "shop"}, servertest.ShopVersion(t, edit)); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, func(c *server.Config) { c.Models, c.Store = nil, store })
	p := newExplorerPage(t)
	p.open(f.ts.URL + "/")
	p.wait(`!!document.querySelector('#model option[value="team-a/shop"]') && !!document.querySelector('#model option[value="team-b/shop"]')`)
	shown := map[string][][]any{}
	for _, ns := range []string{"team-a", "team-b"} {
		// The metric list is emptied first, so the wait below sees the
		// chosen model's metrics, not the previous one's.
		p.js(`(() => { document.getElementById('metrics').replaceChildren(); const m = document.getElementById('model'); m.value = '` + ns + `/shop'; return m.dispatchEvent(new Event('change')); })()`)
		p.waitFor(`#metrics input[value="revenue"]`)
		p.js(`(() => { document.querySelectorAll('#result tbody tr').forEach((r) => r.remove()); document.querySelector('#metrics input[value="revenue"]').checked = true; document.getElementById('run').click(); return true; })()`)
		p.waitFor(`#result tbody tr`)
		v := read[explorerView](p, tableJS)
		resp, b := f.do(t, "POST", "/v1/namespaces/"+ns+"/models/shop/query", `{"metrics":["revenue"]}`)
		var api server.Response
		if err := json.Unmarshal(b, &api); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", ns, resp.StatusCode, b)
		}
		if !servertest.EqualJSON(v.Rows, api.Rows) {
			t.Errorf("%s: the explorer shows %v, the namespaced API %v", ns, v.Rows, api.Rows)
		}
		shown[ns] = v.Rows
	}
	// Hand-written SQL on the same data: team-b's planner doubles it.
	want := map[string][][]any{"team-a": servertest.EngineRows(t, f.eng, `SELECT SUM(amount) FROM orders`),
		"team-b": servertest.EngineRows(t, f.eng, `SELECT SUM(amount) * 2 FROM orders`)}
	for ns, rows := range shown {
		if !servertest.EqualJSON(rows, want[ns]) {
			t.Errorf("%s: the explorer shows %v, SQL %v", ns, rows, want[ns])
		}
	}
}
