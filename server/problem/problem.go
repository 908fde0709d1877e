// Package problem holds what every entry point answers a failure with: the
// RFC 9457 problem document (Error, carrying the compiler's stable OSSnnnn
// codes), its JSON writer, and the request id that ties a problem to the
// server's log lines. It imports only the compiler; every other server
// package may import it.
package problem

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// TypeBase prefixes a code to form the problem `type` URI; the page
// explains every code (docs/problems.md).
const TypeBase = "https://github.com/ossie-dev/ossie/blob/main/docs/problems.md#"

// Error is a failed request as an RFC 9457 problem document. Answer and
// Plan return it so the HTTP handler, the demo and ossiectl report the same
// status, code and problems. Cause (never serialised) keeps the underlying
// error for logs; Detail is safe to show to clients. EngineMessage (never
// serialised either) is the engine's own message of an engine failure: it
// may quote planned SQL, row filters and physical names, so it is for
// logs and in-process tools only (Config.DebugErrors aside).
type Error struct {
	Status   int               `json:"status"`
	Code     string            `json:"code"`
	Title    string            `json:"title"`
	Detail   string            `json:"detail,omitempty"`
	Problems compiler.Problems `json:"problems,omitempty"`
	Cause    error             `json:"-"`
	// EngineMessage: see above; "" unless the engine failed the query.
	EngineMessage string `json:"-"`
	// RetryAfter, when positive, is sent as the Retry-After header
	// (seconds) of a 429.
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string {
	if len(e.Problems) > 0 {
		return e.Problems.Error()
	}
	if e.Detail != "" && e.EngineMessage != "" {
		return e.Code + " " + e.Detail + ": " + e.EngineMessage
	}
	if e.Detail != "" {
		return e.Code + " " + e.Detail
	}
	return e.Code + " " + e.Title
}

func (e *Error) Unwrap() error { return e.Cause }

// Doc is the wire form: RFC 9457 members plus the Ossie extensions
// `code` (stable OSSnnnn) and `problems` (every finding, for bad queries).
type Doc struct {
	Type     string            `json:"type"`
	Title    string            `json:"title"`
	Status   int               `json:"status"`
	Detail   string            `json:"detail,omitempty"`
	Instance string            `json:"instance,omitempty"`
	Code     string            `json:"code,omitempty"`
	Problems compiler.Problems `json:"problems,omitempty"`
	// RequestID is the X-Request-Id of the request, also in the server's
	// log lines about it.
	RequestID string `json:"request_id,omitempty"`
}

func WriteProblem(w http.ResponseWriter, r *http.Request, e *Error) {
	doc := Doc{
		Type:      "about:blank",
		Title:     e.Title,
		Status:    e.Status,
		Detail:    e.Detail,
		Instance:  EchoName(r.URL.Path),
		Code:      e.Code,
		Problems:  e.Problems,
		RequestID: RequestIDFrom(r.Context()),
	}
	if e.Code != "" {
		doc.Type = TypeBase + strings.ToLower(e.Code)
	}
	if doc.Title == "" {
		doc.Title = http.StatusText(e.Status)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if e.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(doc)
}

func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// QueryProblems wraps planner or query-parse problems as a 400.
func QueryProblems(ps compiler.Problems) *Error {
	e := &Error{Status: http.StatusBadRequest, Code: compiler.CodeBadQuery, Title: "Invalid query", Problems: ps}
	if errs := ps.Errors(); len(errs) > 0 {
		e.Code = errs[0].Code
		e.Detail = errs[0].Message
		if len(errs) > 1 {
			e.Detail += " (and more, see problems)"
		}
	}
	return e
}

// BodyTooLarge is 413 OSS5004 for a body over limit bytes.
func BodyTooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: compiler.CodeTooLarge, Title: "Request body too large",
		Detail: "the request body exceeds the limit of " + strconv.FormatInt(limit, 10) + " bytes"}
}

func UnknownModel(name string, known []string) *Error {
	detail := "no model named " + Quote(EchoName(name)) + " is loaded"
	if len(known) > 0 {
		detail += "; loaded: " + strings.Join(known, ", ")
	}
	return &Error{Status: http.StatusNotFound, Code: compiler.CodeUnknownModel, Title: "Unknown model", Detail: detail,
		Problems: compiler.Problems{{Code: compiler.CodeUnknownModel, Severity: compiler.SeverityError, Message: detail}}}
}

func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
