// Package server is the Ossie semantic HTTP API (DESIGN.md section 6):
// it serves the metadata of compiled models, plans metric queries with the
// compiler's planner and runs them on an engine, returning rows with column
// names, types, the model version and a truncation flag. Errors are RFC 9457
// problem documents carrying the compiler's stable OSSnnnn codes.
//
// Models come from files compiled at start (local mode, server/load) or
// from published ConfigMaps watched while serving (Kubernetes mode,
// WatchConfigMaps), held in a Store that swaps versions atomically.
//
// Callers are authenticated by Config.Auth (bearer tokens from a watched
// file, a trusted authenticating proxy, or an anonymous role; DESIGN.md
// section 6) and their Identity travels in the request context into Answer
// and Plan, never in the query body: queries are planned under the
// caller's roles and the metadata shows only what they may see.
// docs/server.md describes the API, authentication and the rules chosen.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/web"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Defaults applied by New to zero Config values.
const (
	DefaultMaxBodyBytes = 1 << 20 // 1 MiB
	DefaultMaxRows      = 100_000
	DefaultQueryTimeout = 60 * time.Second
	DefaultCacheTTL     = time.Minute
)

// Config configures a Server. Zero values take the defaults above.
type Config struct {
	// Engine runs planned SQL; nil serves metadata and /sql only (queries
	// then fail with OSS5001 and /readyz reports not ready).
	Engine engine.Engine
	// Models are compiled artifacts; names must be unique.
	Models []*compiler.Artifact
	// MaxBodyBytes bounds a request body; larger bodies get 413 OSS5004.
	MaxBodyBytes int64
	// MaxRows caps the rows of one answer; more rows set truncated=true.
	MaxRows int
	// QueryTimeout bounds one engine query; exceeding it gives 504 OSS5002.
	QueryTimeout time.Duration
	// Logger receives one line per request; nil discards.
	Logger *slog.Logger
	// Store, when set, is where models come from instead of Models
	// (Kubernetes mode: a ConfigMapWatcher fills it, and models may come
	// and go while serving). Models must then be empty. A store-backed
	// server is ready without models: they may arrive later.
	Store *Store
	// Synced, when set, gates /readyz until it returns true (Kubernetes
	// mode: the ConfigMap cache has synced).
	Synced func() bool
	// Registry is what /metrics serves; New registers the server's
	// collectors on it. Nil: a new registry with the Go and process
	// collectors.
	Registry *prometheus.Registry
	// DebugErrors adds the engine's own message to the problem detail of
	// an engine failure for ungoverned callers (no Identity). For local
	// debugging only: that message quotes the planned SQL and physical
	// names. Governed callers never get it.
	DebugErrors bool
	// AnyHost lets a server without Auth answer any Host header and any
	// body type; by default it answers loopback host names and JSON bodies
	// only (server/hostcheck.go). The binaries set it for --no-auth on a
	// non-loopback address.
	AnyHost bool
	// Limits bound one query's size and the engine queries in flight
	// (server/limits.go); zero fields take DefaultLimits.
	Limits Limits
	// Auth authenticates every /v1/ request (401 problem otherwise) and
	// governs it by the caller's roles; its metrics join Registry. Nil:
	// no authentication, every request ungoverned — for in-process use
	// and loopback-only serving (see CheckExposure).
	Auth *auth.Auth
	// Audit, when set, writes one structured line per answered query
	// (REST, MCP, Answer; audit.go): caller, roles, model and version, members, duration,
	// rows, truncation and outcome.
	Audit *AuditOptions
	// CacheBytes bounds the result cache (an estimate of the memory its
	// answers hold); 0 turns the cache off. Identical questions within
	// CacheTTL are then answered from memory (cache.go).
	CacheBytes int64
	// CacheTTL is how long a cached answer is served; default
	// DefaultCacheTTL when CacheBytes > 0.
	CacheTTL time.Duration
	// FlightBytes bounds the copy of an answer that identical concurrent
	// questions share from one engine execution (flight.go), cache on or
	// off; 0 is DefaultFlightBytes, < 0 turns sharing off.
	FlightBytes int64
}

// Server answers metric queries for the models of its Store. Safe for
// concurrent use.
type Server struct {
	cfg     Config
	store   *Store
	metrics *httpMetrics
	gate    *gate
	mcpState
	// cache is nil when Config.CacheBytes is 0.
	cache   *resultCache
	flights *flights
	// rollups builds the model files' rollups (RunRollups); nil without.
	rollups atomic.Pointer[localRollups]
}

// model is one loaded artifact plus what every request would otherwise
// recompute: its planner and its metadata document.
type model struct {
	art     *compiler.Artifact
	planner *plan.Planner
	// namespace is the Kubernetes namespace of the model's source, ""
	// for model files.
	namespace string
	detail    ModelDetail
	summary   ModelSummary
}

// New checks cfg and prepares one planner per model. Two models with the
// same name, a nil model, a planner that refuses an artifact, Models given
// together with Store, or collectors already registered on cfg.Registry
// is an error.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	store := cfg.Store
	if store == nil {
		ms, err := buildModels(cfg.Models, "")
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		store = NewStore(cfg.Logger)
		for _, m := range ms {
			m.planner.Rollups = store.rollupsOf(filesSource, m.art.Name) // local mode's (RunRollups)
		}
		store.put(Source{Key: filesSource}, compiler.BundleVersion(cfg.Models), ms)
	} else if len(cfg.Models) > 0 {
		return nil, fmt.Errorf("server: Models and Store are exclusive")
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
		cfg.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	cfg.Limits = cfg.Limits.withDefaults(cfg.Engine)
	s := &Server{cfg: cfg, store: store, metrics: newHTTPMetrics(), gate: newGate(cfg.Limits)}
	if err := registerMetrics(cfg.Registry, s.metrics, store); err != nil {
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	fl, err := newFlights(cfg.FlightBytes, cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("server: flight metrics: %w", err)
	}
	s.flights = fl
	if cfg.CacheBytes > 0 {
		if cfg.CacheTTL <= 0 {
			cfg.CacheTTL = DefaultCacheTTL
		}
		c, err := newResultCache(cfg.CacheBytes, cfg.CacheTTL, cfg.Registry)
		if err != nil {
			return nil, fmt.Errorf("server: cache metrics: %w", err)
		}
		s.cache, s.cfg.CacheTTL = c, cfg.CacheTTL
	}
	if cfg.Auth != nil {
		if err := cfg.Registry.Register(cfg.Auth); err != nil {
			return nil, fmt.Errorf("server: auth metrics: %w", err)
		}
	}
	return s, nil
}

// Models returns the served artifacts sorted by name.
func (s *Server) Models() []*compiler.Artifact {
	return s.store.Models()
}

// Ready reports nil when the model source is ready (local mode: at least
// one model loaded; Kubernetes mode: the Synced gate passes), every served
// model binds to the engine (no recorded drift, bindstate.go) and the
// engine answers a trivial query within 5 seconds.
func (s *Server) Ready(ctx context.Context) error {
	if s.cfg.Synced != nil && !s.cfg.Synced() {
		return errNotSynced
	}
	if s.cfg.Store == nil && len(s.store.snapshot().all) == 0 {
		return errNoModels
	}
	if s.cfg.Engine == nil {
		return errNoEngine
	}
	if s.store.snapshot().notBound() {
		return errNotBound
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.cfg.Engine.Query(ctx, "SELECT 1", 1); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// Handler serves the API:
//
//	GET  /v1/models                  model summaries
//	GET  /v1/models/{model}          datasets, dimensions, metrics, ai_context
//	POST /v1/models/{model}/query    plan + run: rows, columns, version, truncated
//	POST /v1/models/{model}/sql      plan only: SQL and columns
//	/mcp                             Model Context Protocol, streamable HTTP (mcp.go)
//	GET  /, /ui/...                  the web explorer (server/web)
//	GET  /healthz, /readyz, /openapi.json, /metrics (Prometheus)
//
// The /v1/ routes need authentication when Config.Auth is set; the probe,
// metrics and API-description routes never do (they show model names and
// versions, no members). Unknown paths are 404 and wrong methods 405, both
// as problem documents.
func (s *Server) Handler() http.Handler {
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

// route is one entry of the API. Handler registers exactly these, and the
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

func (s *Server) routes() []route {
	index, assets := web.Handler()
	return []route{
		{method: http.MethodGet, pattern: "/v1/models", h: s.authed(s.handleList)},
		{method: http.MethodGet, pattern: "/v1/models/{model}", h: s.authed(s.handleDetail)},
		{method: http.MethodPost, pattern: "/v1/models/{model}/query", h: s.authed(s.handleQuery)},
		{method: http.MethodPost, pattern: "/v1/models/{model}/sql", h: s.authed(s.handleSQL)},
		{method: http.MethodGet, pattern: namespacedPrefix, h: s.authed(s.handleDetail)},
		{method: http.MethodPost, pattern: namespacedPrefix + "/query", h: s.authed(s.handleQuery)},
		{method: http.MethodPost, pattern: namespacedPrefix + "/sql", h: s.authed(s.handleSQL)},
		{pattern: "/mcp", h: s.authed(s.mcpHandler().ServeHTTP)},
		{method: http.MethodGet, pattern: "/{$}", h: index, no405: true},
		{method: http.MethodGet, pattern: "/ui/", h: assets, no405: true},
		{method: http.MethodGet, pattern: "/healthz", h: http.HandlerFunc(s.handleHealth)},
		{method: http.MethodGet, pattern: "/readyz", h: http.HandlerFunc(s.handleReady)},
		{method: http.MethodGet, pattern: "/openapi.json", h: http.HandlerFunc(handleOpenAPI)},
		{method: http.MethodGet, pattern: "/metrics", h: promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{})},
	}
}

// authed wraps an API handler in Config.Auth (auth.Require).
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc { return s.cfg.Auth.Require(h) }

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
func (s *Server) middleware(next http.Handler) http.Handler {
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
			s.metrics.observe(r, sw.status)
			s.cfg.Logger.Info("request", "request_id", info.ID, "method", r.Method, "path", r.URL.Path, "status", sw.status, "caller", info.Caller, "duration_ms", float64(time.Since(start).Microseconds())/1000)
		}()
		next.ServeHTTP(sw, r)
	})
}
