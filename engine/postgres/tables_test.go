package postgres_test

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The rollup table contract of engine.Materializer on PostgreSQL.
func TestTables(t *testing.T) {
	e, _ := open(t)
	enginetest.Tables(t, e, []string{`bi "rollups"`})
}
