package problem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// RequestIDHeader carries the id the server gives every request: it is in
// the response header, in every problem document (`request_id`) and in the
// server's log lines for that request, so an operator can find the
// engine's message behind a generic problem detail.
const RequestIDHeader = "X-Request-Id"

// RequestInfo lets the access log name the caller the inner handler
// authenticated, and carries the request id (this file).
type RequestInfo struct{ Caller, ID string }

type RequestInfoKey struct{}

// NewRequestID returns 16 random hex digits. Ids are the server's own,
// never taken from the request, so a client cannot forge log lines.
func NewRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RequestIDFrom returns the id of the HTTP request ctx belongs to, or ""
// for an in-process call.
func RequestIDFrom(ctx context.Context) string {
	if info, ok := ctx.Value(RequestInfoKey{}).(*RequestInfo); ok {
		return info.ID
	}
	return ""
}
