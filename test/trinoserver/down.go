package trinoserver

import "testing"

// DownDSN is a DSN like Server.DSN for a coordinator that is not running:
// a loopback port that was free a moment ago (listened on, then closed),
// for tests of an unreachable engine. It fails t when no port can be had.
func DownDSN(t testing.TB, user, catalog string) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return loopbackDSN(port, user, catalog, "")
}
