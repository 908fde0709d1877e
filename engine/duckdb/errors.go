package duckdb

import (
	"context"
	"errors"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/engine"
)

// classify turns a driver error into an *engine.Error with its class:
// missing catalog objects, columns and files are engine.ErrNotFound (drift);
// a file the process may not open (EACCES) is engine.ErrPermissionDenied;
// DuckDB's own permission errors (a file, file system or setting disabled
// by configuration: the sandbox) are engine.ErrSandboxed; connection, I/O-lock and memory failures are
// engine.ErrUnavailable (transient). A statement cut by ctx wraps ctx.Err() so callers can tell a
// timeout (context.DeadlineExceeded) from a cancelled request.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return &engine.Error{Message: "duckdb: query interrupted: " + cerr.Error(), Err: errors.Join(cerr, err)}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &engine.Error{Message: "duckdb: query interrupted: " + err.Error(), Err: err}
	}
	msg := driverMessage(err)
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return &engine.Error{Message: "duckdb: " + msg, Err: err}
	}
	return &engine.Error{Class: classOf(de), Message: "duckdb: " + msg, Err: err}
}

// classOf maps DuckDB's error type (and, where one type covers both cases,
// its message) to an engine error class.
func classOf(de *duckdb.Error) error {
	lower := strings.ToLower(de.Msg)
	// "Table "t" does not have a column named "c"" is how the binder
	// reports a missing column of a qualified reference; it is drift like
	// "Referenced column ... not found".
	notFound := strings.Contains(lower, "does not exist") ||
		strings.Contains(lower, "not found") ||
		strings.Contains(lower, "does not have a column named") ||
		strings.Contains(lower, "no files found")
	switch de.Type {
	case duckdb.ErrorTypeCatalog, duckdb.ErrorTypeBinder:
		if notFound {
			return engine.ErrNotFound
		}
	case duckdb.ErrorTypePermission:
		// Only configuration raises these (enable_external_access,
		// allowed_paths, lock_configuration); an OS refusal is an IO error.
		return engine.ErrSandboxed
	case duckdb.ErrorTypeIO:
		if notFound || strings.Contains(lower, "no such file") {
			return engine.ErrNotFound
		}
		if strings.Contains(lower, "permission denied") {
			return engine.ErrPermissionDenied
		}
		// Lock conflicts and unreadable storage clear up on their own or
		// need an operator, not a model change.
		return engine.ErrUnavailable
	case duckdb.ErrorTypeConversion, duckdb.ErrorTypeOutOfRange:
		if strings.Contains(lower, "type int128 with value") && strings.Contains(lower, "out of range for the destination type int64") {
			// An integer sum (HUGEINT) past int64 in the planner's cast of
			// an Integer metric to BIGINT: the data's, not the request's,
			// as PostgreSQL's and Trino's overflow errors are.
			return nil
		}
		return engine.ErrInvalidInput
	case duckdb.ErrorTypeOutOfMemory:
		return engine.ErrOutOfMemory
	case duckdb.ErrorTypeConnection, duckdb.ErrorTypeNetwork, duckdb.ErrorTypeHTTP, duckdb.ErrorTypeFatal:
		return engine.ErrUnavailable
	}
	return nil
}

// driverMessage is DuckDB's own diagnostic without the database/sql driver
// prefix. In-process DuckDB has no connection string or credentials to
// leak, so the message is safe to show.
func driverMessage(err error) string {
	var de *duckdb.Error
	if errors.As(err, &de) {
		return de.Msg
	}
	return strings.TrimPrefix(err.Error(), "database/sql/driver: ")
}
