package duckdb

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The engine.Stream contract on DuckDB, over more rows than one DuckDB
// vector (2,048) so stopping happens mid-result.
func TestStream(t *testing.T) {
	enginetest.Stream(t, openMem(t), "SELECT range AS n FROM range(1, 10001) ORDER BY n", 10000)
}
