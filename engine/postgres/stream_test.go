package postgres_test

import (
	"testing"

	"github.com/ossie-dev/ossie/engine/enginetest"
)

// The engine.Stream contract on PostgreSQL: a stopped stream cancels its
// statement and the pool answers the next query.
func TestStream(t *testing.T) {
	e, _ := open(t)
	enginetest.Stream(t, e, "SELECT n FROM generate_series(1, 100000) AS n ORDER BY n", 100000)
}
