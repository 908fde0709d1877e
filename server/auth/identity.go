package auth

import (
	"context"
	"maps"
	"slices"

	"github.com/ossie-dev/ossie/compiler/plan"
)

// Identity is an authenticated caller: who it is (for logs), the roles it
// holds and the attributes row filters may reference (`{{ caller.region }}`).
// It comes from a bearer token entry, from the headers of a trusted
// authenticating proxy, or from the configured anonymous role — never from
// a request body.
type Identity struct {
	// Name identifies the caller in logs: the token entry's name, the
	// proxy's X-Ossie-User, or "anonymous". Never a credential.
	Name string
	// Roles are the governance roles of the caller (at least one).
	Roles []string
	// Attributes are bound as values into row filters; keys are lower case.
	Attributes map[string]string
	// Namespaces, when not empty, are the only Kubernetes namespaces whose
	// models the caller may read; a model of another namespace, or of no
	// namespace (local files), is unknown to it. Empty: every model.
	Namespaces []string
	// Method is how the caller was authenticated: MethodToken, MethodProxy
	// or MethodAnonymous.
	Method string
}

// Authentication methods reported in Identity.Method.
const (
	MethodToken     = "token"
	MethodProxy     = "proxy"
	MethodAnonymous = "anonymous"
)

type identityKey struct{}

// WithIdentity returns a context carrying id. Answer and Plan plan under
// the identity found in their context; the HTTP handler puts the
// authenticated caller there, and Go callers (tests, tools) may do the
// same to answer as a role.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity in ctx, or nil when there is none:
// nil means an in-process, ungoverned caller (every member visible, no row
// filters). Over HTTP an identity is always present once authentication
// is configured (Config.Auth).
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// Caller is the planner's view of the identity; nil (no identity) plans
// ungoverned.
func (id *Identity) Caller() *plan.Caller {
	if id == nil {
		return nil
	}
	return &plan.Caller{Roles: slices.Clone(id.Roles), Attributes: maps.Clone(id.Attributes)}
}
