// Package httpapi is the semantic server's HTTP API (docs/server.md): the
// /v1/ routes for model metadata, answers and SQL previews, the probes,
// /metrics and /openapi.json, the request log and panic guard, the
// loopback guard of an unauthenticated server, and the mounts of the MCP
// transport (/mcp, server/mcpapi) and the web explorer (/, /ui/,
// server/web). Every answer comes from the query core, package server.
//
// Imports point one way: httpapi imports server, server/mcpapi,
// server/queryjson and the packages below them; nothing of the server
// imports httpapi (only the binaries, cmd/server and ossiectl, do).
package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/web"
)

// Options configures the HTTP API of a server.
type Options struct {
	// AnyHost lets a server without authentication (Config.Auth nil)
	// answer any Host header and any body type; by default it answers
	// loopback host names and JSON bodies only (hostcheck.go). The
	// binaries set it for --no-auth on a non-loopback address.
	AnyHost bool
}

// api is the HTTP front end of one server: the core it answers through,
// the core's configuration (read once), and the HTTP-only state.
type api struct {
	*server.Server
	cfg      server.Config
	opts     Options
	requests *requestMetrics
	// mcp is the /mcp transport, built once: one MCP server for every
	// request (it is stateless).
	mcp http.Handler
}

// New returns the handler of the API of s:
//
//	GET  /v1/models                  model summaries
//	GET  /v1/models/{model}          datasets, dimensions, metrics, ai_context
//	POST /v1/models/{model}/query    plan + run: rows, columns, version, truncated
//	POST /v1/models/{model}/sql      plan only: SQL and columns
//	/mcp                             Model Context Protocol, streamable HTTP (server/mcpapi)
//	GET  /, /ui/...                  the web explorer (server/web)
//	GET  /healthz, /readyz, /openapi.json, /metrics (Prometheus)
//
// The /v1/ routes and /mcp need authentication when s's Config.Auth is
// set; the probe, metrics and API-description routes never do (they show
// model names and versions, no members). Unknown paths are 404 and wrong
// methods 405, both as problem documents. The request counter
// (ossie_server_http_requests_total) joins s's Config.Registry; a second
// API of the same server shares it. The only error is a registration
// that fails otherwise.
func New(s *server.Server, opts Options) (http.Handler, error) {
	a, err := newAPI(s, opts)
	if err != nil {
		return nil, err
	}
	return a.handler(), nil
}

func newAPI(s *server.Server, opts Options) (*api, error) {
	cfg := s.Config()
	m, err := registerRequestMetrics(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("httpapi: metrics: %w", err)
	}
	return &api{Server: s, cfg: cfg, opts: opts, requests: m, mcp: mcpapi.Handler(s)}, nil
}

func (s *api) handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		if rt.method == "" || rt.no405 {
			mux.Handle(strings.TrimSpace(rt.method+" "+rt.pattern), rt.h)
			continue
		}
		mux.Handle(rt.method+" "+rt.pattern, rt.h)
		// The method-less twin catches every other method on the same path.
		method := rt.method
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", method)
			problem.WriteProblem(w, r, &problem.Error{Status: http.StatusMethodNotAllowed, Code: compiler.CodeMethodNotAllowed, Title: "Method not allowed",
				Detail: r.Method + " is not allowed here; use " + method})
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		problem.WriteProblem(w, r, &problem.Error{Status: http.StatusNotFound, Detail: "no such endpoint; see /openapi.json"})
	})
	return s.middleware(s.loopbackGuard(mux))
}

// route is one entry of the API. handler registers exactly these, and the
// OpenAPI document must describe each (TestOpenAPIDescribesEveryRoute), so
// a route added here without its operation in openapi.json fails a test.
type route struct {
	method  string // "" for any method (the handler answers the methods itself)
	pattern string // http.ServeMux pattern without the method
	h       http.Handler
	// no405 leaves other methods to the catch-all 404 instead of a 405
	// twin (the explorer's files share their prefix with unknown paths).
	no405 bool
}

func (s *api) routes() []route {
	index, assets := web.Handler()
	return []route{
		{method: http.MethodGet, pattern: "/v1/models", h: s.authed(s.handleList)},
		{method: http.MethodGet, pattern: "/v1/models/{model}", h: s.authed(s.handleDetail)},
		{method: http.MethodPost, pattern: "/v1/models/{model}/query", h: s.authed(s.handleQuery)},
		{method: http.MethodPost, pattern: "/v1/models/{model}/sql", h: s.authed(s.handleSQL)},
		{method: http.MethodGet, pattern: namespacedPrefix, h: s.authed(s.handleDetail)},
		{method: http.MethodPost, pattern: namespacedPrefix + "/query", h: s.authed(s.handleQuery)},
		{method: http.MethodPost, pattern: namespacedPrefix + "/sql", h: s.authed(s.handleSQL)},
		{pattern: "/mcp", h: s.authed(s.mcp.ServeHTTP)},
		{method: http.MethodGet, pattern: "/{$}", h: index, no405: true},
		{method: http.MethodGet, pattern: "/ui/", h: assets, no405: true},
		{method: http.MethodGet, pattern: "/healthz", h: http.HandlerFunc(s.handleHealth)},
		{method: http.MethodGet, pattern: "/readyz", h: http.HandlerFunc(s.handleReady)},
		{method: http.MethodGet, pattern: "/openapi.json", h: http.HandlerFunc(handleOpenAPI)},
		{method: http.MethodGet, pattern: "/metrics", h: promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{})},
	}
}

// authed wraps an API handler in Config.Auth (auth.Require).
func (s *api) authed(h http.HandlerFunc) http.HandlerFunc { return s.cfg.Auth.Require(h) }

// statusWriter records the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's Flusher
// (the MCP transport streams).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// middleware logs each request and turns a panic into a 500 problem, so a
// bug in one request never takes the process down.
func (s *api) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := &problem.RequestInfo{ID: problem.NewRequestID()}
		w.Header().Set(problem.RequestIDHeader, info.ID)
		r = r.WithContext(context.WithValue(r.Context(), problem.RequestInfoKey{}, info))
		defer func() {
			if rec := recover(); rec != nil {
				if rec == http.ErrAbortHandler {
					panic(rec)
				}
				s.cfg.Logger.Error("panic serving request", "request_id", info.ID, "path", r.URL.Path, "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
				if sw.status == 0 {
					problem.WriteProblem(sw, r, &problem.Error{Status: http.StatusInternalServerError, Detail: "internal error"})
				}
			}
			s.requests.observe(r, sw.status)
			s.cfg.Logger.Info("request", "request_id", info.ID, "method", r.Method, "path", r.URL.Path, "status", sw.status, "caller", info.Caller, "duration_ms", float64(time.Since(start).Microseconds())/1000)
		}()
		next.ServeHTTP(sw, r)
	})
}
