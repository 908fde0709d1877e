package plan_test

import (
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// TestGovernedGoldenPostgres is TestGovernedGolden on a real PostgreSQL
// loaded with shop.sql (hash masks use PostgreSQL's md5).
func TestGovernedGoldenPostgres(t *testing.T) {
	eng := openShopPostgres(t)
	checkGovernedGoldens(t, loadGovernedShop(t), dialect.Postgres, func(t *testing.T, q string) [][]any { return pgRows(t, eng, q) })
}
