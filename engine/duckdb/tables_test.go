package duckdb

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The rollup table contract of engine.Materializer on DuckDB.
func TestTables(t *testing.T) {
	enginetest.Tables(t, openMem(t), []string{`bi "rollups"`})
}
