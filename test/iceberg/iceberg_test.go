// Package iceberg tests drafting a model from an Apache Iceberg REST
// catalog seen through Trino's Iceberg connector, the way Apache Polaris is
// used: the catalog is Iceberg's published REST fixture (test/icebergrest),
// the engine a real Trino (test/trinoserver) with a catalog "iceberg" of
// type rest on a local-file-system warehouse. Tables are made through
// Trino, drafted by `ossiectl init --from engine --engine trino` and the
// catalog package under it, validated, and queried with `ossiectl query`
// on the same Trino; answers are checked against hand-written SQL.
package iceberg

import (
	"context"
	"os"
	"testing"

	"github.com/ossie-dev/ossie/test/icebergrest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// trinoCatalog is the Trino catalog name of the REST catalog.
const trinoCatalog = "iceberg"

func TestMain(m *testing.M) {
	code := m.Run()
	trinoserver.StopShared()
	icebergrest.StopShared()
	os.Exit(code)
}

// server starts (once) the REST catalog and a Trino reading it.
func server(t *testing.T) *trinoserver.Server {
	t.Helper()
	cat := icebergrest.Shared(t)
	trinoserver.SharedOptions.Plugins = []string{"iceberg"}
	trinoserver.SharedOptions.Catalogs = map[string]string{trinoCatalog: cat.TrinoCatalog()}
	return trinoserver.Shared(t)
}

func TestSmoke(t *testing.T) {
	srv := server(t)
	ctx := context.Background()
	if err := srv.Exec(ctx,
		`CREATE SCHEMA iceberg.shop`,
		`CREATE TABLE iceberg.shop.orders (order_id BIGINT COMMENT 'Order key', amount DECIMAL(12,2) COMMENT 'Order total') COMMENT 'One row per order'`,
		`INSERT INTO iceberg.shop.orders VALUES (1, 10.50), (2, 20.25)`,
	); err != nil {
		t.Fatal(err)
	}
	var n int
	var sum string
	if err := srv.DB.QueryRow(`SELECT count(*), CAST(sum(amount) AS VARCHAR) FROM iceberg.shop.orders`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d %s", n, sum)
}
