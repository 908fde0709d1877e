package duckdb

import (
	"context"
	"database/sql"
	"os"
	"slices"
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
// entry's prepared statement (entry nil: query run unprepared). A read
// that reaches its end remembers the result's shape in entry, as does one
// stopped by the caller after more rows than e.arrowMinRows. refused: the
// Arrow path just refused entry's remembered columns.
func (e *Engine) streamRows(ctx context.Context, query string, entry *stmtEntry, refused bool, cols engine.ColumnsFunc, row engine.RowFunc) error {
	var rows *sql.Rows
	var err error
	if entry != nil {
		rows, err = entry.stmt.QueryContext(ctx)
	} else {
		rows, err = e.db.QueryContext(ctx, query)
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
			if n > e.arrowMinRows { // a stopped read says only that it is large
				entry.remember(columns, true, refused)
			}
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
	entry.remember(columns, n > e.arrowMinRows, refused)
	return nil
}

// remember records the shape of a result read for entry, large or not;
// nil entry: nothing to remember. Only a large result whose every column
// the Arrow path reads is read through Arrow next time: another would be
// run twice (read through Arrow, refused, read again row by row). So is
// one whose columns the Arrow path refused (refused: just now) though the
// catalog did not change them: DuckDB's Arrow form differs from what
// arrowvalues.go expects (a setting such as arrow_large_buffer_size).
func (entry *stmtEntry) remember(cols []engine.Column, large, refused bool) {
	if entry == nil {
		return
	}
	prev := entry.shape.Load()
	stuck := prev != nil && (refused || prev.refused) && slices.Equal(prev.cols, cols)
	entry.shape.Store(&resultShape{cols: cols, arrow: large && !stuck && arrowReadable(cols), refused: stuck})
}
