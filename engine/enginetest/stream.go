package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// Stream checks the engine.Stream contract on e with a series of n rows
// (n >= 5): the SQL must return one BIGINT-like column holding 1..n in
// order. Rows arrive in order and complete; ErrStop from the row callback
// ends the stream cleanly after exactly the rows read, and the engine
// answers the next query (the stopped statement was released); another
// callback error comes back as is; Query on top of Stream caps and flags
// truncation.
func Stream(t *testing.T, e engine.Engine, series string, n int) {
	t.Helper()
	ctx := context.Background()
	var got []int64
	var cols []engine.Column
	err := e.Stream(ctx, series, func(c []engine.Column) error {
		cols = slices.Clone(c)
		return nil
	}, func(row []any) error {
		v, ok := engine.Int64(row[0])
		if !ok {
			return fmt.Errorf("value %T %v is not an integer", row[0], row[0])
		}
		got = append(got, v)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(cols) != 1 || len(got) != n || got[0] != 1 || got[n-1] != int64(n) {
		t.Fatalf("Stream: columns %v, %d rows (first %v)", cols, len(got), got[:min(3, len(got))])
	}

	read := 0
	err = e.Stream(ctx, series, func([]engine.Column) error { return nil }, func([]any) error {
		read++
		if read == 3 {
			return engine.ErrStop
		}
		return nil
	})
	if err != nil || read != 3 {
		t.Fatalf("Stream stopped after 3 rows: err %v, rows read %d", err, read)
	}
	boom := errors.New("client went away")
	err = e.Stream(ctx, series, func([]engine.Column) error { return nil }, func([]any) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("callback error: got %v", err)
	}
	res, err := e.Query(ctx, series, n-1)
	if err != nil || len(res.Rows) != n-1 || !res.Truncated {
		t.Fatalf("Query capped at %d: err %v rows %d truncated %v", n-1, err, len(res.Rows), res != nil && res.Truncated)
	}
	res, err = e.Query(ctx, series, n)
	if err != nil || len(res.Rows) != n || res.Truncated {
		t.Fatalf("Query capped at %d: err %v rows %d truncated %v", n, err, len(res.Rows), res != nil && res.Truncated)
	}
}
