package pgwire

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/problem"
)

// SQLSTATEs of the endpoint (PostgreSQL Appendix A; docs/sql-api.md,
// "Errors").
const (
	codeSyntax           = "42601" // syntax_error
	codeFeature          = "0A000" // feature_not_supported: a construct semantic SQL refuses
	codeUndefinedTable   = "42P01" // undefined_table
	codeUndefinedColumn  = "42703" // undefined_column
	codeUndefinedObject  = "42704" // undefined_object (SHOW of an unknown setting)
	codeUndefinedSchema  = "3F000" // invalid_schema_name (a model the caller cannot see)
	codeFunction         = "42883" // undefined_function
	codeGrouping         = "42803" // grouping_error
	codeDatatype         = "42804" // datatype_mismatch
	codeInvalidColumnRef = "42P10" // invalid_column_reference (ORDER BY 9)
	codeInvalidRowCount  = "2201W" // invalid_row_count_in_limit_clause
	codeInvalidParam     = "22023" // invalid_parameter_value (planner problems)
	codeTextRep          = "22P02" // invalid_text_representation (a parameter value)
	codeProtocol         = "08P01" // protocol_violation
	codeAuth             = "28P01" // invalid_password
	codeInsufficient     = "53000" // insufficient_resources (the query queue is full: retry)
	codeTooMany          = "53300" // too_many_connections
	codeLimit            = "54000" // program_limit_exceeded
	codeCanceled         = "57014" // query_canceled (cancel request or timeout)
	codeUnavailable      = "57P03" // cannot_connect_now (engine unavailable)
	codeOutOfMemory      = "53200" // out_of_memory (the engine's memory limit)
	codeAdminShutdown    = "57P01" // admin_shutdown (the server is stopping)
	codeEngine           = "58000" // system_error (engine failure)
	codeInternal         = "XX000" // internal_error
	codeNoPrepared       = "26000" // invalid_sql_statement_name
	codeNoPortal         = "34000" // invalid_cursor_name
	codeNoTransaction    = "25P01" // no_active_sql_transaction (SAVEPOINT outside BEGIN)
)

// sqlError is an error the client receives as an ErrorResponse.
type sqlError struct {
	Code, Message, Detail, Hint string
	// Fatal closes the connection after the response.
	Fatal bool
}

func (e *sqlError) Error() string { return e.Code + " " + e.Message }

func refusef(code, format string, args ...any) *sqlError {
	msg := fmt.Sprintf(format, args...)
	if code == codeFeature {
		msg = "not supported by the Ossie SQL endpoint: " + msg
	}
	return &sqlError{Code: code, Message: msg}
}

// asSQLError maps any error onto an ErrorResponse: the server's problem
// documents keep their OSS code in the message and their problems in the
// detail, under the SQLSTATE closest to the HTTP status.
func asSQLError(err error) *sqlError {
	var se *sqlError
	if errors.As(err, &se) {
		return se
	}
	var e *problem.Error
	if !errors.As(err, &e) {
		return &sqlError{Code: codeInternal, Message: "internal error"}
	}
	code := codeInvalidParam
	switch {
	case e.Status == http.StatusNotFound:
		code = codeUndefinedSchema
	case e.Status == http.StatusUnauthorized:
		code = codeAuth
	case e.Status == 499 || e.Status == http.StatusGatewayTimeout:
		code = codeCanceled
	case e.Status == http.StatusServiceUnavailable && errors.Is(e.Cause, engine.ErrOutOfMemory):
		code = codeOutOfMemory
	case e.Status == http.StatusServiceUnavailable:
		code = codeUnavailable
	case e.Status == http.StatusTooManyRequests:
		// Transient: class 53, which clients and poolers retry; 54000
		// would say the statement itself is too large.
		code = codeInsufficient
	case e.Status == http.StatusRequestEntityTooLarge:
		code = codeLimit
	case e.Status >= 500:
		code = codeEngine
	}
	msg := e.Code + " " + e.Title
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	var detail []string
	for _, p := range e.Problems {
		s := p.Code + " " + p.Message
		if p.Path != "" {
			s = p.Path + ": " + s
		}
		detail = append(detail, s)
	}
	if len(e.Problems) == 1 && e.Detail == "" {
		msg = e.Problems[0].Code + " " + e.Problems[0].Message
	}
	return &sqlError{Code: code, Message: msg, Detail: strings.Join(detail, "\n")}
}

func (e *sqlError) response() *pgproto3.ErrorResponse {
	sev := "ERROR"
	if e.Fatal {
		sev = "FATAL"
	}
	return &pgproto3.ErrorResponse{Severity: sev, SeverityUnlocalized: sev, Code: e.Code, Message: e.Message, Detail: e.Detail, Hint: e.Hint}
}
