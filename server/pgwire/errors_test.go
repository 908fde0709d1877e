package pgwire

import (
	"net/http"
	"testing"

	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/problem"
)

// TestSQLStateOfProblems checks the SQLSTATE each HTTP status of the
// server's problems reaches the client with (docs/sql-api.md, "Errors").
// A full query queue (429 OSS5010) is a transient shortage a client
// retries, class 53 (insufficient resources), never 54000, which says the
// statement itself is too large and retrying cannot help: the soak
// (test/soak) found OSS5010 arriving as 54000.
func TestSQLStateOfProblems(t *testing.T) {
	for _, c := range []struct {
		status int
		code   string
		want   string
	}{
		{http.StatusTooManyRequests, "OSS5010", "53000"}, // insufficient_resources
		{http.StatusRequestEntityTooLarge, "OSS5004", codeLimit},
		{http.StatusServiceUnavailable, "OSS5001", codeUnavailable},
		{http.StatusGatewayTimeout, "OSS5002", codeCanceled},
		{http.StatusNotFound, "OSS5003", codeUndefinedSchema},
		{http.StatusBadGateway, "OSS5001", codeEngine},
		{http.StatusBadRequest, "OSS4001", codeInvalidParam},
	} {
		got := asSQLError(&problem.Error{Status: c.status, Code: c.code, Title: "t"})
		if got.Code != c.want {
			t.Errorf("HTTP %d %s: SQLSTATE %s, want %s", c.status, c.code, got.Code, c.want)
		}
	}
	// The engine's memory limit is out_of_memory, as PostgreSQL says it.
	oom := &problem.Error{Status: http.StatusServiceUnavailable, Code: "OSS5001", Title: "t", Cause: &engine.Error{Class: engine.ErrOutOfMemory}}
	if got := asSQLError(oom); got.Code != "53200" {
		t.Errorf("out of memory: SQLSTATE %s, want 53200", got.Code)
	}
}
