// Package gluetest is an AWS Glue endpoint for tests: an httptest server
// that speaks the AWS JSON 1.1 protocol the Glue API uses (POST /,
// Content-Type application/x-amz-json-1.1, X-Amz-Target
// AWSGlue.<Operation>, errors as {"__type", "message"} with HTTP 400) for
// GetDatabases and GetTables, with NextToken pagination, so the real
// aws-sdk-go-v2 Glue client can be exercised end to end. It checks that
// requests are SigV4-signed with the expected access key id (it cannot
// verify the signature itself) and answers UnrecognizedClientException
// otherwise. What it does not prove: IAM policies, real signature
// verification, throttling behaviour or Glue's own filtering by Expression.
package gluetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Column is a Glue column (types.Column).
type Column struct {
	Name    string `json:"Name"`
	Type    string `json:"Type,omitempty"`
	Comment string `json:"Comment,omitempty"`
}

// Table is a Glue table: its columns and partition keys.
type Table struct {
	Name          string
	Description   string
	TableType     string // EXTERNAL_TABLE (default), VIRTUAL_VIEW, ...
	Columns       []Column
	PartitionKeys []Column
}

// APIError is an error answer: Type is the __type (e.g.
// AccessDeniedException), Status the HTTP status (default 400).
type APIError struct {
	Type    string
	Message string
	Status  int
}

// Server is a running test endpoint; its methods are safe for concurrent use.
type Server struct {
	// URL is the endpoint to pass as the client's BaseEndpoint.
	URL string
	// AccessKeyID is the only access key id accepted ("" accepts any).
	AccessKeyID string
	// PageSize caps the items per page when the request gives no
	// MaxResults (default 2, so pagination happens in small tests).
	PageSize int

	srv *httptest.Server

	mu        sync.Mutex
	databases []string
	tables    map[string][]Table
	fail      map[string]APIError
	calls     []string
}

// Start runs a server; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{PageSize: 2, tables: map[string][]Table{}, fail: map[string]APIError{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// StartSigned runs a server like Start that accepts only requests signed
// with accessKeyID, and points the AWS configuration chain at that key
// (SetEnv) for the rest of the test.
func StartSigned(t testing.TB, accessKeyID string) *Server {
	t.Helper()
	SetEnv(t, accessKeyID)
	s := Start(t)
	s.AccessKeyID = accessKeyID
	return s
}

// Close stops the server now (to test an unreachable endpoint).
func (s *Server) Close() { s.srv.Close() }

// AddDatabase adds a database with its tables (kept in the given order).
func (s *Server) AddDatabase(name string, tables ...Table) {
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
	CatalogID    string `json:"CatalogId"`
	DatabaseName string `json:"DatabaseName"`
	NextToken    string `json:"NextToken"`
	MaxResults   int    `json:"MaxResults"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AWSGlue.")
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/":
		writeError(w, APIError{Type: "UnknownOperationException", Message: "POST / expected", Status: 404})
		return
	case !ok:
		writeError(w, APIError{Type: "UnknownOperationException", Message: "missing or foreign X-Amz-Target"})
		return
	case r.Header.Get("Content-Type") != "application/x-amz-json-1.1":
		writeError(w, APIError{Type: "SerializationException", Message: "Content-Type must be application/x-amz-json-1.1"})
		return
	}
	if !s.signedBy(r.Header.Get("Authorization")) {
		writeError(w, APIError{Type: "UnrecognizedClientException", Message: "The security token included in the request is invalid."})
		return
	}
	body, err := io.ReadAll(r.Body)
	var req request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, APIError{Type: "SerializationException", Message: "body is not JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start, _ := strconv.Atoi(req.NextToken)
	size := req.MaxResults
	if size <= 0 {
		size = s.PageSize
	}
	if size <= 0 {
		size = 100
	}
	s.calls = append(s.calls, strings.Join(strings.Fields(fmt.Sprintf("%s %s page %d", op, req.DatabaseName, start/size+1)), " "))
	if e, ok := s.fail[op]; ok {
		writeError(w, e)
		return
	}
	switch op {
	case "GetDatabases":
		var list []map[string]any
		end := min(start+size, len(s.databases))
		for _, db := range s.databases[min(start, end):end] {
			list = append(list, map[string]any{"Name": db, "CatalogId": catalogID(req)})
		}
		writeJSON(w, map[string]any{"DatabaseList": orEmpty(list), "NextToken": next(end, len(s.databases))})
	case "GetTables":
		tables, ok := s.tables[req.DatabaseName]
		if !ok {
			writeError(w, APIError{Type: "EntityNotFoundException", Message: fmt.Sprintf("Database %s not found.", req.DatabaseName)})
			return
		}
		var list []map[string]any
		end := min(start+size, len(tables))
		for _, t := range tables[min(start, end):end] {
			list = append(list, tableJSON(req, t))
		}
		writeJSON(w, map[string]any{"TableList": orEmpty(list), "NextToken": next(end, len(tables))})
	default:
		writeError(w, APIError{Type: "UnknownOperationException", Message: "gluetest serves GetDatabases and GetTables only, not " + op})
	}
}

// signedBy checks the SigV4 Authorization header names the expected key.
func (s *Server) signedBy(auth string) bool {
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=") {
		return false
	}
	return s.AccessKeyID == "" || strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+s.AccessKeyID+"/")
}

func catalogID(req request) string {
	if req.CatalogID != "" {
		return req.CatalogID
	}
	return "123456789012"
}

func tableJSON(req request, t Table) map[string]any {
	typ := t.TableType
	if typ == "" {
		typ = "EXTERNAL_TABLE"
	}
	m := map[string]any{
		"Name": t.Name, "DatabaseName": req.DatabaseName, "CatalogId": catalogID(req), "TableType": typ,
		"StorageDescriptor": map[string]any{"Columns": orEmpty(t.Columns), "Location": "s3://bucket/" + req.DatabaseName + "/" + t.Name + "/"},
		"PartitionKeys":     orEmpty(t.PartitionKeys),
		"CreateTime":        1.7e9,
	}
	if t.Description != "" {
		m["Description"] = t.Description
	}
	return m
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
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

// SetEnv points the standard AWS configuration chain at static test
// credentials (access key id AccessKeyID, a fixed secret) in region
// eu-west-1, away from the machine's ~/.aws files, profiles, endpoint
// overrides and the EC2 metadata service, for the rest of the test.
func SetEnv(t testing.TB, accessKeyID string) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           accessKeyID,
		"AWS_SECRET_ACCESS_KEY":       "gluetest-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  "eu-west-1",
		"AWS_DEFAULT_REGION":          "",
		"AWS_PROFILE":                 "",
		"AWS_DEFAULT_PROFILE":         "",
		"AWS_CONFIG_FILE":             "/nonexistent/gluetest/config",
		"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/gluetest/credentials",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_GLUE":       "",
		"AWS_MAX_ATTEMPTS":            "2",
	} {
		t.Setenv(k, v)
	}
}
