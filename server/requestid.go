package server

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

// newRequestID returns 16 random hex digits. Ids are the server's own,
// never taken from the request, so a client cannot forge log lines.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestIDFrom returns the id of the HTTP request ctx belongs to, or ""
// for an in-process call.
func requestIDFrom(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}
