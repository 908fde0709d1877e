package postgres_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// TestLiteralsReadTheSameForEveryRole: a role whose default is
// standard_conforming_strings=off would read a backslash in a planned
// literal as an escape and let a value end the literal early; the engine
// pins the setting on, so a quoted value comes back exactly.
func TestLiteralsReadTheSameForEveryRole(t *testing.T) {
	admin, dsn := open(t)
	role := "legacy_" + randSuffix(t, admin)
	mustExec(t, admin, `CREATE ROLE "`+role+`" LOGIN PASSWORD 'legacy-pw'; ALTER ROLE "`+role+`" SET standard_conforming_strings = off`)
	t.Cleanup(func() {
		_ = admin.Exec(context.Background(), `DROP ROLE "`+role+`"`)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "legacy-pw")
	e := openDSN(t, u.String())
	const value = `\') OR 1=1 --`
	res, err := e.Query(context.Background(), `SELECT current_setting('standard_conforming_strings'), `+dialect.Postgres.QuoteString(value), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Rows[0]; got[0] != "on" || got[1] != value {
		t.Errorf("setting %v, literal read back %q, want on and %q", got[0], got[1], value)
	}
}
