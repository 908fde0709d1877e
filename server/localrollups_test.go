package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/server/auth/authtest"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// shopRollup is testdata/shop.yaml with one rollup: revenue, order count
// and average amount by state and month, rebuilt every hour.
const shopRollup = `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_state_month", "measures": ["revenue", "order_count", "avg_amount"],
          "dimensions": ["customers.state"], "time_dimension": {"field": "orders.order_date", "grain": "month"},
          "refresh": {"mode": "schedule", "every": "1h"}}]}'
`

const rollupQuery = `{"metrics":["revenue","order_count","avg_amount"],"dimensions":["customers.state",{"field":"orders.order_date","grain":"quarter"}]}`

// handRollupQuery is rollupQuery in hand-written SQL on the base tables.
const handRollupQuery = `SELECT c.state, date_trunc('quarter', o.order_date), SUM(o.amount), COUNT(o.order_id), AVG(o.amount)
  FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1, 2`

// rollupFixture serves the shop model with shopRollup from a watched
// file, with RunRollups (rollups true) or without.
type rollupFixture struct {
	model string
	srv   *Server
	logs  *authtest.SyncBuffer
}

func newRollupFixture(t *testing.T, eng engine.Engine, rollups bool) *rollupFixture {
	t.Helper()
	f := &rollupFixture{model: filepath.Join(t.TempDir(), "shop.yaml"), logs: &authtest.SyncBuffer{}}
	src, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	authtest.WriteFile(t, f.model, string(src)+shopRollup)
	files := load.ModelFiles{Paths: []string{f.model}, Engine: eng}
	arts, err := files.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.srv, err = New(Config{Engine: eng, Models: arts, Logger: slog.New(slog.NewJSONHandler(f.logs, nil))}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.srv.WatchModelFiles(ctx, files, 50*time.Millisecond)
	if rollups {
		if err := f.srv.RunRollups(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// answer returns rollupQuery's rows as a JSON client reads them and its
// EXPLAIN, as POST /query and /sql give them.
func (f *rollupFixture) answer(t *testing.T) ([][]any, string) {
	t.Helper()
	ctx := context.Background()
	a, err := f.srv.Answer(ctx, "shop", servertest.MustQuery(t, rollupQuery))
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	p, err := f.srv.PlanSQL(ctx, "shop", servertest.MustQuery(t, strings.Replace(rollupQuery, "{", `{"explain":true,`, 1)))
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	// The answer's rollup field and EXPLAIN agree (docs/rollups.md).
	if used := strings.Contains(p.Explain, "rollup by_state_month: used"); used != (p.Rollup == "by_state_month") || (!used && p.Rollup != "") {
		t.Fatalf("/sql names rollup %q, EXPLAIN says:\n%s", p.Rollup, p.Explain)
	}
	return servertest.JSONRows(t, a.Rows), p.Explain
}

// rollupSummary is the model's one rollup as GET /v1/models lists it.
func (f *rollupFixture) rollupSummary(t *testing.T) RollupSummary {
	t.Helper()
	models := f.srv.VisibleModels(context.Background())
	if len(models) != 1 || len(models[0].Rollups) != 1 {
		t.Fatalf("/v1/models: %+v", models)
	}
	return models[0].Rollups[0]
}

// TestLocalRollupsDuckDB (issue 28 item 1): with RunRollups a local-mode
// server builds the model's rollup in ossie_rollups and answers from it
// (EXPLAIN names it) with the numbers of hand-written SQL on the base
// tables, the same as a server without rollups; /v1/models says it is
// built and fresh. A reload builds it for the new version; a refresh
// when due rebuilds it.
func TestLocalRollupsDuckDB(t *testing.T) {
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	testLocalRollups(t, eng, `CAST(date_trunc('quarter', o.order_date) AS DATE)`)
}

// TestLocalRollupsPostgres is TestLocalRollupsDuckDB on PostgreSQL.
func TestLocalRollupsPostgres(t *testing.T) {
	eng, err := postgres.Open(context.Background(), postgres.Config{DSN: pgtest.Private(t).NewDatabase(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	testLocalRollups(t, eng, `CAST(date_trunc('quarter', o.order_date) AS DATE)`)
}

func testLocalRollups(t *testing.T, eng engine.Engine, quarter string) {
	ctx := context.Background()
	if err := eng.Exec(ctx, strings.ReplaceAll(servertest.ShopTables, "CREATE VIEW slow_view AS SELECT a.range + b.range AS k FROM range(1000000) a, range(100000) b;", "")); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Query(ctx, strings.Replace(handRollupQuery, "date_trunc('quarter', o.order_date)", quarter, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Rows)
	var want [][]any
	_ = json.Unmarshal(b, &want)

	base := newRollupFixture(t, eng, false)
	plain, explain := base.answer(t)
	if strings.Contains(explain, "by_state_month: used") {
		t.Fatalf("a rollup was used without RunRollups:\n%s", explain)
	}
	if err := servertest.SameRows(plain, want); err != nil {
		t.Fatalf("without rollups: %v", err)
	}

	f := newRollupFixture(t, eng, true)
	rolled, explain := f.answer(t)
	if !strings.Contains(explain, "rollup by_state_month: used") {
		t.Fatalf("EXPLAIN does not name the rollup:\n%s", explain)
	}
	if err := servertest.SameRows(rolled, want); err != nil {
		t.Fatalf("with rollups: %v", err)
	}
	sum := f.rollupSummary(t)
	if !sum.Fresh || !strings.HasPrefix(sum.Table, RollupSchema+".ossie_rollup_shop_by_state_month") || sum.BuiltAt == nil || sum.Error != "" {
		t.Fatalf("/v1/models rollup: %+v", sum)
	}
	first := *sum.BuiltAt

	// A due refresh (the clock an hour and a minute later) rebuilds it.
	f.srv.rollups.Load().sync(ctx, time.Now().Add(61*time.Minute))
	if sum := f.rollupSummary(t); !sum.Fresh || !sum.BuiltAt.After(first) {
		t.Fatalf("after a due refresh: %+v (first built %s)", sum, first)
	}

	// A reload (a new metric) is a new version: built for it, used again.
	src, _ := os.ReadFile(f.model)
	v1 := servertest.Version(f.srv.Models(), "shop")
	authtest.WriteFile(t, f.model, strings.Replace(string(src), "    metrics:\n", "    metrics:\n      - name: max_amount\n        expression: {dialects: [{dialect: ANSI_SQL, expression: MAX(orders.amount)}]}\n        datatype: Decimal\n", 1))
	servertest.Eventually(t, "the rollup is fresh for the new version", func() (bool, string) {
		sum := f.rollupSummary(t)
		return servertest.Version(f.srv.Models(), "shop") != v1 && sum.Fresh, sum.Reason
	})
	rolled, explain = f.answer(t)
	if !strings.Contains(explain, "rollup by_state_month: used") {
		t.Fatalf("after the reload, EXPLAIN:\n%s", explain)
	}
	if err := servertest.SameRows(rolled, want); err != nil {
		t.Fatalf("after the reload: %v", err)
	}
	if logs := f.logs.String(); !strings.Contains(logs, "rollup built") {
		t.Fatalf("log: %s", logs)
	}
}

// TestLocalRollupBuildFailure: a rollup that cannot be built (its tables
// are not there yet) is reported in /v1/models with the engine's error
// and is not fresh, the base tables answer meanwhile, and the next sync
// after the tables appear builds it.
func TestLocalRollupBuildFailure(t *testing.T) {
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	f := newRollupFixture(t, eng, true)
	sum := f.rollupSummary(t)
	if sum.Fresh || sum.Error == "" || !strings.Contains(sum.Reason, "not built") {
		t.Fatalf("without tables: %+v", sum)
	}
	if !strings.Contains(f.logs.String(), "rollup build failed") {
		t.Fatalf("log: %s", f.logs.String())
	}
	lr := f.srv.rollups.Load()
	if next := lr.sync(context.Background(), time.Now()); next > rollupRetry {
		t.Errorf("a failed build is retried after %s, want at most %s", next, rollupRetry)
	}
	if err := eng.Exec(context.Background(), servertest.ShopTables); err != nil {
		t.Fatal(err)
	}
	lr.sync(context.Background(), time.Now())
	if sum := f.rollupSummary(t); !sum.Fresh || sum.Error != "" {
		t.Fatalf("after the tables appear: %+v", sum)
	}
	rolled, explain := f.answer(t)
	if !strings.Contains(explain, "rollup by_state_month: used") {
		t.Fatalf("EXPLAIN:\n%s", explain)
	}
	if err := servertest.SameRows(rolled, (&fixture{eng: eng}).handRows(t, strings.Replace(handRollupQuery, "date_trunc('quarter', o.order_date)", `CAST(date_trunc('quarter', o.order_date) AS DATE)`, 1))); err != nil {
		t.Fatal(err)
	}
}
