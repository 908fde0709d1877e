// Package engine is the contract between Ossie and the SQL engines that run
// planned queries (DESIGN.md section 7). Each engine lives in its own
// sub-package (duckdb, postgres, trino) and owns its dialect, its
// introspection and the classification of its errors: a missing table or
// column is drift (ErrNotFound), an object the engine's user may not read
// is drift of its own kind (ErrPermissionDenied), a failure to reach the
// engine is transient (ErrUnavailable). Callers branch with errors.Is and
// never parse messages.
package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Engine runs SQL on one database. Implementations are safe for concurrent
// use by multiple goroutines.
type Engine interface {
	// Dialect is the SQL dialect the planner must emit for this engine.
	Dialect() dialect.Dialect
	// Query runs one SELECT and returns at most maxRows rows (maxRows <= 0:
	// no cap); Result.Truncated reports that more rows existed. Cancelling
	// ctx interrupts the running statement; the error then wraps ctx.Err().
	Query(ctx context.Context, sql string, maxRows int) (*Result, error)
	// Stream runs one SELECT and hands its columns to cols, then each row
	// to row as it is read, so memory does not grow with the answer
	// (stream.go). It returns when the rows end, when a callback returns an
	// error (ErrStop: a clean early end, Stream returns nil) or when ctx
	// is cancelled (the error then wraps ctx.Err()). A cancelled or failed
	// statement never ends like a complete one.
	Stream(ctx context.Context, sql string, cols ColumnsFunc, row RowFunc) error
	// Exec runs one statement that returns no rows (DDL such as CREATE VIEW).
	Exec(ctx context.Context, sql string) error
	// Describe lists the columns of a table or view named by its path parts
	// (catalog, schema, table; fewer parts use the engine's defaults). A
	// missing object is an error wrapping ErrNotFound.
	Describe(ctx context.Context, table []string) ([]Column, error)
	// Close releases the connection pool.
	Close() error
}

// Result is the outcome of Query. Rows hold JSON-friendly Go values (nil,
// bool, int64, float64, string, []byte, time.Time, []any, map[string]any);
// each row has len(Columns) values.
type Result struct {
	Columns   []Column
	Rows      [][]any
	Truncated bool
}

// Column is a result or table column: its name and the engine's type name
// as the engine spells it (e.g. "BIGINT", "DECIMAL(10,2)", "VARCHAR").
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Error classes. An engine error wraps exactly one of them (or none when
// the engine refused the statement for another reason, such as a type
// error), so callers can tell drift from an outage from a bad query.
var (
	// ErrNotFound: a table, view, column or file the statement needs does
	// not exist. The operator reports it as drift.
	ErrNotFound = errors.New("not found")
	// ErrPermissionDenied: the object exists but the engine's user may not
	// read it (PostgreSQL SQLSTATE 42501, Trino PERMISSION_DENIED, a file
	// the process may not open). Like ErrNotFound it needs a fix outside
	// Ossie (a grant, not a retry); the operator reports it as drift with
	// its own reason.
	ErrPermissionDenied = errors.New("permission denied")
	// ErrSandboxed is the ErrPermissionDenied of an in-process engine's
	// sandbox (Sandboxer): the statement reads a file or changes a setting
	// the sandbox does not allow. The model's source, not a grant, is at
	// fault; errors.Is(err, ErrPermissionDenied) holds too.
	ErrSandboxed = fmt.Errorf("%w: outside the engine sandbox", ErrPermissionDenied)
	// ErrUnavailable: the engine cannot be reached or opened right now
	// (connection refused, database locked, out of resources). Transient:
	// retry with backoff; never drift.
	ErrUnavailable = errors.New("engine unavailable")
	// ErrOutOfMemory is the ErrUnavailable of a statement that needed more
	// memory than the engine may use (DuckDB's memory_limit, PostgreSQL
	// SQLSTATE 53200, Trino's memory limits): retrying may help when other
	// queries held the memory, a smaller question or a higher limit does
	// otherwise; errors.Is(err, ErrUnavailable) holds too.
	ErrOutOfMemory = fmt.Errorf("%w: out of memory", ErrUnavailable)
	// ErrInvalidInput: a value in the statement cannot be converted to the
	// type it is compared with (e.g. a filter value 'abc' on an integer
	// column whose datatype the model does not declare). The request is at
	// fault, not the engine or the model.
	ErrInvalidInput = errors.New("invalid input value")
)

// Error is a failure reported by an engine. Message is safe to show to API
// clients: engines build it from the engine's own diagnostic and never put
// connection strings or credentials in it. Err keeps the driver error for
// logs and errors.As.
type Error struct {
	// Class is ErrNotFound, ErrPermissionDenied, ErrSandboxed,
	// ErrUnavailable, ErrInvalidInput or nil.
	Class   error
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap exposes both the class (for errors.Is(err, ErrNotFound)) and the
// driver error.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Class != nil {
		out = append(out, e.Class)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}
