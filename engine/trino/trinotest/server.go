// Package trinotest is a stand-in Trino coordinator for the faults a real
// Trino cannot be made to produce on demand: an httptest server that
// speaks the client REST protocol (POST /v1/statement, nextUri paging,
// columns with type signatures, error objects, DELETE to cancel; Trino
// documentation, "Client protocol") and answers every statement with the
// Result the test set, cut into pages of a chosen size.
//
// What it is for: paging edge cases (a page size of one row, a row cap
// that cancels mid-stream), injected error objects (FailNext: a full
// queue, a lost worker), a connection dropped in the middle of a result
// (BreakAt), a page that is not the protocol's JSON (GarbleAt), basic
// auth over TLS with a wrong password and a server that vanishes
// mid-test (Close). It runs no SQL: Trino's semantics, its error names
// for drift and access control, view storage, catalog drafting and the
// Trino dialect's answers are proven on a real Trino (test/trinoserver;
// engine/trino real_test.go, test/conformance and the wiring tests of
// catalog, ossiectl, the operator and the commands).
package trinotest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	trinoclient "github.com/trinodb/trino-go-client/trino"
)

// Server is a running protocol server.
type Server struct {
	// URL is the https base URL; Client trusts its certificate.
	URL    string
	Client *http.Client

	srv      *httptest.Server
	user     string
	password string
	pageSize int

	mu        sync.Mutex
	seq       int
	queries   map[string]*query
	cancelled []string
	answer    Result
	inject    *Error
	breakAt   int // page token whose request is cut (0: none)
	garbleAt  int // page token answered with text that is not JSON (0: none)
	posts     []Post
}

// Result is what the server answers to every statement: the columns and
// the rows in the protocol's JSON encoding (Trino documentation, "Client
// protocol", data: a DECIMAL is a string, a TIMESTAMP
// "2006-01-02 15:04:05.000000", a DOUBLE a number or "NaN").
type Result struct {
	Columns []Column
	Rows    [][]any
}

// Column is a result column: its name and its Trino type as Trino spells
// it ("bigint", "decimal(10,2)", "timestamp(6) with time zone"); the
// type signature sent with it is derived from the type. Nested types
// (array, map, row) are not supported.
type Column struct {
	Name string
	Type string
}

// one is the default Result: what `SELECT 1` answers, so a client's
// connection check passes.
var one = Result{Columns: []Column{{Name: "_col0", Type: "integer"}}, Rows: [][]any{{1}}}

// Error is a Trino error object (QueryError in the protocol).
type Error struct {
	Message   string `json:"message"`
	ErrorCode int    `json:"errorCode"`
	ErrorName string `json:"errorName"`
	ErrorType string `json:"errorType"`
}

// Post is one statement the server received, with its request headers.
type Post struct {
	Statement string
	Header    http.Header
}

type query struct {
	res Result
	err *Error
}

// Start runs a server that requires HTTP basic credentials user:password
// (when password is non-empty) and sends pageSize rows per page (at least
// 1). It answers `SELECT 1`'s result until Answer changes it, and stops
// when the test ends.
func Start(t testing.TB, user, password string, pageSize int) *Server {
	t.Helper()
	if pageSize < 1 {
		pageSize = 1
	}
	s := &Server{user: user, password: password, pageSize: pageSize, queries: map[string]*query{}, answer: one}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	s.Client = s.srv.Client()
	t.Cleanup(s.srv.Close)
	return s
}

// DSN is a trino-go-client DSN for this server with the given catalog and
// schema (empty: none).
func (s *Server) DSN(catalog, schema string) string {
	userinfo := s.user
	if s.password != "" {
		userinfo += ":" + s.password
	}
	u := strings.Replace(s.URL, "https://", "https://"+userinfo+"@", 1)
	var q []string
	if catalog != "" {
		q = append(q, "catalog="+catalog)
	}
	if schema != "" {
		q = append(q, "schema="+schema)
	}
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

// ClientDSN is DSN(catalog, schema) selecting the server's Client, which
// trusts its self-signed certificate: it registers Client with
// trino-go-client under name ("custom_client" in the DSN) until the test
// ends. Names are process-wide, so each test needs its own.
func (s *Server) ClientDSN(t testing.TB, name, catalog, schema string) string {
	t.Helper()
	if err := trinoclient.RegisterCustomClient(name, s.Client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { trinoclient.DeregisterCustomClient(name) })
	dsn := s.DSN(catalog, schema)
	if strings.Contains(dsn, "?") {
		return dsn + "&custom_client=" + name
	}
	return dsn + "?custom_client=" + name
}

// Close stops the server now (to test an unreachable coordinator).
func (s *Server) Close() { s.srv.Close() }

// Answer makes every following statement answer r.
func (s *Server) Answer(r Result) {
	s.mu.Lock()
	s.answer = r
	s.mu.Unlock()
}

// FailNext makes the next statement fail with e instead of answering.
func (s *Server) FailNext(e Error) {
	s.mu.Lock()
	s.inject = &e
	s.mu.Unlock()
}

// BreakAt makes the server close the connection, without a response, on
// the request for result page n (n >= 1; page 0 is the one after the
// POST), for every statement until reset with 0: a coordinator or proxy
// lost in the middle of a result.
func (s *Server) BreakAt(n int) {
	s.mu.Lock()
	s.breakAt = n
	s.mu.Unlock()
}

// GarbleAt makes the server answer the request for result page n (n >= 1)
// with 200 OK and a body that is not JSON, for every statement until
// reset with 0: a proxy's error page or a truncated body.
func (s *Server) GarbleAt(n int) {
	s.mu.Lock()
	s.garbleAt = n
	s.mu.Unlock()
}

// Cancelled lists the ids of queries the client cancelled (DELETE).
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancelled...)
}

// Posts returns every statement submitted so far, with its headers.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Post(nil), s.posts...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.Header.Get("X-Trino-User") == "" {
		http.Error(w, "missing X-Trino-User", http.StatusBadRequest)
		return
	}
	if s.password != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != s.user || p != s.password {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/statement":
		s.submit(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/statement/executing/"):
		s.page(w, r)
	case r.Method == http.MethodDelete && (strings.HasPrefix(r.URL.Path, "/v1/query/") || strings.HasPrefix(r.URL.Path, "/v1/statement/executing/")):
		id := strings.Split(strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/v1/query/"), "/v1/statement/executing/"), "/")[0]
		s.mu.Lock()
		s.cancelled = append(s.cancelled, id)
		delete(s.queries, id)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

// submit records the statement and answers like a coordinator that
// queued it: id and nextUri only.
func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("20260101_000000_%05d_ossie", s.seq)
	s.queries[id] = &query{res: s.answer, err: s.inject}
	s.inject = nil
	s.posts = append(s.posts, Post{Statement: string(body), Header: r.Header.Clone()})
	s.mu.Unlock()
	writeJSON(w, map[string]any{
		"id":      id,
		"infoUri": s.URL + "/ui/query.html?" + id,
		"nextUri": s.nextURI(id, 0),
		"stats":   map[string]any{"state": "QUEUED"},
	})
}

func (s *Server) nextURI(id string, token int) string {
	return s.URL + "/v1/statement/executing/" + id + "/y/" + strconv.Itoa(token)
}

// page answers GET nextUri: the token-th page of rows, the columns with
// every page, the error on the first page of a failed statement.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/statement/executing/"), "/")
	if len(parts) != 3 {
		http.NotFound(w, r)
		return
	}
	id := parts[0]
	token, err := strconv.Atoi(parts[2])
	s.mu.Lock()
	q, ok := s.queries[id]
	breakAt, garbleAt := s.breakAt, s.garbleAt
	s.mu.Unlock()
	if !ok || err != nil {
		http.Error(w, "query not found", http.StatusNotFound)
		return
	}
	switch {
	case breakAt > 0 && token == breakAt:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
		panic(http.ErrAbortHandler)
	case garbleAt > 0 && token == garbleAt:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `<html><body>502 Bad Gateway</body></html>`)
		return
	}
	resp := map[string]any{"id": id, "infoUri": s.URL + "/ui/query.html?" + id}
	if q.err != nil {
		resp["stats"] = map[string]any{"state": "FAILED"}
		resp["error"] = q.err
		s.forget(id)
		writeJSON(w, resp)
		return
	}
	resp["columns"] = wireColumns(q.res.Columns)
	rows := q.res.Rows
	start := token * s.pageSize
	end := min(start+s.pageSize, len(rows))
	if start < len(rows) {
		resp["data"] = rows[start:end]
	}
	if end < len(rows) {
		resp["nextUri"] = s.nextURI(id, token+1)
		resp["stats"] = map[string]any{"state": "RUNNING"}
	} else {
		resp["stats"] = map[string]any{"state": "FINISHED"}
		s.forget(id)
	}
	writeJSON(w, resp)
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	delete(s.queries, id)
	s.mu.Unlock()
}

// typeArgs matches the numeric parameters of a type, "(6)" or "(10,2)".
var typeArgs = regexp.MustCompile(`\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)`)

// wireColumns is cols as io.trino.client.Column: the type and its
// signature, the raw type without parameters and the parameters as LONG
// arguments ("timestamp(6) with time zone": raw type "timestamp with
// time zone", argument 6).
func wireColumns(cols []Column) []map[string]any {
	out := make([]map[string]any, len(cols))
	for i, c := range cols {
		args := []map[string]any{}
		if m := typeArgs.FindStringSubmatch(c.Type); m != nil {
			for _, a := range m[1:] {
				if a != "" {
					n, _ := strconv.ParseInt(a, 10, 64)
					args = append(args, map[string]any{"kind": "LONG", "value": n})
				}
			}
		}
		raw := strings.Join(strings.Fields(typeArgs.ReplaceAllString(c.Type, "")), " ")
		out[i] = map[string]any{
			"name":          c.Name,
			"type":          c.Type,
			"typeSignature": map[string]any{"rawType": raw, "arguments": args},
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
