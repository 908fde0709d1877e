//go:build !duckdb_arrow

package duckdb

import (
	"context"

	"github.com/ossie-dev/ossie/engine"
)

// streamArrow is not built: the driver's Arrow interface needs the
// duckdb_arrow build tag (docs/development.md), so every answer is read
// row by row (fetch_rows.go), without running the query here.
func (e *Engine) streamArrow(context.Context, string, engine.ColumnsFunc, engine.RowFunc) (arrowRead, error) {
	return arrowRead{refused: true}, nil
}
