// Package gluetest is a hand-written AWS Glue endpoint for the two
// behaviours the Glue tests need and moto's server mode (test/motoserver,
// the Glue implementation every other Glue test runs against) cannot
// produce: GetDatabases and GetTables answered in pages with NextToken
// (moto 5.2.5 answers everything in one page), and a failing operation on
// demand (moto cannot be told to answer HTTP 500). It is an httptest
// server speaking the AWS JSON 1.1 protocol of the Glue API (POST /,
// X-Amz-Target AWSGlue.<Operation>, errors as {"__type", "message"}), so
// the real aws-sdk-go-v2 Glue client is exercised. It checks no
// signatures, no IAM and serves tables as names only (no columns): moto
// does that.
package gluetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// APIError is an error answer: Type is the __type (e.g.
// InternalServiceException), Status the HTTP status (default 400).
type APIError struct {
	Type    string
	Message string
	Status  int
}

// Server is a running test endpoint; its methods are safe for concurrent use.
type Server struct {
	// URL is the endpoint to pass as the client's BaseEndpoint.
	URL string

	mu        sync.Mutex
	databases []string
	tables    map[string][]string
	fail      map[string]APIError
	calls     []string
}

// pageSize is the items per page when the request gives no MaxResults:
// small, so pagination happens in small tests.
const pageSize = 2

// Start runs a server; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{tables: map[string][]string{}, fail: map[string]APIError{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = srv.URL
	t.Cleanup(srv.Close)
	return s
}

// AddDatabase adds a database with the named tables (kept in the given
// order).
func (s *Server) AddDatabase(name string, tables ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.databases = append(s.databases, name)
	s.tables[name] = append(s.tables[name], tables...)
}

// Fail makes every later call of operation ("GetTables", "GetDatabases")
// answer e.
func (s *Server) Fail(operation string, e APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[operation] = e
}

// Calls lists the operations served so far, one entry per request
// ("GetTables sales page 2").
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

type request struct {
	DatabaseName string `json:"DatabaseName"`
	NextToken    string `json:"NextToken"`
	MaxResults   int    `json:"MaxResults"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AWSGlue.")
	var req request
	if !ok || r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		writeError(w, APIError{Type: "SerializationException", Message: "POST / with X-Amz-Target AWSGlue.<Operation> and a JSON body expected"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start, _ := strconv.Atoi(req.NextToken)
	size := req.MaxResults
	if size <= 0 {
		size = pageSize
	}
	s.calls = append(s.calls, strings.Join(strings.Fields(fmt.Sprintf("%s %s page %d", op, req.DatabaseName, start/size+1)), " "))
	if e, ok := s.fail[op]; ok {
		writeError(w, e)
		return
	}
	switch op {
	case "GetDatabases":
		list := []map[string]any{}
		end := min(start+size, len(s.databases))
		for _, db := range s.databases[min(start, end):end] {
			list = append(list, map[string]any{"Name": db})
		}
		writeJSON(w, map[string]any{"DatabaseList": list, "NextToken": next(end, len(s.databases))})
	case "GetTables":
		tables, ok := s.tables[req.DatabaseName]
		if !ok {
			writeError(w, APIError{Type: "EntityNotFoundException", Message: fmt.Sprintf("Database %s not found.", req.DatabaseName)})
			return
		}
		list := []map[string]any{}
		end := min(start+size, len(tables))
		for _, t := range tables[min(start, end):end] {
			list = append(list, map[string]any{"Name": t, "DatabaseName": req.DatabaseName})
		}
		writeJSON(w, map[string]any{"TableList": list, "NextToken": next(end, len(tables))})
	default:
		writeError(w, APIError{Type: "UnknownOperationException", Message: "gluetest serves GetDatabases and GetTables only, not " + op})
	}
}

func next(end, total int) any {
	if end >= total {
		return nil
	}
	return strconv.Itoa(end)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e APIError) {
	status := e.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", e.Type)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.glue#" + e.Type, "message": e.Message})
}
