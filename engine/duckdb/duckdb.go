// Package duckdb runs Ossie queries on an embedded, in-process DuckDB
// (github.com/duckdb/duckdb-go/v2, database/sql driver "duckdb"): a database
// file or an in-memory database whose dataset sources may be tables, views
// or Parquet/CSV/JSON files (DESIGN.md section 7).
package duckdb

import (
	"context"
	"database/sql"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Engine is an open DuckDB database. It implements engine.Engine and is
// safe for concurrent use.
type Engine struct {
	db    *sql.DB
	stmts *stmtCache
}

var _ engine.Engine = (*Engine)(nil)

// Open opens the DuckDB database file at path, creating it when missing;
// "" (or ":memory:") opens a private in-memory database. DuckDB settings may
// follow the path as a query string, e.g. "db.duckdb?access_mode=READ_ONLY".
// Opening the same file twice in one process shares one database instance
// (the driver caches instances). A file that cannot be opened (locked by
// another process, not a DuckDB file, unwritable directory) is an
// *engine.Error wrapping engine.ErrUnavailable.
func Open(path string) (*Engine, error) {
	conn, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, &engine.Error{Class: engine.ErrUnavailable, Message: "duckdb: cannot open database: " + driverMessage(err), Err: err}
	}
	db := sql.OpenDB(conn)
	// DuckDB parallelises inside one query; a few idle connections avoid
	// reconnect cost between requests without hoarding memory.
	db.SetMaxIdleConns(4)
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return nil, &engine.Error{Class: engine.ErrUnavailable, Message: "duckdb: cannot open database: " + driverMessage(err), Err: err}
	}
	return &Engine{db: db, stmts: newStmtCache()}, nil
}

// Dialect is dialect.DuckDB.
func (e *Engine) Dialect() dialect.Dialect { return dialect.DuckDB }

// DB exposes the underlying pool for callers that need driver features the
// Engine interface does not cover (appenders, prepared statements).
func (e *Engine) DB() *sql.DB { return e.db }

// Close closes the pool and the database (other handles on the same file
// in this process keep it open).
func (e *Engine) Close() error {
	e.stmts.close()
	return e.db.Close()
}

// Query runs sql and returns at most maxRows rows (maxRows <= 0: all),
// reading one row beyond the cap to set Truncated (engine.Collect).
func (e *Engine) Query(ctx context.Context, query string, maxRows int) (*engine.Result, error) {
	return engine.Collect(ctx, e, query, maxRows)
}

// Stream runs query and hands each row to row as DuckDB produces it; the
// row slice is reused. Values are converted by engine.Converter
// (convert.go for DuckDB's own types).
// Statements are prepared once per SQL text and reused (stmtcache.go).
// Cancelling ctx interrupts DuckDB; the error then wraps ctx.Err().
func (e *Engine) Stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	var rows *sql.Rows
	var err error
	if stmt, ok := e.stmts.prepared(ctx, e.db, query); ok {
		rows, err = stmt.QueryContext(ctx)
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
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return classify(ctx, err)
		}
		for i, v := range scan {
			out[i] = convs[i](v)
		}
		if err := row(out); err != nil {
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
	return nil
}

// Exec runs one statement that returns no rows.
func (e *Engine) Exec(ctx context.Context, stmt string) error {
	if _, err := e.db.ExecContext(ctx, stmt); err != nil {
		return classify(ctx, err)
	}
	return nil
}

// quotePath quotes each part of a table path and joins them with dots.
func quotePath(parts []string) (string, error) {
	if len(parts) == 0 || len(parts) > 3 {
		return "", fmt.Errorf("duckdb: a table path has 1 to 3 parts, got %d", len(parts))
	}
	var s string
	for i, p := range parts {
		if p == "" {
			return "", fmt.Errorf("duckdb: empty part in table path %q", parts)
		}
		if i > 0 {
			s += "."
		}
		s += dialect.DuckDB.QuoteIdent(p)
	}
	return s, nil
}
