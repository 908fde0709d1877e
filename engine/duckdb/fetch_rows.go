package duckdb

import (
	"context"
	"database/sql"
	"os"
	"strconv"

	"github.com/ossie-dev/ossie/engine"
)

// defaultArrowMinRows is the answer size above which a SQL text is read as
// Arrow record batches the next time (fetch_arrow.go): DuckDB's vector
// size, so an answer of one chunk keeps the cached prepared statement (the
// Arrow read prepares the statement again, which costs a small answer
// more than its values do).
const defaultArrowMinRows = 2048

// ArrowMinRowsEnv names the environment variable that, set to a whole
// number, replaces defaultArrowMinRows for the engines opened afterwards.
// The differential test sets 0, so that every answer it asks more than
// once is read through Arrow too and compared with the reference.
const ArrowMinRowsEnv = "OSSIE_DUCKDB_ARROW_MIN_ROWS"

// arrowMinRows is defaultArrowMinRows, or ArrowMinRowsEnv's number.
func arrowMinRows() int {
	if n, err := strconv.Atoi(os.Getenv(ArrowMinRowsEnv)); err == nil && n >= 0 {
		return n
	}
	return defaultArrowMinRows
}

// streamRows is Stream through database/sql, one value at a time, with
// entry's prepared statement (prepared on this first row-by-row read of
// it; the query run unprepared when it cannot be). The read remembers in
// entry how to read the SQL text next time (remember).
func (e *Engine) streamRows(ctx context.Context, entry *stmtEntry, cols engine.ColumnsFunc, row engine.RowFunc) error {
	var rows *sql.Rows
	var err error
	if stmt := entry.prepared(ctx, e.db); stmt != nil {
		rows, err = stmt.QueryContext(ctx)
	} else {
		rows, err = e.db.QueryContext(ctx, entry.sql)
	}
	if err != nil {
		return classify(ctx, err)
	}
	defer rows.Close()

	types, err := rows.ColumnTypes()
	if err != nil {
		return classify(ctx, err)
	}
	columns := make([]engine.Column, len(types))
	convs := make([]func(any) any, len(types))
	for i, t := range types {
		columns[i] = engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
		convs[i] = converterFor(t.DatabaseTypeName())
	}
	if err := cols(columns); err != nil {
		return engine.Stopped(err)
	}
	scan := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range scan {
		ptrs[i] = &scan[i]
	}
	out := make([]any, len(types))
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return classify(ctx, err)
		}
		for i, v := range scan {
			out[i] = convs[i](v)
		}
		n++
		if err := row(out); err != nil {
			e.remember(entry, n, true)
			return engine.Stopped(err)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(ctx, err)
	}
	// database/sql reports a context cancelled mid-iteration as a normal end
	// of rows on some paths; a cut result must never look complete.
	if err := ctx.Err(); err != nil {
		return classify(ctx, err)
	}
	e.remember(entry, n, false)
	return nil
}

// remember records in entry how a read that handed over n rows (stopped:
// by the caller, so at least n) says to read its SQL text next time: a
// large answer (more than e.arrowMinRows rows) through Arrow, any other
// row by row with the prepared statement. A read stopped early says
// nothing of the answer's size: it changes only a first ask, to row by
// row. A SQL text the Arrow path refused stays refused (forgetRefusals).
func (e *Engine) remember(entry *stmtEntry, n int, stopped bool) {
	large := n > e.arrowMinRows
	if stopped && !large {
		entry.next.CompareAndSwap(nextFirst, nextRows)
		return
	}
	next := nextRows
	if large {
		next = nextArrow
	}
	for {
		prev := entry.next.Load()
		if prev == nextRefused || entry.next.CompareAndSwap(prev, next) {
			return
		}
	}
}
