package postgres_test

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The view contract of engine.Viewer on PostgreSQL (enginetest.Views),
// including replacement with other columns, which CREATE OR REPLACE VIEW
// refuses: the engine drops and creates the view in one transaction.
func TestViews(t *testing.T) {
	e, _ := open(t)
	enginetest.Views(t, e, "SELECT 2 AS b, 'x'::text AS c")
}
