package pgwire

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A governed caller authenticates with its token as the password, sees
// only the columns its roles may read, and gets only its rows: the same
// answer as over HTTP with the same token, and as hand-written SQL with
// the role's row filters.
func TestGovernedCallerSeesFewerColumnsAndRows(t *testing.T) {
	f := newFixture(t, true, Options{})
	columns := func(c *pgx.Conn) []string {
		_, rows := sqlRows(t, c, `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'shop' ORDER BY ordinal_position`, "shop")
		var out []string
		for _, r := range rows {
			out = append(out, r[0].(string))
		}
		return out
	}
	analyst := f.connect(t, tokenState)
	auditor := f.connect(t, tokenAuditor)
	all, some := columns(auditor), columns(analyst)
	for _, hidden := range []string{"customers_customer_id", "orders_customer_id", "avg_amount"} {
		if !slices.Contains(all, hidden) {
			t.Errorf("auditor columns %v lack %s", all, hidden)
		}
		if slices.Contains(some, hidden) {
			t.Errorf("state analyst sees %s: %v", hidden, some)
		}
	}
	if len(some) == 0 || len(some) >= len(all) {
		t.Errorf("state analyst columns %v, auditor %v", some, all)
	}
	// The ops role reads orders only: no customers columns, one metric.
	ops := columns(f.connect(t, tokenOps))
	if strings.Join(ops, ",") != "orders_order_id,orders_customer_id,orders_status,orders_order_date,order_count" {
		t.Errorf("ops columns %v", ops)
	}

	sql := `SELECT customers_state, order_count, revenue FROM shop.shop GROUP BY 1 ORDER BY 1`
	_, wire := sqlRows(t, analyst, sql)
	// Row filters restrict each dataset; orders whose customer is
	// filtered away stay, under a NULL state (docs/governance.md).
	hand := f.handRows(t, `SELECT c.state, COUNT(o.order_id), SUM(o.amount)
		FROM (SELECT * FROM orders WHERE status <> 'returned') o
		LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c USING (customer_id)
		GROUP BY 1 ORDER BY 1 NULLS LAST`)
	if err := sameRows(wire, hand); err != nil {
		t.Errorf("governed wire vs hand-written SQL: %v", err)
	}
	http := f.httpRows(t, "shop", `{"metrics":["order_count","revenue"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`, tokenState)
	if err := sameRows(wire, http); err != nil {
		t.Errorf("governed wire vs HTTP: %v", err)
	}
	_, everyone := sqlRows(t, auditor, sql)
	if len(everyone) <= len(wire) {
		t.Errorf("auditor rows %v, analyst rows %v", everyone, wire)
	}

	// A hidden member is unknown, as over HTTP.
	_, err := analyst.Exec(context.Background(), `SELECT avg_amount FROM shop.shop`)
	if sqlState(err) != codeUndefinedColumn {
		t.Errorf("hidden metric: %v", err)
	}
	// The auditor sees order statuses hashed (the mask), not the values.
	_, statuses := sqlRows(t, auditor, `SELECT DISTINCT orders_status FROM shop.shop`)
	for _, r := range statuses {
		if s := r[0].(string); s == "placed" || s == "shipped" || s == "returned" {
			t.Errorf("auditor sees status %q unmasked", s)
		}
	}
}

func TestPasswordIsTheToken(t *testing.T) {
	f := newFixture(t, true, Options{})
	for _, pw := range []string{"", "not-a-token-000000000000000"} {
		_, err := pgx.Connect(context.Background(), f.url(pw))
		if err == nil || (sqlState(err) != codeAuth && !strings.Contains(err.Error(), "password")) {
			t.Errorf("password %q: %v", pw, err)
		}
	}
	f.connect(t, tokenState) // and the right one connects
}

// A cancel request (sent on its own connection with the key the
// server gave) stops the running query with 57014, and the connection
// keeps serving.
func TestCancelRequest(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.Exec(context.Background(), `SELECT MEASURE(rows) FROM slow.slow`)
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := c.PgConn().CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if sqlState(err) != codeCanceled {
			t.Errorf("cancelled query: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the query was not cancelled")
	}
	t.Logf("cancelled after %s", time.Since(start))
	if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
		t.Errorf("after cancel: %v", rows)
	}
}

// Statements outside semantic SQL are refused with a SQLSTATE and a
// message naming the construct.
func TestRefusals(t *testing.T) {
	f := newFixture(t, false, Options{})
	c := f.connect(t, "")
	for _, tc := range []struct{ sql, code, names string }{
		{`SELECT orders_status FROM shop.shop s JOIN slow.slow x ON true`, codeFeature, "JOIN"},
		{`SELECT orders_status FROM shop.shop WHERE orders_status = 'a' OR orders_status = 'b'`, codeFeature, "OR"},
		{`SELECT COUNT(*) FROM shop.shop`, codeFeature, "COUNT(*)"},
		{`SELECT SUM(orders_amount) FROM shop.shop`, codeGrouping, "orders_amount is a dimension"},
		{`SELECT nope FROM shop.shop`, codeUndefinedColumn, `"nope"`},
		{`SELECT order_count FROM nowhere.t`, codeUndefinedTable, `"nowhere.t"`},
		{`SELECT orders_status, order_count FROM shop.shop GROUP BY customers_state`, codeGrouping, "not selected"},
		{`SELECT upper(orders_status) FROM shop.shop`, codeFunction, "upper"},
		{`SELECT order_count FROM shop.shop WHERE order_count > 1`, codeGrouping, "HAVING"},
		{`SELECT orders_status FROM shop.shop WHERE orders_status LIKE 'a_c'`, codeFeature, "LIKE"},
		{`SELECT DATE_TRUNC('minute', orders_order_date) FROM shop.shop`, codeFeature, "minute"},
		{`INSERT INTO shop.shop VALUES (1)`, codeFeature, "INSERT"},
		{`SELECT orders_status FROM shop.shop UNION SELECT orders_status FROM shop.shop`, codeFeature, "UNION"},
		{`SELECT * FROM (SELECT order_count FROM shop.shop) t WHERE order_count > 1`, codeFeature, "subquery"},
		{`SELECT order_count FROM shop.shop ORDER BY 5`, codeInvalidColumnRef, "5"},
		{`SELEC 1`, codeSyntax, "syntax"},
		{`SELECT orders_status FROM shop.shop WHERE orders_order_date = 'tomorrowish'`, codeInvalidParam, "OSS"},
		{`SET TIME ZONE 'Mars/Olympus'`, codeInvalidParam, "TimeZone"},
	} {
		_, err := c.Exec(context.Background(), tc.sql)
		if sqlState(err) != tc.code || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%s: %v, want %s naming %q", tc.sql, err, tc.code, tc.names)
		}
	}
	// The connection still serves after every refusal.
	if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
		t.Errorf("after refusals: %v", rows)
	}
}
