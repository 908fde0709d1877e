package pgwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// A dataset the model joins by several paths (case JA-01: the calendar by
// order day and by ship day) has one column per path besides its own,
// `calendar_month@orders_ship_date`, so a BI tool picks the role of the
// dimension as it picks any column: both months in one query, a filter
// along one path beside a dimension along the other, ordered by both.
// Without a metric, such a column lists the rows of its path's fact. The
// answers are hand-written SQL's; the bare column, which names no path,
// is refused as over HTTP (OSS4011).
func TestViaColumns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const dir = "../../test/conformance/testdata/JA-01/"
	tables, err := os.ReadFile(dir + "tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(ctx, string(tables)); err != nil {
		t.Fatal(err)
	}
	models, err := load.Models([]string{dir + "model.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, serveSQL(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)

	_, cols := sqlRows(t, c, `SELECT column_name FROM information_schema.columns WHERE table_schema = 'ja01' ORDER BY ordinal_position`)
	var names []string
	for _, r := range cols {
		names = append(names, fmt.Sprint(r[0]))
	}
	for _, want := range []string{"calendar_month", "calendar_month@orders_order_date", "calendar_month@orders_ship_date", "calendar_day@orders_ship_date", "calendar_kind@orders_order_date"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("no column %s among %v", want, names)
		}
	}

	got := simpleRows(t, c, `SELECT "calendar_month@orders_order_date" AS ordered, "calendar_month@orders_ship_date" AS shipped, revenue
		FROM ja01.ja01 WHERE "calendar_kind@orders_ship_date" = 'weekday' GROUP BY 1, 2 ORDER BY 2 DESC, 1`)
	eres, err := eng.Query(ctx, `SELECT co.month, cs.month, SUM(o.amount) FROM orders o
		LEFT JOIN calendar co ON co.day = o.order_day LEFT JOIN calendar cs ON cs.day = o.ship_day
		WHERE cs.kind = 'weekday' GROUP BY 1, 2 ORDER BY 2 DESC, 1`, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameRows(got, eres.Rows); err != nil || len(got) == 0 {
		t.Errorf("both months, ship-day weekdays: %v", err)
	}

	// Without a metric, a column along a path lists the rows of that
	// path's fact (orders), as a query's through does over HTTP.
	got = simpleRows(t, c, `SELECT DISTINCT "calendar_kind@orders_ship_date" FROM ja01.ja01 ORDER BY 1`)
	eres, err = eng.Query(ctx, `SELECT DISTINCT cs.kind FROM orders o LEFT JOIN calendar cs ON cs.day = o.ship_day ORDER BY 1 NULLS LAST`, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameRows(got, eres.Rows); err != nil || len(got) < 2 {
		t.Errorf("ship-day kinds of the orders: %v", err)
	}

	_, err = c.Exec(ctx, `SELECT calendar_month, revenue FROM ja01.ja01`, pgx.QueryExecModeSimpleProtocol)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message+pe.Detail, "OSS4011") || !strings.Contains(pe.Message+pe.Detail, "orders_ship_date") {
		t.Errorf("the bare calendar_month with revenue: %v", err)
	}
}

// serveSQL runs the SQL endpoint of srv on a loopback port until the test
// ends and returns its libpq URL.
func serveSQL(t *testing.T, srv Backend) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- New(srv, Options{}).Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "postgres://bi@" + ln.Addr().String() + "/ossie?sslmode=disable"
}
