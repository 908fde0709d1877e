package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Every problem of a compare_date_range at once, each at its range's path
// (OSS4064), and the query's own problems at their usual paths.
func TestCompareDateRangeRefusals(t *testing.T) {
	p := shopPlanner(t, false)
	for _, c := range []struct {
		body  string
		paths []string
		codes []string
	}{
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"day","compare_date_range":[["2024-04-01","2024-04-03"]]}]}`,
			[]string{"dimensions[0].compare_date_range"}, []string{compiler.CodeCompareRange}},
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"day","compare_date_range":[["2024-04-01"],"last fortnight",["2024-04-03","2024-04-01"],7]}]}`,
			[]string{"dimensions[0].compare_date_range[0]", "dimensions[0].compare_date_range[1]", "dimensions[0].compare_date_range[2]", "dimensions[0].compare_date_range[3]"},
			[]string{compiler.CodeCompareRange, compiler.CodeCompareRange, compiler.CodeCompareRange, compiler.CodeCompareRange}},
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.status","compare_date_range":[["2024-04-01","2024-04-03"],["2024-03-01","2024-03-03"]]}]}`,
			[]string{"dimensions[0].compare_date_range"}, []string{compiler.CodeCompareRange}},
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"day","compare_date_range":["this month","last month"]},{"field":"refunds.refunded_on","compare_date_range":["this month","last month"]}]}`,
			[]string{"dimensions[1].compare_date_range"}, []string{compiler.CodeCompareRange}},
		// A dropped compared dimension (no grain) keeps the paths of the
		// dimensions after it.
		{`{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","compare_date_range":["this month","last month"]},"customers.regio"]}`,
			[]string{"dimensions[1]"}, []string{compiler.CodeUnknownMember}},
	} {
		q, probs := ParseQuery([]byte(c.body))
		if probs.HasErrors() {
			t.Fatal(probs)
		}
		_, probs = p.Plan(q, dialect.DuckDB)
		if len(probs) != len(c.paths) {
			t.Errorf("%s: got %v, want %v", c.body, probs, c.paths)
			continue
		}
		for i, pr := range probs {
			if pr.Path != c.paths[i] || pr.Code != c.codes[i] {
				t.Errorf("%s: problem %d = %s at %s, want %s at %s", c.body, i, pr.Code, pr.Path, c.codes[i], c.paths[i])
			}
		}
	}
}

// Relative ranges are labelled with their resolved dates in the query's
// zone; EXPLAIN names each range and the window inside each branch.
func TestCompareRelativeRangesAndExplain(t *testing.T) {
	p := shopPlanner(t, false)
	p.Now = func() time.Time { return time.Date(2024, 5, 1, 2, 0, 0, 0, time.UTC) } // 30 April in New York
	q, _ := ParseQuery([]byte(`{"metrics":["order_count","revenue_running"],"dimensions":[{"field":"orders.ordered_at","compare_date_range":["this month","last month"]}],"timezone":"America/New_York"}`))
	if _, probs := p.Plan(q, dialect.DuckDB); len(probs) != 1 || probs[0].Code != compiler.CodeWindowNoTime {
		t.Fatalf("a typed metric without the time grain: %v", probs)
	}
	q, _ = ParseQuery([]byte(`{"metrics":["order_count","revenue_running"],"dimensions":[{"field":"orders.ordered_at","grain":"week","compare_date_range":["this month","last month"]}],"timezone":"America/New_York"}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if len(pl.Columns) != 4 || pl.Columns[0].Name != "compare_date_range" || !strings.Contains(pl.SQL, "'2024-04-01 - 2024-04-30'") || !strings.Contains(pl.SQL, "'2024-03-01 - 2024-03-31'") {
		t.Fatalf("columns %+v\nSQL %s", pl.Columns, pl.SQL)
	}
	out := pl.Explain()
	for _, want := range []string{
		"compare date ranges of orders.ordered_at: 2024-04-01 - 2024-04-30; 2024-03-01 - 2024-03-31  [compare date ranges: ",
		"  range 2024-03-01 - 2024-03-31  [compare date ranges: the query with orders.ordered_at in 2024-03-01 - 2024-03-31]",
		"      window along orders.ordered_at.week: revenue_running = running sum over all periods",
		"or in the date range",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, out)
		}
	}
}

// A metric over typed metrics is computed after the window from the
// windowed columns; the typed metrics it reads are computed hidden.
func TestMetricOverTypedMetrics(t *testing.T) {
	p := shopPlanner(t, false)
	q, _ := ParseQuery([]byte(`{"metrics":["revenue_2w_share"],"dimensions":[{"field":"orders.ordered_at","grain":"week"}]}`))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if len(pl.Columns) != 2 || pl.Columns[1].Name != "revenue_2w_share" {
		t.Fatalf("columns %+v", pl.Columns)
	}
	if !strings.Contains(pl.SQL, `"v" AS (SELECT "w".*, CAST("w"."revenue_2w" AS DOUBLE) / NULLIF(CAST("w"."revenue_running" AS DOUBLE), 0) AS "revenue_2w_share" FROM "w")`) {
		t.Errorf("SQL %s", pl.SQL)
	}
	if out := pl.Explain(); !strings.Contains(out, "then, from the windowed values of each period, revenue_2w_share = revenue_2w, revenue_running combined") {
		t.Errorf("EXPLAIN:\n%s", out)
	}
	q, _ = ParseQuery([]byte(`{"metrics":["revenue_2w_share"],"dimensions":["customers.region"]}`))
	if _, probs := p.Plan(q, dialect.DuckDB); len(probs) != 1 || probs[0].Code != compiler.CodeWindowNoTime {
		t.Fatalf("a metric over typed metrics without a time grain: %v", probs)
	}
}
