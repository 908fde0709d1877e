package duckdb

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The view contract of engine.Viewer on DuckDB (enginetest.Views).
func TestViews(t *testing.T) {
	enginetest.Views(t, openMem(t), "SELECT 2 AS b, 'x' AS c")
}
