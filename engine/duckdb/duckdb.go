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

// losslessArrow is the DuckDB setting (GLOBAL scope, DuckDB ≥ 1.1) under
// which every DuckDB type has an Arrow form of its own: HUGEINT, UHUGEINT
// and BIT become arrow.opaque extensions naming the DuckDB type, UUID
// arrow.uuid, JSON arrow.json and BOOLEAN arrow.bool8 (a byte a value),
// where by default HUGEINT and DECIMAL(38,0) are both decimal128(38,0)
// and UUID, JSON and VARCHAR all utf8. Open sets it before any sandbox
// locks the configuration, so an Arrow schema alone says the DuckDB type
// of each column (arrowtypes.go).
const losslessArrow = "SET GLOBAL arrow_lossless_conversion = true"

// setLosslessArrow sets losslessArrow unless it is set: a database file
// opened again in this process is the same instance, whose configuration
// an earlier Engine may have set and then locked (sandbox.go).
func setLosslessArrow(db *sql.DB) error {
	var on bool
	err := db.QueryRow(`SELECT current_setting('arrow_lossless_conversion')`).Scan(&on)
	if err == nil && on {
		return nil
	}
	_, err = db.Exec(losslessArrow)
	return err
}

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
	if err := setLosslessArrow(db); err != nil {
		_ = db.Close()
		return nil, &engine.Error{Class: engine.ErrUnavailable, Message: "duckdb: cannot set arrow_lossless_conversion: " + driverMessage(err), Err: err}
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
// (convert.go for DuckDB's own types). The first ask of a SQL text, and
// one whose last answer was large, is read as Arrow record batches when
// the build has them (fetch_arrow.go); any other row by row with its
// prepared statement (fetch_rows.go, stmtcache.go); both hand over the
// same columns and values. A first ask whose columns Arrow does not read
// (TIMETZ, BIT, UNION) runs twice: through Arrow, which stops at the
// schema, then row by row.
// Cancelling ctx interrupts DuckDB; the error then wraps ctx.Err().
func (e *Engine) Stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	entry := e.stmts.entry(query)
	if next := entry.next.Load(); next == nextFirst || next == nextArrow {
		read, err := e.streamArrow(ctx, query, cols, row)
		if read.refused {
			entry.next.Store(nextRefused)
			return e.streamRows(ctx, entry, cols, row)
		}
		if err == nil {
			e.remember(entry, read.rows, read.stopped)
		}
		return err
	}
	return e.streamRows(ctx, entry, cols, row)
}

// arrowRead is what an Arrow read (Engine.streamArrow) tells of itself.
type arrowRead struct {
	// refused: it read nothing, as a column is of a type the Arrow path
	// does not read (or the build has no Arrow); read row by row.
	refused bool
	// rows were handed over; stopped: by the caller, before the end.
	rows    int
	stopped bool
}

// Exec runs one statement that returns no rows. The SQL texts whose
// columns the Arrow path refused are tried through Arrow again: the
// statement may have changed the setting or the column behind it.
func (e *Engine) Exec(ctx context.Context, stmt string) error {
	defer e.stmts.forgetRefusals()
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
