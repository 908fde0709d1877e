package auth

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// Headers of the trusted-proxy mode (Options.ProxySecretFile). The
// proxy authenticates the user, then sets these on the request it
// forwards; it must remove any copies the client sent.
const (
	HeaderProxySecret = "X-Ossie-Proxy-Secret" // the shared secret; required
	headerProxyUser   = "X-Ossie-User"         // who, for logs; optional
	headerProxyRole   = "X-Ossie-Role"         // roles, comma-separated or repeated; at least one
	headerProxyAttr   = "X-Ossie-Attr-"        // + attribute name: one attribute each
	// headerProxyNamespace limits the caller to these namespaces' models,
	// comma-separated or repeated, as a token's `namespaces` does; absent:
	// every model.
	headerProxyNamespace = "X-Ossie-Namespace"
)

// proxySecret is the digest of the shared secret.
type proxySecret [sha256.Size]byte

// parseProxySecret reads a secret file: its content without surrounding
// white space (a trailing newline is common), at least MinTokenLength bytes.
func parseProxySecret(data []byte) (*proxySecret, error) {
	s := bytes.TrimSpace(data)
	if len(s) < MinTokenLength {
		return nil, fmt.Errorf("proxy secret file: the secret is shorter than %d bytes", MinTokenLength)
	}
	d := proxySecret(sha256.Sum256(s))
	return &d, nil
}

// proxyIdentity checks the shared secret (in constant time, on digests so
// the length does not leak either) and reads the identity headers.
func (a *Auth) proxyIdentity(r *http.Request, secrets []string) (*Identity, *AuthError) {
	want := a.proxySecret.get()
	got := sha256.Sum256([]byte(secrets[0]))
	if len(secrets) != 1 || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return nil, &AuthError{failProxySecret, "the proxy credentials are not valid"}
	}
	id := &Identity{Name: "proxy", Method: MethodProxy}
	if u := r.Header.Values(headerProxyUser); len(u) == 1 && u[0] != "" {
		id.Name = u[0]
	} else if len(u) > 1 {
		return nil, &AuthError{failProxyHeader, "the authenticating proxy sent " + headerProxyUser + " more than once"}
	}
	for _, v := range r.Header.Values(headerProxyRole) {
		for _, role := range strings.Split(v, ",") {
			if role = strings.TrimSpace(role); role != "" {
				id.Roles = append(id.Roles, role)
			}
		}
	}
	if len(id.Roles) == 0 {
		return nil, &AuthError{failProxyHeader, "the authenticating proxy sent no " + headerProxyRole}
	}
	for _, v := range r.Header.Values(headerProxyNamespace) {
		for _, ns := range strings.Split(v, ",") {
			if ns = strings.TrimSpace(ns); ns != "" {
				id.Namespaces = append(id.Namespaces, ns)
			}
		}
	}
	if len(id.Namespaces) == 0 && len(r.Header.Values(headerProxyNamespace)) > 0 {
		// An empty list must not widen the caller to every namespace.
		return nil, &AuthError{failProxyHeader, "the authenticating proxy sent an empty " + headerProxyNamespace}
	}
	for key, vs := range r.Header {
		// Header keys are canonical here (net/http): X-Ossie-Attr-Region.
		if len(key) <= len(headerProxyAttr) || !strings.EqualFold(key[:len(headerProxyAttr)], headerProxyAttr) {
			continue
		}
		name := strings.ReplaceAll(strings.ToLower(key[len(headerProxyAttr):]), "-", "_")
		if !attrName.MatchString(name) || len(vs) != 1 {
			return nil, &AuthError{failProxyHeader, "the authenticating proxy sent a malformed " + headerProxyAttr + "* header"}
		}
		if id.Attributes == nil {
			id.Attributes = map[string]string{}
		}
		// X-Ossie-Attr-Cost-Center and X-Ossie-Attr-Cost_Center are two
		// header keys for one attribute: a client could add the one its
		// proxy does not overwrite, so any such pair is refused.
		if _, dup := id.Attributes[name]; dup {
			return nil, &AuthError{failProxyHeader, "the authenticating proxy sent attribute " + name + " twice"}
		}
		id.Attributes[name] = vs[0]
	}
	return id, nil
}
