package trino

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"

	trinoclient "github.com/trinodb/trino-go-client/trino"

	"github.com/ossie-dev/ossie/engine"
)

// Trino error names (io.trino.spi.StandardErrorCode and the connectors'
// codes) that tell drift, outage and bad input apart.
var (
	// A catalog object the statement names is missing: the model drifted.
	notFoundNames = map[string]bool{
		"TABLE_NOT_FOUND":   true,
		"COLUMN_NOT_FOUND":  true,
		"SCHEMA_NOT_FOUND":  true,
		"CATALOG_NOT_FOUND": true,
		"MISSING_TABLE":     true,
		"MISSING_SCHEMA":    true,
		"MISSING_CATALOG":   true,
	}
	// Trino's access control refuses the object: a grant is missing, not
	// a retry's worth.
	permissionNames = map[string]bool{
		"PERMISSION_DENIED": true,
	}
	// The query needed more memory than the cluster or a node may give it
	// (Trino's StandardErrorCode, INSUFFICIENT_RESOURCES).
	outOfMemoryNames = map[string]bool{
		"CLUSTER_OUT_OF_MEMORY":        true,
		"EXCEEDED_GLOBAL_MEMORY_LIMIT": true,
		"EXCEEDED_LOCAL_MEMORY_LIMIT":  true,
	}
	// The cluster cannot serve right now; retrying later can succeed.
	unavailableNames = map[string]bool{
		"SERVER_STARTING_UP":       true,
		"SERVER_SHUTTING_DOWN":     true,
		"NO_NODES_AVAILABLE":       true,
		"REMOTE_TASK_ERROR":        true,
		"REMOTE_HOST_GONE":         true,
		"PAGE_TRANSPORT_TIMEOUT":   true,
		"PAGE_TRANSPORT_ERROR":     true,
		"TOO_MANY_REQUESTS_FAILED": true,
		"QUERY_QUEUE_FULL":         true,
		"ABANDONED_QUERY":          true,
		"EXCEEDED_TIME_LIMIT":      true,
		"ADMINISTRATIVELY_KILLED":  true,
	}
	invalidInputNames = map[string]bool{
		"INVALID_CAST_ARGUMENT": true,
	}
	unavailableStatus = map[int]bool{
		http.StatusUnauthorized:       true, // credentials rejected: an operator must fix the Secret
		http.StatusTooManyRequests:    true,
		http.StatusBadGateway:         true,
		http.StatusServiceUnavailable: true,
		http.StatusGatewayTimeout:     true,
	}
)

// classify turns a driver error into an *engine.Error. The message is
// Trino's own diagnostic with its error name, or the client's text, with
// the DSN and password removed. A statement cut by ctx wraps ctx.Err(); a
// deadline counts as unavailable, a cancelled request has no class.
func (e *Engine) classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		out := &engine.Error{Message: "trino: query interrupted: " + cerr.Error(), Err: errors.Join(cerr, err)}
		if errors.Is(cerr, context.DeadlineExceeded) {
			out.Class = engine.ErrUnavailable
		}
		return out
	}
	return &engine.Error{Class: classOf(err), Message: "trino: " + engine.Scrub(message(err), e.secrets...), Err: err}
}

// classOf picks the error class (nil for errors of the statement itself,
// such as a syntax or type error).
func classOf(err error) error {
	var te *trinoclient.ErrTrino
	if errors.As(err, &te) {
		switch {
		case notFoundNames[te.ErrorName]:
			return engine.ErrNotFound
		case permissionNames[te.ErrorName]:
			return engine.ErrPermissionDenied
		case invalidInputNames[te.ErrorName]:
			return engine.ErrInvalidInput
		case outOfMemoryNames[te.ErrorName]:
			return engine.ErrOutOfMemory
		case unavailableNames[te.ErrorName], te.ErrorType == "INSUFFICIENT_RESOURCES":
			return engine.ErrUnavailable
		}
		return nil
	}
	var qf *trinoclient.ErrQueryFailed
	if errors.As(err, &qf) && (unavailableStatus[qf.StatusCode] || qf.StatusCode >= 500) {
		return engine.ErrUnavailable
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded):
		return engine.ErrUnavailable
	}
	// Retries that ran out on network errors end as an ErrQueryFailed
	// without a status whose reason says so.
	if errors.As(err, &qf) && qf.StatusCode == 0 && strings.Contains(err.Error(), "giving up after") {
		return engine.ErrUnavailable
	}
	return nil
}

// message is Trino's diagnostic with its error name, or the client's text
// for failures the coordinator did not report.
func message(err error) string {
	var te *trinoclient.ErrTrino
	if errors.As(err, &te) {
		m := te.Message
		if te.ErrorName != "" {
			m += " (" + te.ErrorName + ")"
		}
		if te.ErrorName == "PERMISSION_DENIED" && !strings.Contains(strings.ToLower(m), "permission denied") {
			m = "permission denied: " + m
		}
		return m
	}
	return strings.TrimPrefix(err.Error(), "trino: ")
}
