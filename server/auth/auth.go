// Package auth holds who a caller is and how the server learns it: the
// Identity carried in a request context, bearer tokens from a watched file,
// the trusted authenticating proxy, the anonymous role, their metrics and
// command-line flags, and the file watcher they share with model reloads.
// It imports only the compiler and server/problem (a 401 is a problem
// document); the query path and the entry points import it.
package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/problem"
)

// Options configures New. At least one way in must be set:
// TokensFile, ProxySecretFile or AnonymousRoles.
type Options struct {
	// TokensFile is a token file (see tokenFile for the format), typically
	// a key of a mounted Secret. It is re-read when it changes; a broken
	// new version keeps the last good tokens.
	TokensFile string
	// ProxySecretFile enables identity headers from an authenticating
	// proxy (X-Ossie-User, X-Ossie-Role, X-Ossie-Attr-*), accepted only on
	// requests that carry this file's content (trimmed; at least
	// MinTokenLength bytes) in X-Ossie-Proxy-Secret. Re-read like
	// TokensFile. Empty: such headers are ignored.
	ProxySecretFile string
	// AnonymousRoles, when set, is the identity of requests that carry no
	// credentials at all; without it they get 401. Invalid credentials
	// are 401 either way.
	AnonymousRoles []string
	// ReloadInterval is the poll period of the watched files, on top of
	// file-system events; default DefaultReloadInterval.
	ReloadInterval time.Duration
	// Logger receives reload and rejection logs; never credentials.
	Logger *slog.Logger
}

// Auth authenticates API requests (Config.Auth). Build it with New;
// safe for concurrent use.
type Auth struct {
	tokens      *watchedFile[*tokenSet]
	proxySecret *watchedFile[*proxySecret]
	anonymous   *Identity
	log         *slog.Logger
	metrics     *authMetrics
}

// New loads the configured files and watches them until ctx is done.
// A missing or invalid file, or options that admit nobody, is an error;
// the error never contains a credential.
func New(ctx context.Context, opts Options) (*Auth, error) {
	if opts.TokensFile == "" && opts.ProxySecretFile == "" && len(opts.AnonymousRoles) == 0 {
		return nil, errors.New("auth: set a tokens file, a proxy secret file or anonymous roles")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Auth{log: log, metrics: newAuthMetrics()}
	if len(opts.AnonymousRoles) > 0 {
		for _, r := range opts.AnonymousRoles {
			if r == "" || r != strings.TrimSpace(r) || strings.Contains(r, ",") {
				return nil, errors.New("auth: anonymous role names must be non-empty, without surrounding spaces or commas")
			}
		}
		a.anonymous = &Identity{Name: MethodAnonymous, Roles: slices.Clone(opts.AnonymousRoles), Method: MethodAnonymous}
	}
	if opts.TokensFile != "" {
		w, err := loadWatchedFile(opts.TokensFile, "tokens", parseTokens, log, a.metrics)
		if err != nil {
			return nil, errors.New("auth: " + err.Error())
		}
		// Deleting the tokens file revokes every token (docs/server.md).
		revoked := &tokenSet{}
		w.onMissing = &revoked
		a.tokens = w
	}
	if opts.ProxySecretFile != "" {
		w, err := loadWatchedFile(opts.ProxySecretFile, "proxy_secret", parseProxySecret, log, a.metrics)
		if err != nil {
			return nil, errors.New("auth: " + err.Error())
		}
		a.proxySecret = w
	}
	// Watch only once everything loaded: a failed start leaves no goroutine.
	if a.tokens != nil {
		go a.tokens.run(ctx, opts.ReloadInterval)
	}
	if a.proxySecret != nil {
		go a.proxySecret.run(ctx, opts.ReloadInterval)
	}
	return a, nil
}

// Reasons for refusing a request, the label of
// ossie_server_auth_failures_total.
const (
	failMissing     = "missing"            // no credentials and no anonymous role
	failScheme      = "bad_scheme"         // Authorization is not one "Bearer <token>"
	failToken       = "invalid_token"      // no token entry matches
	failProxySecret = "bad_proxy_secret"   // X-Ossie-Proxy-Secret does not match
	failProxyHeader = "bad_proxy_identity" // no role, or a malformed identity header
)

// AuthError is a refused request: the metric reason and the client-safe
// problem. Details never echo what the client sent.
type AuthError struct {
	reason string
	Detail string
}

// Authenticate returns the caller of r. Order: a request presenting the
// proxy secret is the proxy's (its Authorization header, often the
// user's token for the proxy itself, is not ours to check); otherwise a
// bearer token; otherwise the anonymous identity. Identity headers
// without the proxy secret are ignored.
func (a *Auth) Authenticate(r *http.Request) (*Identity, *AuthError) {
	if a.proxySecret != nil {
		if vs := r.Header.Values(HeaderProxySecret); len(vs) > 0 {
			return a.proxyIdentity(r, vs)
		}
	}
	if vs := r.Header.Values("Authorization"); len(vs) > 0 {
		token, ok := bearerToken(vs)
		if !ok {
			return nil, &AuthError{failScheme, `the Authorization header must be one "Bearer <token>"`}
		}
		if a.tokens != nil {
			if id := a.tokens.get().lookup(token); id != nil {
				return id, nil
			}
		}
		return nil, &AuthError{failToken, "the bearer token is not valid"}
	}
	if a.anonymous != nil {
		return a.anonymous, nil
	}
	return nil, &AuthError{failMissing, "authentication required: send Authorization: Bearer <token>"}
}

// bearerToken extracts the token of a single `Bearer <token>` header
// (RFC 6750 section 2.1; the scheme is case-insensitive).
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// Require wraps an API handler: the request runs under the authenticated
// identity, or gets a 401 problem. A nil Auth (no Config.Auth) runs every
// request ungoverned.
func (a *Auth) Require(h http.HandlerFunc) http.HandlerFunc {
	if a == nil {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		id, fail := a.Authenticate(r)
		if fail != nil {
			a.metrics.failures.WithLabelValues(fail.reason).Inc()
			a.log.Info("unauthenticated request", "path", r.URL.Path, "reason", fail.reason)
			w.Header().Set("WWW-Authenticate", challenge(fail.reason))
			problem.WriteProblem(w, r, &problem.Error{Status: http.StatusUnauthorized, Code: compiler.CodeUnauthenticated, Title: "Unauthorized", Detail: fail.Detail})
			return
		}
		if info, ok := r.Context().Value(problem.RequestInfoKey{}).(*problem.RequestInfo); ok {
			info.Caller = id.Name
		}
		h(w, r.WithContext(WithIdentity(r.Context(), id)))
	}
}

// AuthenticatePassword maps the password a SQL client sent onto the
// caller it stands for: a bearer token of the tokens file, or the
// anonymous identity for an empty password when anonymous roles are
// configured. ok=false means refused (counted as an invalid token).
// A nil Auth returns nil, true: ungoverned. The trusted proxy
// has no SQL form (it authenticates HTTP headers), so proxy identities
// cannot reach this endpoint.
func (a *Auth) AuthenticatePassword(password string) (*Identity, bool) {
	if a == nil {
		return nil, true
	}
	if password == "" && a.anonymous != nil {
		return a.anonymous, true
	}
	if password != "" && a.tokens != nil {
		if id := a.tokens.get().lookup(password); id != nil {
			return id, true
		}
	}
	reason := failToken
	if password == "" {
		reason = failMissing
	}
	a.metrics.failures.WithLabelValues(reason).Inc()
	a.log.Info("unauthenticated SQL connection", "reason", reason)
	return nil, false
}

// challenge is the WWW-Authenticate value of a 401 (RFC 6750 section 3).
func challenge(reason string) string {
	switch reason {
	case failToken:
		return `Bearer realm="ossie", error="invalid_token"`
	case failScheme:
		return `Bearer realm="ossie", error="invalid_request"`
	}
	return `Bearer realm="ossie"`
}
