package pgwire

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A tiny metric query over the wire against the same over HTTP, on one
// connection and on 8 concurrent ones (the result cache is off, so both
// run the engine each time).
func BenchmarkTinyQuery(b *testing.B) {
	f := newFixture(b, false, Options{})
	const sql = `SELECT customers_state, order_count FROM shop.shop GROUP BY 1`
	const body = `{"metrics":["order_count"],"dimensions":["customers.state"]}`
	wire := func(b *testing.B, c *pgx.Conn) {
		rows, err := c.Query(context.Background(), sql)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if rows.Err() != nil {
			b.Fatal(rows.Err())
		}
	}
	httpQuery := func(b *testing.B) {
		resp, err := http.Post(f.http.URL+"/v1/models/shop/query", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
	}
	b.Run("wire", func(b *testing.B) {
		c := f.connect(b, "")
		b.ReportAllocs()
		for b.Loop() {
			wire(b, c)
		}
	})
	b.Run("http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			httpQuery(b)
		}
	})
	b.Run("wire-8-connections", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0))) // 8 connections
		b.RunParallel(func(pb *testing.PB) {
			c, err := pgx.Connect(context.Background(), f.url(""))
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close(context.Background())
			for pb.Next() {
				wire(b, c)
			}
		})
	})
}
