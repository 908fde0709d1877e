package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/auth/authtest"
	"github.com/prometheus/client_golang/prometheus"
)

const (
	tokAnalyst      = authtest.TokAnalyst
	tokHashed       = authtest.TokHashed
	tokNew          = authtest.TokNew
	testProxySecret = authtest.ProxySecret
)

var (
	sha256Hex  = authtest.SHA256Hex
	tokensYAML = authtest.TokensYAML
	bearer     = authtest.Bearer
	want401    = authtest.Want401
	scrape     = authtest.Scrape
	grepLines  = authtest.GrepLines
)

var writeFile = authtest.WriteFile

// syncBuffer is a log sink safe for the watcher goroutine and the test.
type syncBuffer = authtest.SyncBuffer

// authFixture is a shop server behind NewAuth with the given options; the
// logs of the auth layer and of the server go to logs.
type authFixture struct {
	*fixture
	auth *auth.Auth
	logs *syncBuffer
	reg  *prometheus.Registry
}

// newAuthFixture serves the fixture's models behind authentication by
// opts, logging (debug level and up) into the fixture's logs; mods change
// the server's configuration further (its models, for one).
func newAuthFixture(t *testing.T, opts auth.Options, mods ...func(*server.Config)) *authFixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := auth.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	f := newFixture(t, func(c *server.Config) {
		c.Auth, c.Logger, c.Registry = a, opts.Logger, reg
		for _, mod := range mods {
			mod(c)
		}
	})
	return &authFixture{fixture: f, auth: a, logs: logs, reg: reg}
}

// call sends a request with the given headers (a key may repeat by
// listing several values) and returns the response and its body.
func (f *authFixture) call(t *testing.T, method, path, body string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	return authtest.Call(t, f.ts.URL, method, path, body, hdr)
}

// eventuallyStatus polls until a request with hdr gets status.
func (f *authFixture) eventuallyStatus(t *testing.T, hdr http.Header, status int, what string) {
	t.Helper()
	authtest.EventuallyStatus(t, f.ts.URL, hdr, status, what)
}

func TestBearerTokens(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tokens.yaml"), tokensYAML())
	f := newAuthFixture(t, auth.Options{TokensFile: filepath.Join(dir, "tokens.yaml")})

	// Every API route refuses a request without credentials before looking
	// at the model or the body: an unknown model is 401, not 404.
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/v1/models", ""},
		{"GET", "/v1/models/shop", ""},
		{"GET", "/v1/models/nope", ""},
		{"POST", "/v1/models/shop/query", `{"metrics":["revenue"]}`},
		{"POST", "/v1/models/shop/sql", `{"metrics":["revenue"]}`},
		{"POST", "/v1/models/nope/sql", `{"metrics":["revenue"]}`},
	} {
		resp, body := f.call(t, rt.method, rt.path, rt.body, nil)
		want401(t, resp, body, `Bearer realm="ossie"`)
	}
	// Operational routes stay open.
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/openapi.json"} {
		if resp, body := f.call(t, "GET", path, "", nil); resp.StatusCode != 200 {
			t.Errorf("%s without credentials: %d %s", path, resp.StatusCode, body)
		}
	}

	for name, hdr := range map[string]http.Header{
		"unknown token":       bearer("not-a-token-of-this-server-000"),
		"hash instead of tok": bearer(sha256Hex(tokHashed)),
		"token with suffix":   bearer(tokAnalyst + "x"),
		"token prefix":        bearer(tokAnalyst[:len(tokAnalyst)-1]),
	} {
		resp, body := f.call(t, "GET", "/v1/models", "", hdr)
		want401(t, resp, body, `Bearer realm="ossie", error="invalid_token"`)
		if strings.Contains(string(body), "token-") {
			t.Errorf("%s: the problem echoes the token: %s", name, body)
		}
	}
	for name, hdr := range map[string]http.Header{
		"basic":            {"Authorization": {"Basic YWxpY2U6cHc="}},
		"no token":         {"Authorization": {"Bearer "}},
		"two tokens":       {"Authorization": {"Bearer " + tokAnalyst, "Bearer " + tokHashed}},
		"token with space": {"Authorization": {"Bearer " + tokAnalyst + " extra"}},
	} {
		resp, body := f.call(t, "GET", "/v1/models", "", hdr)
		if resp.StatusCode != 401 {
			t.Errorf("%s: %d", name, resp.StatusCode)
		}
		want401(t, resp, body, `Bearer realm="ossie", error="invalid_request"`)
	}

	// Both entries authenticate; the scheme is case-insensitive.
	for _, hdr := range []http.Header{bearer(tokAnalyst), bearer(tokHashed), {"Authorization": {"bearer " + tokHashed}}} {
		if resp, body := f.call(t, "GET", "/v1/models", "", hdr); resp.StatusCode != 200 {
			t.Errorf("valid token: %d %s", resp.StatusCode, body)
		}
	}
	resp, body := f.call(t, "POST", "/v1/models/nope/sql", `{}`, bearer(tokAnalyst))
	wantProblem(t, resp, body, http.StatusNotFound, "OSS5003")

	// The access log names the caller, never the credentials.
	logs := f.logs.String()
	if !strings.Contains(logs, `"caller":"alice"`) || !strings.Contains(logs, `"caller":"bi-tool"`) {
		t.Errorf("access log does not name the callers:\n%s", grepLines(logs, `"request"`))
	}
	metrics := scrape(t, f.ts.URL)
	for _, secret := range []string{tokAnalyst, tokHashed, sha256Hex(tokHashed)} {
		if strings.Contains(logs, secret) || strings.Contains(metrics, secret) {
			t.Errorf("logs or metrics contain a credential")
		}
	}
	if strings.Contains(metrics, "alice") {
		t.Error("a caller name is a metric label value")
	}
	for _, line := range []string{
		`ossie_server_auth_failures_total{reason="missing"} 6`,
		`ossie_server_auth_failures_total{reason="invalid_token"} 4`,
		`ossie_server_auth_failures_total{reason="bad_scheme"} 4`,
		`ossie_server_auth_tokens 2`,
		`ossie_server_auth_file_refused{file="tokens"} 0`,
		`ossie_server_auth_reloads_total{file="tokens",result="ok"} 1`,
	} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("metrics lack %s:\n%s", line, grepLines(metrics, "ossie_server_auth"))
		}
	}
}
