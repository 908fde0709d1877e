package engine

import (
	"context"
	"errors"
	"slices"
)

// ErrStop, returned by a RowFunc, ends a Stream early without an error:
// Stream stops reading, releases the statement (PostgreSQL and Trino
// cancel it on the server) and returns nil.
var ErrStop = errors.New("stop reading rows")

// ColumnsFunc receives the result columns once, before the first row. An
// error from it ends the Stream with that error (ErrStop: with nil).
type ColumnsFunc func(cols []Column) error

// RowFunc receives one row of converted values (the Go values documented
// on Result), in the engine's order, as soon as it is read. The slice is
// reused for the next row: copy it to keep it. An error from it ends the
// Stream with that error (ErrStop: with nil).
type RowFunc func(row []any) error

// Collect gathers at most maxRows rows of a Stream (maxRows <= 0: all)
// into a Result, stopping at the first row beyond the cap and setting
// Truncated. It is the Query of every engine.
func Collect(ctx context.Context, e Engine, sql string, maxRows int) (*Result, error) {
	res := &Result{Rows: [][]any{}}
	err := e.Stream(ctx, sql, func(cols []Column) error {
		res.Columns = cols
		return nil
	}, func(row []any) error {
		if maxRows > 0 && len(res.Rows) == maxRows {
			res.Truncated = true
			return ErrStop
		}
		res.Rows = append(res.Rows, slices.Clone(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Stopped is what a Stream returns for a callback's error: nil for
// ErrStop (a clean early end), else the error itself.
func Stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}
