package localcluster_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localcluster"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestLoadFlights: the committed sample arrives in PostgreSQL whole — row
// counts and a checksum per table equal DuckDB's reading of the files.
func TestLoadFlights(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Shared(t).NewDatabase(t)
	data := filepath.Join(kubetest.Root(), "examples", "flights", "data")
	n, err := localcluster.LoadFlights(ctx, dsn, data)
	if err != nil {
		t.Fatal(err)
	}
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	var want [2]struct {
		n         int64
		sum       float64
		firstDate string
	}
	if err := duck.QueryRow(`SELECT COUNT(*), SUM(distance) + SUM(delay), strftime(MIN(date), '%Y-%m-%d %H:%M:%S') FROM read_parquet('`+filepath.Join(data, "flights-sample.parquet")+`')`).
		Scan(&want[0].n, &want[0].sum, &want[0].firstDate); err != nil {
		t.Fatal(err)
	}
	if err := duck.QueryRow(`SELECT COUNT(*), SUM(latitude + longitude), MIN(iata) FROM read_csv('`+filepath.Join(data, "airports.csv")+`')`).
		Scan(&want[1].n, &want[1].sum, &want[1].firstDate); err != nil {
		t.Fatal(err)
	}
	var got [2]struct {
		n         int64
		sum       float64
		firstDate string
	}
	if err := pg.QueryRow(ctx, `SELECT COUNT(*), (SUM(distance) + SUM(delay))::float8, to_char(MIN(date), 'YYYY-MM-DD HH24:MI:SS') FROM flights`).
		Scan(&got[0].n, &got[0].sum, &got[0].firstDate); err != nil {
		t.Fatal(err)
	}
	if err := pg.QueryRow(ctx, `SELECT COUNT(*), SUM(latitude + longitude)::float8, MIN(iata COLLATE "C") FROM airports`).
		Scan(&got[1].n, &got[1].sum, &got[1].firstDate); err != nil {
		t.Fatal(err)
	}
	if n != want[0].n || n != 30000 {
		t.Errorf("LoadFlights returned %d, DuckDB reads %d", n, want[0].n)
	}
	for i, table := range []string{"flights", "airports"} {
		if d := got[i].sum - want[i].sum; got[i].n != want[i].n || got[i].firstDate != want[i].firstDate || d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: PostgreSQL %+v, DuckDB %+v", table, got[i], want[i])
		}
	}
}
