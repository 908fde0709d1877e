package flights_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// BenchmarkLocalRollupDashboard (issue 28 item 1) answers the dashboard
// (the three questions of BenchmarkRollupDashboard) from a server set up
// as `server --models` is, once without rollups (base) and once with
// `--rollups` (Server.RunRollups: the local-mode runner builds the
// dashboard rollup in ossie_rollups at start), both on one DuckDB
// database, result cache off. Before timing, every answer of the two is
// compared (identical rows) and the rollup server's EXPLAIN must name the
// rollup. The full 3 M rows are used when examples/flights/data/full
// exists (`make fetch-flights`); rows= says which. The gain is the ratio
// of the base and rollup sub-benchmarks' ns/op.
func BenchmarkLocalRollupDashboard(b *testing.B) {
	e, doc := dashboardEnv(b)
	model := filepath.Join(b.TempDir(), "flights.yaml")
	if err := os.WriteFile(model, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files := load.ModelFiles{Paths: []string{model}, Engine: e.eng}
	local := func(rollups bool) *server.Server {
		arts, err := files.Load(ctx)
		if err != nil {
			b.Fatal(err)
		}
		srv, err := server.New(server.Config{Engine: e.eng, Models: arts})
		if err != nil {
			b.Fatal(err)
		}
		srv.WatchModelFiles(ctx, files, 0)
		if rollups {
			if err := srv.RunRollups(ctx); err != nil {
				b.Fatal(err)
			}
		}
		return srv
	}
	base, rolled := local(false), local(true)
	for _, q := range dashboard() {
		want, err := base.Answer(ctx, "flights", q)
		if err != nil {
			b.Fatal(err)
		}
		got, err := rolled.Answer(ctx, "flights", q)
		if err != nil {
			b.Fatal(err)
		}
		if diff := sameRows(want.Rows, got.Rows); diff != "" || len(want.Rows) == 0 {
			b.Fatalf("rollup and base tables disagree on %+v: %s", q, diff)
		}
		eq := *q
		eq.Explain = true
		p, err := rolled.PlanSQL(ctx, "flights", &eq)
		if err != nil || !strings.Contains(p.Explain, "rollup dashboard: used") {
			b.Fatalf("the rollup does not answer %+v: %v\n%s", q, err, p.Explain)
		}
	}
	n := e.raw(ctx, b, "SELECT COUNT(*) FROM flights")[0][0]
	b.Run(fmt.Sprintf("rows=%v", n), func(b *testing.B) {
		b.Run("base", answerDashboard(ctx, base))
		b.Run("rollup", answerDashboard(ctx, rolled))
	})
}
