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
	// arrowMinRows: a SQL text whose last answer had more rows is read
	// through Arrow next time (fetch_rows.go).
	arrowMinRows int
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
	return &Engine{db: db, stmts: newStmtCache(), arrowMinRows: arrowMinRows()}, nil
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
// A SQL text whose last answer was large is read as Arrow record batches
// when the build has them (fetch_arrow.go), else row by row
// (fetch_rows.go); both hand over the same values.
// Cancelling ctx interrupts DuckDB; the error then wraps ctx.Err().
func (e *Engine) Stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	entry, prepared := e.stmts.prepared(ctx, e.db, query)
	if !prepared {
		return e.streamRows(ctx, query, nil, false, cols, row)
	}
	shape := entry.shape.Load()
	if shape != nil && shape.arrow {
		if done, err := e.streamArrow(ctx, entry, shape, cols, row); done {
			return err
		}
		return e.streamRows(ctx, query, entry, true, cols, row)
	}
	return e.streamRows(ctx, query, entry, false, cols, row)
}

// Exec runs one statement that returns no rows. The result shapes the
// statement cache remembered are forgotten: a replaced table may give a
// SQL text columns whose Arrow form is that of the old ones (HUGEINT and
// DECIMAL(38,0), VARCHAR and JSON), which the Arrow path cannot tell apart.
func (e *Engine) Exec(ctx context.Context, stmt string) error {
	defer e.stmts.forgetShapes()
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
