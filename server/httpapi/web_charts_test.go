package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// newDeliveriesFixture serves testdata/deliveries.yaml over its rows
// (testdata/deliveries.sql): long region names, 180 days, four metrics of
// different shapes.
func newDeliveriesFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, func(c *server.Config) {
		arts, err := load.Models([]string{"../testdata/deliveries.yaml"}, compiler.CompileOptions{})
		if err != nil {
			t.Fatalf("LoadModelFiles: %v", err)
		}
		c.Models = arts
	})
	rows, err := os.ReadFile("../testdata/deliveries.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.eng.Exec(context.Background(), string(rows)); err != nil {
		t.Fatal(err)
	}
	return f
}

// chartsJS reads each chart of the page: its metric, its SVGs, the value
// axis's domain, the value of every mark in drawing order (with the time
// and series of a line chart's points), the bars among them, and its axis
// labels with their tooltips.
const chartsJS = `[...document.querySelectorAll('#charts figure.chart')].map(f => {
  const svg = f.querySelector('svg');
  const marks = [...f.querySelectorAll('.mark')];
  return {
    metric: f.dataset.metric,
    svgs: f.querySelectorAll('svg').length,
    min: svg ? Number(svg.dataset.domainMin) : null,
    max: svg ? Number(svg.dataset.domainMax) : null,
    values: marks.map(m => JSON.parse(m.dataset.value)),
    xs: marks.map(m => m.dataset.x || ''),
    series: marks.map(m => m.dataset.series || ''),
    bars: f.querySelectorAll('rect.mark').length,
    lines: f.querySelectorAll('path.line').length,
    labels: [...f.querySelectorAll('text.axis-label')].map(t => ({text: t.textContent.replace(t.querySelector('title')?.textContent || '', ''), title: t.querySelector('title')?.textContent || ''})),
  };
})`

type chartView struct {
	Metric string                         `json:"metric"`
	SVGs   int                            `json:"svgs"`
	Min    float64                        `json:"min"`
	Max    float64                        `json:"max"`
	Values []any                          `json:"values"`
	Xs     []string                       `json:"xs"`
	Series []string                       `json:"series"`
	Bars   int                            `json:"bars"`
	Lines  int                            `json:"lines"`
	Labels []struct{ Text, Title string } `json:"labels"`
}

// overlapJS lists, per chart, axis labels whose bounding boxes (as laid
// out by the browser, fonts included) intersect another label's or leave
// the chart's SVG, and charts wider than their figure.
const overlapJS = `(() => {
  const out = [];
  for (const f of document.querySelectorAll('#charts figure.chart')) {
    const svg = f.querySelector('svg');
    if (!svg) continue;
    const s = svg.getBoundingClientRect(), fr = f.getBoundingClientRect();
    if (s.left < fr.left || s.right > fr.right) out.push(f.dataset.metric + ': the chart is wider than its figure');
    const boxes = [...f.querySelectorAll('text.axis-label')].map(t => ({text: t.firstChild.textContent, r: t.getBoundingClientRect()}));
    for (const b of boxes) {
      if (b.r.width === 0) out.push(f.dataset.metric + ': "' + b.text + '" is not laid out');
      if (b.r.left < s.left - 0.5 || b.r.right > s.right + 0.5 || b.r.top < s.top - 0.5 || b.r.bottom > s.bottom + 0.5) out.push(f.dataset.metric + ': "' + b.text + '" leaves the chart');
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(f.dataset.metric + ': "' + boxes[i].text + '" overlaps "' + boxes[j].text + '"');
    }
  }
  return out;
})()`

// sortJS reads the table's sort as its headers announce it.
const sortJS = `[...document.querySelectorAll('#result thead th')].map(th => th.getAttribute('aria-sort'))`

// TestExplorerCharts drives the explorer over four metrics of different
// shapes by long-named regions and by day, and checks what a reader sees:
// one chart per metric whose marks carry the numbers of the API's answer
// and of hand-written SQL, axis labels that neither overlap nor leave
// their chart (long names shortened with the full name as tooltip), a
// rate's axis fitted to its values rather than started at 0, bars only
// where the axis holds zero, sorting by a click on a header, and a link
// that restores query, sort and answer in a fresh page; without
// dimensions, one number per metric.
func TestExplorerCharts(t *testing.T) {
	f := newDeliveriesFixture(t)
	p := newExplorerPage(t)
	metrics := []string{"parcels", "on_time_rate", "avg_delay_hours", "margin"}

	p.open(f.ts.URL + "/")
	p.waitFor(`#metrics input[value="margin"]`)
	for _, m := range metrics {
		p.click(`#metrics input[value="` + m + `"]`)
	}
	p.click(`#dimensions input[value="regions.name"]`)
	p.click("#run")
	p.wait(`document.querySelectorAll('#charts figure.chart .mark').length === 48 && document.getElementById('sql').textContent.length > 0`)

	// The numbers: the page's table is the API's answer, which is the
	// hand-written SQL's.
	view := read[explorerView](p, tableJS)
	resp, b := f.do(t, "POST", "/v1/models/deliveries/query",
		`{"metrics":["parcels","on_time_rate","avg_delay_hours","margin"],"dimensions":["regions.name"],"order_by":[{"key":"parcels","dir":"desc"}],"limit":100}`)
	var api server.Response
	if err := json.Unmarshal(b, &api); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	const byRegion = `SELECT r.name, SUM(d.parcels), CAST(SUM(d.on_time) AS DOUBLE) / SUM(d.parcels), AVG(d.delay_hours), SUM(d.margin)
		FROM deliveries d JOIN regions r ON d.region_id = r.region_id GROUP BY r.name`
	want := servertest.EngineRows(t, f.eng, byRegion+` ORDER BY 2 DESC`)
	if len(want) != 12 || !servertest.EqualJSON(view.Rows, api.Rows) || !servertest.EqualJSON(view.Rows, want) {
		t.Fatalf("table %v\nAPI %v\nSQL %v", view.Rows, api.Rows, want)
	}
	if !servertest.EqualJSON(view.Columns, append([]string{"regions.name"}, metrics...)) {
		t.Errorf("columns %v", view.Columns)
	}
	// The SQL is shown as /sql wrote it, whitespace kept.
	resp, b = f.do(t, "POST", "/v1/models/deliveries/sql",
		`{"metrics":["parcels","on_time_rate","avg_delay_hours","margin"],"dimensions":["regions.name"],"order_by":[{"key":"parcels","dir":"desc"}],"limit":100}`)
	var planned server.PlanResponse
	if err := json.Unmarshal(b, &planned); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if ws := read[string](p, `getComputedStyle(document.getElementById('sql')).whiteSpace`); view.SQL != planned.SQL || ws != "pre" {
		t.Errorf("SQL shown %q (white-space %s), /sql wrote %q", view.SQL, ws, planned.SQL)
	}
	wantCharts := func(charts []chartView, rows [][]any) {
		t.Helper()
		if len(charts) != len(metrics) {
			t.Fatalf("%d charts for %d metrics", len(charts), len(metrics))
		}
		for i, c := range charts {
			if c.Metric != metrics[i] || c.SVGs != 1 || !servertest.EqualJSON(c.Values, column(rows, i+1)) {
				t.Errorf("chart %d: %s with %d SVGs marks %v, want %s marking %v", i, c.Metric, c.SVGs, c.Values, metrics[i], column(rows, i+1))
			}
		}
	}
	charts := read[[]chartView](p, chartsJS)
	wantCharts(charts, want)

	// Axes: a rate between 0.8 and 0.9 is not drawn from 0; the margin,
	// which crosses 0, is drawn as bars from 0; the others as dots.
	lo, hi := minMax(column(want, 2))
	if lo < 0.8 || hi > 0.9 {
		t.Fatalf("the fixture's rates span %v..%v, not 0.8..0.9", lo, hi)
	}
	rate := charts[1]
	if rate.Min <= 0 || rate.Min > lo || rate.Max < hi || rate.Max-rate.Min > 0.5 || rate.Bars != 0 {
		t.Errorf("rate axis %v..%v (%d bars) for values %v..%v: want an axis fitted to the values, dots", rate.Min, rate.Max, rate.Bars, lo, hi)
	}
	margin := charts[3]
	if mlo, mhi := minMax(column(want, 4)); margin.Min > mlo || margin.Max < mhi || margin.Min >= 0 || margin.Bars != 12 {
		t.Errorf("margin axis %v..%v with %d bars for values %v..%v", margin.Min, margin.Max, margin.Bars, mlo, mhi)
	}
	if plo, _ := minMax(column(want, 1)); charts[0].Min <= 0 || charts[0].Min > plo {
		t.Errorf("parcels axis from %v for values from %v", charts[0].Min, plo)
	}

	// Labels: none overlaps another or leaves its chart; long region
	// names are shortened, with the full name as tooltip.
	if bad := read[[]string](p, overlapJS); len(bad) > 0 {
		t.Errorf("labels:\n%s", strings.Join(bad, "\n"))
	}
	names := map[string]bool{}
	for _, r := range want {
		names[r[0].(string)] = true
	}
	shortened := 0
	for _, l := range charts[0].Labels {
		if !names[l.Title] {
			continue
		}
		if strings.HasSuffix(l.Text, "…") {
			shortened++
			if !strings.HasPrefix(l.Title, strings.TrimSuffix(l.Text, "…")) {
				t.Errorf("label %q for %q", l.Text, l.Title)
			}
		} else if l.Text != l.Title {
			t.Errorf("label %q for %q", l.Text, l.Title)
		}
	}
	if shortened == 0 {
		t.Errorf("no long region name was shortened: %v", charts[0].Labels)
	}
	p.screenshot("explorer-regions.png")

	// Sorting: a click on a header sorts ascending, a second descending;
	// the charts follow. The order is the SQL's ORDER BY (names are
	// distinct, and so are the rates).
	p.click(`#result th[data-name="regions.name"] button`)
	p.wait(`document.querySelector('#result th[data-name="regions.name"]').getAttribute('aria-sort') === 'ascending'`)
	wantRows := servertest.EngineRows(t, f.eng, byRegion+` ORDER BY 1`)
	if v := read[explorerView](p, tableJS); !servertest.EqualJSON(v.Rows, wantRows) {
		t.Errorf("sorted by name: %v, SQL %v", v.Rows, wantRows)
	}
	wantCharts(read[[]chartView](p, chartsJS), wantRows)
	p.click(`#result th[data-name="on_time_rate"] button`)
	p.click(`#result th[data-name="on_time_rate"] button`)
	p.wait(`document.querySelector('#result th[data-name="on_time_rate"]').getAttribute('aria-sort') === 'descending'`)
	wantRows = servertest.EngineRows(t, f.eng, byRegion+` ORDER BY 3 DESC`)
	sorted := read[explorerView](p, tableJS)
	if !servertest.EqualJSON(sorted.Rows, wantRows) {
		t.Errorf("sorted by rate, descending: %v, SQL %v", sorted.Rows, wantRows)
	}
	if got := read[[]string](p, sortJS); !servertest.EqualJSON(got, []string{"none", "none", "descending", "none", "none"}) {
		t.Errorf("aria-sort %v", got)
	}
	if !strings.Contains(sorted.Hash, "sort=on_time_rate%3Adesc") {
		t.Errorf("the link %q does not keep the sort", sorted.Hash)
	}
	sortedCharts := read[[]chartView](p, chartsJS)
	wantCharts(sortedCharts, wantRows)

	// The link restores query, sort and answer in a fresh page.
	p.open(f.ts.URL + "/" + sorted.Hash)
	p.wait(`document.querySelectorAll('#charts figure.chart .mark').length === 48`)
	if again := read[explorerView](p, tableJS); !servertest.EqualJSON(again.Rows, wantRows) || again.Hash != sorted.Hash {
		t.Errorf("shared link shows %v (link %q), want %v (link %q)", again.Rows, again.Hash, wantRows, sorted.Hash)
	}
	if again := read[[]chartView](p, chartsJS); !servertest.EqualJSON(again, sortedCharts) {
		t.Errorf("shared link charts differ:\n%+v\n%+v", again, sortedCharts)
	}
	if got := read[[]string](p, sortJS); !servertest.EqualJSON(got, []string{"none", "none", "descending", "none", "none"}) {
		t.Errorf("shared link: aria-sort %v", got)
	}

	// Without dimensions each metric is one number, as the SQL computes it.
	p.open(f.ts.URL + "/#model=deliveries&metrics=parcels,on_time_rate,margin")
	p.wait(`document.querySelectorAll('#charts figure.chart .mark').length === 3`)
	total := servertest.EngineRows(t, f.eng, `SELECT SUM(parcels), CAST(SUM(on_time) AS DOUBLE) / SUM(parcels), SUM(margin) FROM deliveries`)
	for i, c := range read[[]chartView](p, chartsJS) {
		if c.SVGs != 0 || !servertest.EqualJSON(c.Values, []any{total[0][i]}) {
			t.Errorf("%s: %v, SQL %v", c.Metric, c.Values, total[0][i])
		}
	}
}

// TestExplorerTimeCharts: two metrics by day over 180 days, then by month
// and region. Each metric has its own line chart whose points carry the
// hand-written SQL's numbers; the day labels are thinned until none
// overlaps; the rate's axis fits its values; twelve regions are drawn as
// eight lines (the palette), named in a legend and a note.
func TestExplorerTimeCharts(t *testing.T) {
	f := newDeliveriesFixture(t)
	p := newExplorerPage(t)

	p.open(f.ts.URL + "/#model=deliveries&metrics=parcels,on_time_rate&time=deliveries.day&grain=day&limit=1000")
	p.wait(`document.querySelectorAll('#charts figure.chart .mark').length === 360`)
	want := servertest.EngineRows(t, f.eng, `SELECT strftime(day, '%Y-%m-%d'), SUM(parcels), CAST(SUM(on_time) AS DOUBLE) / SUM(parcels)
		FROM deliveries GROUP BY 1 ORDER BY 1`)
	if v := read[explorerView](p, tableJS); len(want) != 180 || !servertest.EqualJSON(v.Rows, want) {
		t.Fatalf("daily table %d rows, SQL %d rows", len(v.Rows), len(want))
	}
	charts := read[[]chartView](p, chartsJS)
	if len(charts) != 2 || charts[0].Metric != "parcels" || charts[1].Metric != "on_time_rate" {
		t.Fatalf("charts %+v", charts)
	}
	for i, c := range charts {
		if c.Lines != 1 || !servertest.EqualJSON(c.Values, column(want, i+1)) || !servertest.EqualJSON(c.Xs, stringsOf(column(want, 0))) {
			t.Errorf("%s: %d lines, points %v at %v", c.Metric, c.Lines, c.Values, c.Xs)
		}
	}
	lo, hi := minMax(column(want, 2))
	if c := charts[1]; c.Min <= 0 || c.Min > lo || c.Max < hi {
		t.Errorf("daily rate axis %v..%v for values %v..%v", c.Min, c.Max, lo, hi)
	}
	days := 0
	for _, l := range charts[0].Labels {
		if strings.HasPrefix(l.Title, "2024-") {
			days++
		}
	}
	if days < 3 || days >= 60 {
		t.Errorf("%d day labels on the axis of 180 days", days)
	}
	if bad := read[[]string](p, overlapJS); len(bad) > 0 {
		t.Errorf("labels:\n%s", strings.Join(bad, "\n"))
	}
	p.screenshot("explorer-days.png")

	p.open(f.ts.URL + "/#model=deliveries&metrics=on_time_rate,margin&dimensions=regions.name&time=deliveries.day&grain=month")
	p.wait(`document.querySelectorAll('#charts figure.chart').length === 2 && document.querySelectorAll('#legend .legend-item').length > 0`)
	charts = read[[]chartView](p, chartsJS)
	for _, c := range charts {
		if c.Lines != 8 || len(c.Values) != 8*6 {
			t.Errorf("%s: %d lines, %d points; want 8 lines of 6 months", c.Metric, c.Lines, len(c.Values))
		}
	}
	// Each point is its region's and month's number in SQL.
	monthly := servertest.EngineRows(t, f.eng, `SELECT r.name, strftime(date_trunc('month', d.day), '%Y-%m-%d'), CAST(SUM(d.on_time) AS DOUBLE) / SUM(d.parcels)
		FROM deliveries d JOIN regions r ON d.region_id = r.region_id GROUP BY 1, 2`)
	byKey := map[string]any{}
	for _, r := range monthly {
		byKey[r[0].(string)+"|"+r[1].(string)] = r[2]
	}
	for i, v := range charts[0].Values {
		if w := byKey[charts[0].Series[i]+"|"+charts[0].Xs[i]]; !servertest.EqualJSON(v, w) {
			t.Errorf("%s in %s: chart %v, SQL %v", charts[0].Series[i], charts[0].Xs[i], v, w)
		}
	}
	legend := read[[]string](p, `[...document.querySelectorAll('#legend .legend-item')].map(e => e.textContent)`)
	note := read[string](p, `document.getElementById('chart-note').textContent`)
	if len(legend) != 8 || !strings.Contains(note, "first 8 of 12 series") {
		t.Errorf("legend %v, note %q", legend, note)
	}
	if bad := read[[]string](p, overlapJS); len(bad) > 0 {
		t.Errorf("labels:\n%s", strings.Join(bad, "\n"))
	}
	p.screenshot("explorer-months-regions.png")
}

func minMax(vals []any) (lo, hi float64) {
	var fs []float64
	for _, v := range vals {
		fs = append(fs, v.(float64))
	}
	sort.Float64s(fs)
	return fs[0], fs[len(fs)-1]
}

func stringsOf(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.(string)
	}
	return out
}
