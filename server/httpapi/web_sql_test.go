package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestExplorerShowsFormattedSQL opens a shared link of the explorer in
// headless Chromium, ungoverned, and reads its SQL view as the page shows
// it (innerText): the statement laid out on lines, the same text /sql
// answers, and when run on the engine the rows of the page's table.
func TestExplorerShowsFormattedSQL(t *testing.T) {
	f := newFixture(t, nil)
	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(f.ts.URL+"/#model=shop&metrics=revenue&dimensions=customers.state")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#result tbody tr').length > 0 && document.getElementById('sql').textContent.length > 0`)); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%v; the page shows: %.2000s", err, page)
	}
	view, err := chromedp.Run(ctx, chromedp.Evaluate[explorerView](tableJS))
	if err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { document.getElementById('sql-box').open = true; return document.getElementById('sql').innerText; })()`))
	if err != nil {
		t.Fatal(err)
	}
	// The query as the page sends it.
	resp, body := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":100}`)
	var p server.PlanResponse
	if resp.StatusCode != 200 || json.Unmarshal(body, &p) != nil {
		t.Fatalf("/sql: %d %s", resp.StatusCode, body)
	}
	if shown != p.SQL || strings.Count(shown, "\n") < 5 || !strings.Contains(shown, "\nFROM (\n  SELECT ") {
		t.Errorf("the SQL view shows\n%s\n/sql answers\n%s", shown, p.SQL)
	}
	got := f.handRows(t, shown)
	if len(got) == 0 || !servertest.EqualJSON(got, view.Rows) {
		t.Errorf("the shown SQL gives %v, the page's table %v", got, view.Rows)
	}
}
