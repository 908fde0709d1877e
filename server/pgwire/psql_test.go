package pgwire

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// psql runs Debian's psql (on PATH; required when OSSIE_REQUIRE_PSQL is
// set, as make test sets it) against the endpoint with password, and
// returns its output; a failing command fails the test.
func (f *fixture) psql(t *testing.T, password string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("psql")
	if err != nil {
		if os.Getenv("OSSIE_REQUIRE_PSQL") != "" {
			t.Fatal("psql is not on PATH and OSSIE_REQUIRE_PSQL is set")
		}
		t.Skip("psql is not on PATH")
	}
	cmd := exec.Command(bin, append([]string{"--no-psqlrc", "-X", "-v", "ON_ERROR_STOP=1", "-d", f.url(password)}, args...)...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PAGER=", "PGTZ=", "PGOPTIONS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q:\n%s", l, out)
		}
	}
}

// psql's describe commands list the models as schemas, their tables and
// columns with types and descriptions, and answer metric queries.
func TestPsql(t *testing.T) {
	f := newFixture(t, false, Options{})
	out := f.psql(t, "", "-A", "-c", `\dn`)
	wantLines(t, out, "shop|bi", "slow|bi")
	out = f.psql(t, "", "-A", "-c", `\dt *.*`)
	wantLines(t, out, "shop|shop|table|bi", "slow|slow|table|bi")
	out = f.psql(t, "", "-A", "-c", `\dt+ shop.*`)
	wantLines(t, out, "Orders of a small shop and the customers who placed them.")
	out = f.psql(t, "", "-c", `\d+ shop.shop`)
	wantLines(t, out, `Table "shop.shop"`, "customers_state", "order_count", "bigint", "revenue", "numeric", "orders_order_date", "date", "Number of orders.")
	out = f.psql(t, "", "-A", "-t", "-c", `SELECT customers_state, MEASURE(revenue) FROM shop.shop GROUP BY 1 ORDER BY 2 DESC LIMIT 2`)
	var got [][]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		state, rev, _ := strings.Cut(l, "|")
		got = append(got, []any{state, rev})
	}
	want := f.handRows(t, `SELECT coalesce(c.state, ''), SUM(o.amount) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 2 DESC LIMIT 2`)
	if err := sameRows(got, want); err != nil {
		t.Error(err)
	}
	// SET TIME ZONE is the session's query zone, read back by SHOW.
	out = f.psql(t, "", "-A", "-t", "-c", `SET TIME ZONE 'Europe/Paris'`, "-c", `SHOW timezone`, "-c", `SELECT version()`)
	wantLines(t, out, "Europe/Paris", "PostgreSQL "+ServerVersion)
}
