package wire

import (
	"context"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/pgwire"
	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Queries answered over the wire (SQLFor's SQL through pgx) equal the
// same queries answered by the server's query path, value by value.
func TestAnswerEqualsTheServersAnswer(t *testing.T) {
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tables, err := os.ReadFile("../../../server/testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := eng.Exec(ctx, string(tables)); err != nil {
		t.Fatal(err)
	}
	arts, err := load.Models([]string{"../../../server/testdata/shop.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- pgwire.New(srv, pgwire.Options{}).Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	url := "postgres://bi@" + ln.Addr().String() + "/ossie?sslmode=disable"
	detail, err := srv.DescribeModel(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`{"metrics":["revenue","order_count","avg_amount"],"dimensions":["customers.state"]}`,
		`{"metrics":["order_count"],"dimensions":[{"field":"orders.order_date","grain":"month"}],"order_by":[{"key":"orders.order_date.month","dir":"desc"}],"limit":2}`,
		`{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"not_in","values":["returned"]},{"field":"orders.order_date","op":"in_date_range","values":["2024-01-01","2024-03-03"]},{"metric":"revenue","op":"gt","values":[6]}]}`,
		`{"metrics":[],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"contains","values":["ip"]}]}`,
		`{"metrics":["order_count"],"filters":[{"field":"customers.state","op":"is_null"}],"timezone":"America/New_York"}`,
		`{"metrics":["order_count"],"dimensions":["orders.order_id"],"filters":[{"field":"orders.amount","op":"gte","values":[10.5]}],"order_by":[{"key":"order_count"}],"offset":1}`,
	} {
		got, err := Answer(ctx, url, &detail, []byte(q))
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		pq, _ := plan.ParseQuery([]byte(q))
		resp, err := srv.Answer(ctx, "shop", pq)
		if err != nil {
			t.Fatal(err)
		}
		want := dcase.Result{}
		for _, c := range resp.Columns {
			want.Columns = append(want.Columns, dcase.ResultColumn{Name: c.Name, Datatype: c.Type})
		}
		for _, r := range resp.Rows {
			row := make([]any, len(r))
			for i, v := range r {
				row[i] = canonicalHTTP(v, resp.Columns[i].Type)
			}
			want.Rows = append(want.Rows, row)
		}
		if len(got.Rows) == 0 && len(want.Rows) == 0 {
			t.Errorf("%s: no rows on either side, nothing compared", q)
		}
		if err := dcase.Compare(want, got, true); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

func canonicalHTTP(v any, typ string) any {
	s, ok := v.(string)
	switch {
	case ok && (typ == "Decimal" || typ == "Float"):
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case ok && typ == "Date":
		d, _ := time.Parse("2006-01-02", s)
		return d
	case typ == "Decimal" || typ == "Float":
		if i, ok := v.(int64); ok {
			return float64(i)
		}
	}
	return v
}
