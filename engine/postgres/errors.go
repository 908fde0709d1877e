package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/engine"
)

// SQLSTATE codes and classes (PostgreSQL manual, appendix A) that tell
// drift from an outage.
var (
	// A catalog object the statement names is missing: the model drifted.
	notFoundCodes = map[string]bool{
		"42P01": true, // undefined_table
		"42703": true, // undefined_column
		"3F000": true, // invalid_schema_name
	}
	// The object exists but the connected role may not read it: a grant
	// is missing (42501 insufficient_privilege).
	permissionCodes = map[string]bool{
		"42501": true,
	}
	// The server cannot serve right now; retrying later can succeed.
	unavailableCodes = map[string]bool{
		"3D000": true, // invalid_catalog_name: the configured database is gone
		"57P01": true, // admin_shutdown
		"57P02": true, // crash_shutdown
		"57P03": true, // cannot_connect_now (starting up, recovering)
		"57P04": true, // database_dropped
		"57P05": true, // idle_session_timeout
		"57014": true, // query_canceled (statement_timeout, cancel request)
		"40001": true, // serialization_failure
		"40P01": true, // deadlock_detected
	}
	// Class 28 (invalid authorization) is unavailable too, with its own
	// message: see authFailed.
	unavailableClasses = map[string]bool{
		"08": true, // connection exception
		"53": true, // insufficient resources: too_many_connections, disk full
		"58": true, // system error (I/O)
	}
)

// classify turns a pgx error into an *engine.Error. Missing tables,
// columns and schemas are engine.ErrNotFound (drift); a missing grant is
// engine.ErrPermissionDenied; refused credentials are also ErrAuthFailed,
// with a message naming the credentials; failures to connect,
// authenticate or keep a session, timeouts and resource exhaustion are
// engine.ErrUnavailable. A statement cut by ctx wraps ctx.Err(); a deadline
// counts as unavailable (the engine did not answer in time), a cancelled
// request has no class. secrets (the password, the DSN) are removed from
// the message.
func classify(ctx context.Context, err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := "postgres: " + engine.Scrub(message(err), secrets...)
	if cerr := ctx.Err(); cerr != nil {
		e := &engine.Error{Message: "postgres: query interrupted: " + cerr.Error(), Err: errors.Join(cerr, err)}
		if errors.Is(cerr, context.DeadlineExceeded) {
			e.Class = engine.ErrUnavailable
		}
		return e
	}
	if authFailed(err) {
		return &engine.Error{Class: engine.ErrUnavailable, Err: errors.Join(ErrAuthFailed, err),
			Message: "postgres: the engine refused the credentials: " + engine.Scrub(message(err), secrets...) +
				"; check the user and password the connection uses (the Secret or password file, or the connection string) and the server's pg_hba.conf entry for this client"}
	}
	return &engine.Error{Class: classOf(err), Message: msg, Err: err}
}

// ErrAuthFailed marks an error (also of class engine.ErrUnavailable, so
// the operator keeps retrying until the credentials are fixed) whose cause
// is that the server refused the credentials, not that it is down:
// SQLSTATE class 28, invalid authorization (28P01 invalid_password, 28000
// invalid_authorization_specification, e.g. no pg_hba.conf entry). Callers
// use errors.Is to point the user at the password instead of the server.
var ErrAuthFailed = errors.New("authentication failed")

func authFailed(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "28")
}

// classOf picks the error class (nil for errors of the statement itself,
// such as a type mismatch or a syntax error).
func classOf(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case notFoundCodes[pe.Code]:
			return engine.ErrNotFound
		case permissionCodes[pe.Code]:
			return engine.ErrPermissionDenied
		case pe.Code == "53200": // out_of_memory
			return engine.ErrOutOfMemory
		case unavailableCodes[pe.Code], len(pe.Code) == 5 && unavailableClasses[pe.Code[:2]]:
			return engine.ErrUnavailable
		}
		return nil
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded),
		pgconn.Timeout(err), pgconn.SafeToRetry(err):
		return engine.ErrUnavailable
	}
	// A connection that broke mid-statement reports "conn closed" without
	// a typed cause.
	if strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "closed pool") {
		return engine.ErrUnavailable
	}
	return nil
}

// message is PostgreSQL's own diagnostic with its SQLSTATE, or the driver's
// text for errors the server did not produce.
func message(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		m := pe.Message
		if pe.Detail != "" {
			m += " (" + pe.Detail + ")"
		}
		return m + " (SQLSTATE " + pe.Code + ")"
	}
	return err.Error()
}
