package catalog

import (
	"os"
	"testing"

	"github.com/ossie-dev/ossie/test/motoserver"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestMain stops the shared PostgreSQL and moto servers the tests started.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	motoserver.StopShared()
	os.Exit(code)
}
