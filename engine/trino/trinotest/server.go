// Package trinotest is a stand-in Trino coordinator for tests: an
// httptest server that speaks the client REST protocol (POST
// /v1/statement, nextUri paging, columns with type signatures, error
// objects, DELETE to cancel; Trino documentation, "Client protocol") and
// answers by running the SQL on an in-process DuckDB.
//
// Its place is what a real Trino cannot be made to do on demand: a chosen
// page size (paging edge cases), injected error objects (FailNext: a full
// queue, a lost worker), basic auth over TLS with a wrong password, a
// server that vanishes mid-test. Trino's semantics, its error names for
// drift and access control, view storage and the Trino dialect's answers
// are proven on a real Trino (test/trinoserver, engine/trino real_test.go,
// test/conformance), not here. The rules emulate.go still rewrites
// (integer division, parameterised temporal types, some functions) keep
// the wiring tests of other packages (catalog drafting, ossiectl, the
// operator and server commands) answering Trino-spelled SQL; they are not
// evidence of what Trino computes.
package trinotest

import (
	"context"
	"database/sql"
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

	_ "github.com/duckdb/duckdb-go/v2" // registers database/sql driver "duckdb"
	trinoclient "github.com/trinodb/trino-go-client/trino"
)

// Server is a running protocol server. Its DuckDB database is named
// "memory" (the catalog) with schema "main".
type Server struct {
	// URL is the https base URL; Client trusts its certificate.
	URL    string
	Client *http.Client
	// DB is the DuckDB database that answers, for test setup.
	DB *sql.DB

	srv      *httptest.Server
	user     string
	password string
	pageSize int

	mu        sync.Mutex
	seq       int
	queries   map[string]*query
	cancelled []string
	inject    *Error
	posts     []http.Header
	denied    map[string]bool
}

// Error is a Trino error object (QueryError in the protocol).
type Error struct {
	Message   string `json:"message"`
	ErrorCode int    `json:"errorCode"`
	ErrorName string `json:"errorName"`
	ErrorType string `json:"errorType"`
}

type query struct {
	columns []column
	rows    [][]any
	err     *Error
}

// Start runs a server that requires HTTP basic credentials user:password
// (when password is non-empty) and sends pageSize rows per page (at least
// 1). It stops when the test ends.
func Start(t testing.TB, user, password string, pageSize int) *Server {
	t.Helper()
	s, err := New(user, password, pageSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// New runs a server like Start for callers without a test, such as a
// TestMain sharing one server across a package; Stop ends it.
func New(user, password string, pageSize int) (*Server, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	for _, m := range macroSQL() {
		if _, err := db.Exec(m); err != nil {
			db.Close()
			return nil, fmt.Errorf("trinotest: installing %q: %w", m, err)
		}
	}
	if pageSize < 1 {
		pageSize = 1
	}
	s := &Server{DB: db, user: user, password: password, pageSize: pageSize, queries: map[string]*query{}, denied: map[string]bool{}}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	s.Client = s.srv.Client()
	return s, nil
}

// Stop closes the listener and the DuckDB database.
func (s *Server) Stop() {
	s.srv.Close()
	s.DB.Close()
}

// DSN is a trino-go-client DSN for this server with the given catalog and
// schema (empty: none).
func (s *Server) DSN(catalog, schema string) string {
	u := strings.Replace(s.URL, "https://", "https://"+s.user+":"+s.password+"@", 1)
	if s.password == "" {
		u = strings.Replace(s.URL, "https://", "https://"+s.user+"@", 1)
	}
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

// FailNext makes the next statement fail with e instead of running.
func (s *Server) FailNext(e Error) {
	s.mu.Lock()
	s.inject = &e
	s.mu.Unlock()
}

// Deny makes tables (unqualified names, any case) unreadable, as Trino's
// access control would: a statement naming one fails with
// PERMISSION_DENIED ("Access Denied: Cannot select from table ...") and
// information_schema hides it, as Trino filters metadata by access.
func (s *Server) Deny(tables ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tables {
		s.denied[strings.ToLower(t)] = true
	}
}

// deniedIn returns the first denied table stmt names, or "".
func (s *Server) deniedIn(stmt string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.denied) == 0 {
		return ""
	}
	for _, t := range lex(stmt) {
		name := t.text
		switch t.kind {
		case 'q':
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		case 'w':
		default:
			continue
		}
		if s.denied[strings.ToLower(name)] {
			return name
		}
	}
	return ""
}

// hidden lists the denied tables as a SQL list of string literals.
func (s *Server) hidden() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for t := range s.denied {
		names = append(names, "'"+strings.ReplaceAll(t, "'", "''")+"'")
	}
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ")
}

// Cancelled lists the ids of queries the client cancelled (DELETE).
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancelled...)
}

// Posts returns the headers of every statement submitted so far.
func (s *Server) Posts() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.posts...)
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

// submit runs the statement to completion (results are small in tests)
// and answers like a coordinator that queued it: id and nextUri only.
func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("20260101_000000_%05d_ossie", s.seq)
	inject := s.inject
	s.inject = nil
	s.posts = append(s.posts, r.Header.Clone())
	s.mu.Unlock()
	q := &query{err: inject}
	if inject == nil {
		q.columns, q.rows, q.err = s.run(r.Context(), r.Header, string(body))
	}
	s.mu.Lock()
	s.queries[id] = q
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
	s.mu.Unlock()
	if !ok || err != nil {
		http.Error(w, "query not found", http.StatusNotFound)
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
	resp["columns"] = q.columns
	start := token * s.pageSize
	end := min(start+s.pageSize, len(q.rows))
	if start < len(q.rows) {
		resp["data"] = q.rows[start:end]
	}
	if end < len(q.rows) {
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

// run executes stmt on DuckDB in the session catalog and schema, after
// the Trino emulation of emulate.go.
func (s *Server) run(ctx context.Context, h http.Header, stmt string) ([]column, [][]any, *Error) {
	if name := s.deniedIn(stripInfoSchema(stmt)); name != "" {
		return nil, nil, &Error{Message: "Access Denied: Cannot select from table " + name, ErrorCode: 4, ErrorName: "PERMISSION_DENIED", ErrorType: "USER_ERROR"}
	}
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return nil, nil, internalError(err)
	}
	defer conn.Close()
	setup := append([]string(nil), session...)
	if c, sc := h.Get("X-Trino-Catalog"), h.Get("X-Trino-Schema"); c != "" {
		use := quoteIdent(c)
		if sc != "" {
			use += "." + quoteIdent(sc)
		}
		// The emulation macros live in memory.main; keep them in reach.
		setup = append(setup, "USE "+use, "SET search_path = '"+strings.ReplaceAll(use, "'", "''")+",memory.main'")
	} else {
		setup = append(setup, "USE memory.main", "SET search_path = 'memory.main'")
	}
	for _, q := range setup {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, nil, toError(err)
		}
	}
	rows, err := conn.QueryContext(ctx, emulate(s.rewrite(stmt)))
	if err != nil {
		return nil, nil, toError(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, toError(err)
	}
	cols := make([]column, len(types))
	for i, t := range types {
		cols[i] = columnOf(t.Name(), t.DatabaseTypeName())
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, toError(err)
		}
		for i, v := range vals {
			vals[i] = encode(cols[i], v)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, toError(err)
	}
	return cols, out, nil
}

// catalogInfoSchema matches a catalog-qualified information_schema table,
// which Trino has per catalog and DuckDB only once for all databases.
var catalogInfoSchema = regexp.MustCompile(`"((?:[^"]|"")+)"\.information_schema\.(columns|tables)\b`)

// rewrite turns a catalog-qualified information_schema table into
// DuckDB's one for all databases, restricted to that catalog and without
// denied tables.
func (s *Server) rewrite(stmt string) string {
	hidden := s.hidden()
	return catalogInfoSchema.ReplaceAllStringFunc(stmt, func(m string) string {
		sub := catalogInfoSchema.FindStringSubmatch(m)
		cat := strings.ReplaceAll(sub[1], `""`, `"`)
		where := "table_catalog = '" + strings.ReplaceAll(cat, "'", "''") + "'"
		if hidden != "" {
			where += " AND lower(table_name) NOT IN (" + hidden + ")"
		}
		return "(SELECT * FROM information_schema." + sub[2] + " WHERE " + where + ") AS " + sub[2]
	})
}

// stripInfoSchema removes information_schema queries' string literals
// from the permission check: naming a table in a metadata filter reads
// no data (the rows are hidden instead).
func stripInfoSchema(stmt string) string {
	if !strings.Contains(strings.ToLower(stmt), "information_schema") {
		return stmt
	}
	var b strings.Builder
	for _, t := range lex(stmt) {
		if t.kind != 's' {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
