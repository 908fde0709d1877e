package duckdb

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/enginetest"
)

// firstAskQueries are a tiny and an 84k-row answer; %d makes each
// iteration's SQL text new, so every ask is a first ask.
var firstAskQueries = []struct{ name, sql string }{
	{"tiny", `SELECT i AS n, i * 2 AS twice FROM range(3) AS t(i) WHERE i <> -%d`},
	{"84k", `SELECT i AS n, i / 3 AS third, 'item ' || (i %% 500) AS label,
		DATE '2020-01-01' + (i %% 1000)::INTEGER AS day, i::DOUBLE * 1.25 AS amount
		FROM range(84000) AS t(i) WHERE i <> -%d`},
}

// asked numbers the SQL texts of BenchmarkFirstAsk, so that none is asked
// twice, across -count runs too.
var asked atomic.Int64

// BenchmarkFirstAsk streams answers of SQL texts never asked before
// (first) and of one SQL text asked again and again (repeat); unprepared
// is the baseline of first: new SQL texts through database/sql, every
// value scanned, as hand-written SQL runs.
func BenchmarkFirstAsk(b *testing.B) {
	e, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	discard := func([]any) error { return nil }
	noCols := func([]engine.Column) error { return nil }
	for _, q := range firstAskQueries {
		b.Run(q.name+"/first", func(b *testing.B) {
			for range b.N {
				if err := e.Stream(ctx, fmt.Sprintf(q.sql, asked.Add(1)), noCols, discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/unprepared", func(b *testing.B) {
			for range b.N {
				enginetest.ScanAll(b, e.DB(), fmt.Sprintf(q.sql, asked.Add(1)))
			}
		})
		b.Run(q.name+"/repeat", func(b *testing.B) {
			for range b.N {
				if err := e.Stream(ctx, fmt.Sprintf(q.sql, 0), noCols, discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
