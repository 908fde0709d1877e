// Package server is the query core of the Ossie semantic server (DESIGN.md
// section 6): it holds the metadata of compiled models, plans metric
// queries with the compiler's planner and runs them on an engine,
// returning rows with column names, types, the model version and a
// truncation flag. Errors are *problem.Error carrying the compiler's
// stable OSSnnnn codes, which the front ends render (RFC 9457 problem
// documents over HTTP, tool errors over MCP, error responses over the
// PostgreSQL wire).
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
//
// The front ends sit on top and import it, never the other way:
// server/mcpapi (the MCP tools), server/pgwire (the SQL endpoint) and
// server/httpapi (the HTTP routes, which mount /mcp and the explorer).
// docs/architecture.md, "The server's packages", lists them all.
package server

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Defaults applied by New to zero Config values.
const (
	DefaultMaxBodyBytes = 1 << 20 // 1 MiB
	DefaultMaxRows      = 100_000
	DefaultQueryTimeout = 60 * time.Second
	DefaultCacheTTL     = time.Minute
)

// DefaultCacheBytes is the commands' default for --cache-bytes (bin/server,
// ossiectl serve and mcp): a 64 MiB result cache. Config's zero CacheBytes
// turns the cache off.
const DefaultCacheBytes = 64 << 20

// ShutdownGrace is how long the endpoints (httpapi.Serve, the
// PostgreSQL-wire endpoint) let in-flight requests finish after they are
// told to stop.
const ShutdownGrace = 30 * time.Second

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
	metrics *queryMetrics
	gate    *gate
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
	s := &Server{cfg: cfg, store: store, metrics: newQueryMetrics(), gate: newGate(cfg.Limits)}
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

// Config returns the configuration the server runs with, defaults
// applied (New). The front ends read their bounds, logger, registry and
// authentication from it; the copy's Store and Registry are the server's
// own, to read, not to replace.
func (s *Server) Config() Config { return s.cfg }
