package pgwire

import (
	"context"
	"encoding/json"
	"testing"
)

// The session time zone (SET TIME ZONE, or the TimeZone startup
// parameter) is the query time zone of the plan.Query each SELECT becomes.
func TestSessionTimeZoneIsTheQueryZone(t *testing.T) {
	f := newFixture(t, false, Options{})
	cat := loadCatalog(context.Background(), f.srv)
	stmts, err := parseSQL(`SELECT DATE_TRUNC('week', orders_order_date), order_count FROM shop.shop WHERE orders_status = 'placed' GROUP BY 1 ORDER BY 2 DESC LIMIT 3`)
	if err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{"", "America/New_York"} {
		tr := &translator{cat: cat, params: &paramSet{bound: true}, zone: zone}
		sem, err := tr.selectStmt(stmts[0].GetStmt().GetSelectStmt())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(sem.query)
		want := `{"metrics":["order_count"],"dimensions":[{"field":"orders.order_date","grain":"week"}],"filters":[{"field":"orders.status","op":"=","values":["placed"]}],"order_by":[{"key":"order_count","dir":"desc"}],"limit":3`
		if zone != "" {
			want += `,"timezone":"` + zone + `"`
		}
		if string(got) != want+"}" {
			t.Errorf("zone %q:\n got %s\nwant %s}", zone, got, want)
		}
	}
	// Over the wire: SET TIME ZONE reaches the session.
	c := f.connect(t, "")
	if _, err := c.Exec(context.Background(), `SET TIME ZONE 'America/New_York'`); err != nil {
		t.Fatal(err)
	}
	var z string
	if err := c.QueryRow(context.Background(), `SHOW TimeZone`).Scan(&z); err != nil || z != "America/New_York" {
		t.Errorf("SHOW TimeZone: %q %v", z, err)
	}
}
