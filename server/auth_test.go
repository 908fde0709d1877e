package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/server/auth"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Test credentials. Long enough for MinTokenLength; the hashed one is
// stored only as its SHA-256 in the token file.
const (
	tokAnalyst      = "analyst-token-0123456789abcdef"
	tokHashed       = "hashed-token-fedcba9876543210"
	tokNew          = "rotated-token-aaaaaaaaaaaaaaaa"
	testProxySecret = "proxy-shared-secret-0123456789"
)

func sha256Hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

func tokensYAML() string {
	return `tokens:
  - name: alice
    token: ` + tokAnalyst + `
    roles: [analyst]
    attributes: {region: CA}
  - name: bi-tool
    token_sha256: ` + sha256Hex(tokHashed) + `
    roles: [viewer, auditor]
`
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a log sink safe for the watcher goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// authFixture is a shop server behind NewAuth with the given options; the
// logs of the auth layer and of the server go to logs.
type authFixture struct {
	*fixture
	auth *auth.Auth
	logs *syncBuffer
	reg  *prometheus.Registry
}

func newAuthFixture(t *testing.T, opts auth.Options) *authFixture {
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
	f := newFixture(t, func(c *Config) { c.Auth = a; c.Logger = opts.Logger; c.Registry = reg })
	return &authFixture{fixture: f, auth: a, logs: logs, reg: reg}
}

// call sends a request with the given headers (a key may repeat by
// listing several values) and returns the response and its body.
func (f *authFixture) call(t *testing.T, method, path, body string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

func want401(t *testing.T, resp *http.Response, body []byte, challenge string) {
	t.Helper()
	wantProblem(t, resp, body, http.StatusUnauthorized, "OSS5005")
	if got := resp.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("WWW-Authenticate %q, want %q", got, challenge)
	}
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

func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestAnonymousRole(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tokens.yaml"), tokensYAML())
	f := newAuthFixture(t, auth.Options{TokensFile: filepath.Join(dir, "tokens.yaml"), AnonymousRoles: []string{"public"}})
	if resp, body := f.call(t, "GET", "/v1/models", "", nil); resp.StatusCode != 200 {
		t.Fatalf("anonymous: %d %s", resp.StatusCode, body)
	}
	// A bad token is not downgraded to anonymous.
	resp, body := f.call(t, "GET", "/v1/models", "", bearer("wrong-token-000000000000000"))
	want401(t, resp, body, `Bearer realm="ossie", error="invalid_token"`)

	r, _ := http.NewRequest("GET", "/v1/models", nil)
	id, fail := f.auth.Authenticate(r)
	if fail != nil || id.Method != auth.MethodAnonymous || strings.Join(id.Roles, ",") != "public" {
		t.Errorf("anonymous identity %+v %+v", id, fail)
	}
	r.Header.Set("Authorization", "Bearer "+tokAnalyst)
	if id, _ := f.auth.Authenticate(r); id == nil || id.Name != "alice" || id.Attributes["region"] != "CA" || id.Method != auth.MethodToken {
		t.Errorf("token identity %+v", id)
	}
}

func TestNewAuthRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		return p
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		opts auth.Options
		want []string
	}{
		"nothing":       {auth.Options{}, []string{"set a tokens file"}},
		"missing file":  {auth.Options{TokensFile: filepath.Join(dir, "none.yaml")}, []string{"no such file"}},
		"bad anon role": {auth.Options{AnonymousRoles: []string{"a,b"}}, []string{"anonymous role"}},
		"short secret":  {auth.Options{ProxySecretFile: write("short", "abc\n")}, []string{"shorter than 16"}},
		"unknown key":   {auth.Options{TokensFile: write("k.yaml", "tokens:\n  - name: a\n    token: "+tokAnalyst+"\n    role: [x]\n")}, []string{`tokens[0] (a): unknown key "role"`}},
		"every unknown key": {auth.Options{TokensFile: write("ks.yaml", "tokns: []\ntokens:\n  - nme: a\n    token: "+tokAnalyst+"\n    roles: [x]\n  - name: b\n    token: "+tokNew+"\n    role: [x]\n    atributes: {}\n")}, []string{
			`token file: unknown key "tokns"`,
			`tokens[0]: unknown key "nme"`,
			"tokens[0]: name is required",
			`tokens[1] (b): unknown key "atributes"`,
			`tokens[1] (b): unknown key "role"`,
			"tokens[1] (b): roles must list at least one role",
		}},
		"not yaml":      {auth.Options{TokensFile: write("y.yaml", "tokens: [\n  name: "+tokAnalyst)}, []string{"yaml"}},
		"duplicate key": {auth.Options{TokensFile: write("d.yaml", "tokens: []\ntokens: []\n")}, []string{"already set"}},
		"every mistake": {auth.Options{TokensFile: write("all.yaml", `tokens:
  - token: `+tokAnalyst+`
    roles: [a]
  - name: short
    token: abc
    roles: [a]
  - name: both
    token: `+tokHashed+`
    token_sha256: `+sha256Hex(tokHashed)+`
    roles: [a]
  - name: badhash
    token_sha256: 12ab
    roles: [a]
  - name: norole
    token: `+tokNew+`
  - name: norole
    token: `+tokAnalyst+`
    roles: [" a"]
    attributes: {9region: x}
`)}, []string{
			"tokens[0]: name is required",
			"tokens[1] (short): token is shorter than 16 bytes",
			"tokens[2] (both): token and token_sha256 are exclusive",
			"tokens[3] (badhash): token_sha256 must be 64 hex digits",
			"tokens[4] (norole): roles must list at least one role",
			"tokens[5] (norole): name is already used by tokens[4]",
			"tokens[5] (norole): same token as tokens[0]",
			`tokens[5] (norole): role " a" must be non-empty`,
			`tokens[5] (norole): attribute "9region" must match`,
		}},
	} {
		_, err := auth.New(ctx, tc.opts)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
		for _, secret := range []string{tokAnalyst, tokHashed, tokNew, "abc\n"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: error shows a credential: %v", name, err)
			}
		}
	}
}

// eventuallyStatus polls until a request with hdr gets status.
func (f *authFixture) eventuallyStatus(t *testing.T, hdr http.Header, status int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := f.call(t, "GET", "/v1/models", "", hdr)
		if resp.StatusCode == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %d after 10s: %s", what, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTokenFileReload edits the file the way tools do (write a new file,
// rename it over the old one) and breaks it: a broken version keeps the
// last good tokens serving, is logged without its content and counted.
// The poll interval is an hour, so file-system events drive every reload.
func TestTokenFileReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.yaml")
	writeFile(t, path, tokensYAML())
	f := newAuthFixture(t, auth.Options{TokensFile: path, ReloadInterval: time.Hour})
	replace := func(content string) {
		tmp := filepath.Join(dir, ".tokens.tmp")
		writeFile(t, tmp, content)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	f.eventuallyStatus(t, bearer(tokAnalyst), 200, "initial token")

	replace("tokens:\n  - name: rotated\n    token: " + tokNew + "\n    roles: [analyst]\n")
	f.eventuallyStatus(t, bearer(tokNew), 200, "rotated token")
	f.eventuallyStatus(t, bearer(tokAnalyst), 401, "revoked token")

	broken := "tokens:\n  - name: broken\n    token: " + tokAnalyst + "\n    roles: [analyst]\n    rolez: [admin]\n"
	replace(broken)
	deadline := time.Now().Add(10 * time.Second)
	for counterValue(t, f.auth.Metrics.Reloads.WithLabelValues("tokens", "error")) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the broken file was not noticed within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Last good set in force: the rotated token works, the one in the
	// broken file does not.
	f.eventuallyStatus(t, bearer(tokNew), 200, "last good token after a broken file")
	f.eventuallyStatus(t, bearer(tokAnalyst), 401, "token of the broken file")
	metrics := scrape(t, f.ts.URL)
	if !strings.Contains(metrics, `ossie_server_auth_file_refused{file="tokens"} 1`) {
		t.Errorf("refused gauge not set:\n%s", grepLines(metrics, "ossie_server_auth"))
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "refused a changed credentials file") || !strings.Contains(logs, `rolez`) {
		t.Errorf("the refusal is not logged with its reason:\n%s", logs)
	}
	if strings.Contains(logs, tokAnalyst) || strings.Contains(logs, tokNew) {
		t.Errorf("logs contain a token:\n%s", logs)
	}

	// Writing the same broken content again is not a new error.
	errsBefore := counterValue(t, f.auth.Metrics.Reloads.WithLabelValues("tokens", "error"))
	f.auth.Tokens.Reload()
	if got := counterValue(t, f.auth.Metrics.Reloads.WithLabelValues("tokens", "error")); got != errsBefore {
		t.Errorf("unchanged broken content counted again: %v -> %v", errsBefore, got)
	}

	replace(tokensYAML())
	f.eventuallyStatus(t, bearer(tokAnalyst), 200, "fixed file")
	f.eventuallyStatus(t, bearer(tokNew), 401, "token removed by the fixed file")
	if m := scrape(t, f.ts.URL); !strings.Contains(m, `ossie_server_auth_file_refused{file="tokens"} 0`) {
		t.Errorf("refused gauge not cleared:\n%s", grepLines(m, "ossie_server_auth"))
	}
}

// secretVolume lays out a directory the way the kubelet mounts a Secret:
// every key is a symlink through `..data`, which points at a timestamped
// directory; an update writes a new directory and renames a new `..data`
// symlink over the old one, then deletes the old directory. The watched
// file path itself never changes.
type secretVolume struct {
	t   *testing.T
	dir string
	gen int
}

func newSecretVolume(t *testing.T, files map[string]string) *secretVolume {
	v := &secretVolume{t: t, dir: t.TempDir()}
	v.update(files)
	for name := range files {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *secretVolume) update(files map[string]string) {
	v.gen++
	old := filepath.Join(v.dir, "..gen"+string(rune('0'+v.gen-1)))
	ts := "..gen" + string(rune('0'+v.gen))
	if err := os.Mkdir(filepath.Join(v.dir, ts), 0o755); err != nil {
		v.t.Fatal(err)
	}
	for name, content := range files {
		writeFile(v.t, filepath.Join(v.dir, ts, name), content)
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(ts, tmp); err != nil {
		v.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		v.t.Fatal(err)
	}
	_ = os.RemoveAll(old)
}

func (v *secretVolume) path(name string) string { return filepath.Join(v.dir, name) }

// TestSecretVolumeSwap rotates a token through the kubelet's atomic
// symlink swap: once driven by file-system events (hour-long poll), once
// by the poll alone (a reload call, what the ticker does).
func TestSecretVolumeSwap(t *testing.T) {
	vol := newSecretVolume(t, map[string]string{"tokens.yaml": tokensYAML()})
	f := newAuthFixture(t, auth.Options{TokensFile: vol.path("tokens.yaml"), ReloadInterval: time.Hour})
	f.eventuallyStatus(t, bearer(tokAnalyst), 200, "initial")
	vol.update(map[string]string{"tokens.yaml": "tokens:\n  - name: rotated\n    token: " + tokNew + "\n    roles: [analyst]\n"})
	f.eventuallyStatus(t, bearer(tokNew), 200, "token after the Secret update")
	f.eventuallyStatus(t, bearer(tokAnalyst), 401, "old token after the Secret update")

	// A broken Secret update keeps the last good tokens.
	vol.update(map[string]string{"tokens.yaml": "tokens: {"})
	deadline := time.Now().Add(10 * time.Second)
	for !f.auth.Tokens.Failed.Load() {
		if time.Now().After(deadline) {
			t.Fatal("broken Secret update not noticed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.eventuallyStatus(t, bearer(tokNew), 200, "last good after a broken Secret update")

	// The poll path: a watcher-less reload sees through the symlinks too.
	vol2 := newSecretVolume(t, map[string]string{"tokens.yaml": tokensYAML()})
	w, err := auth.LoadWatchedFile(vol2.path("tokens.yaml"), "tokens", auth.ParseTokens, slog.New(slog.DiscardHandler), auth.NewAuthMetrics())
	if err != nil {
		t.Fatal(err)
	}
	if w.Reload() {
		t.Error("reload without a change installed a new set")
	}
	vol2.update(map[string]string{"tokens.yaml": "tokens:\n  - name: rotated\n    token: " + tokNew + "\n    roles: [analyst]\n"})
	if !w.Reload() || w.Get().Lookup(tokNew) == nil || w.Get().Lookup(tokAnalyst) != nil {
		t.Error("poll reload did not follow the Secret swap")
	}
}

func TestTrustedProxy(t *testing.T) {
	vol := newSecretVolume(t, map[string]string{"proxy-secret": testProxySecret + "\n", "tokens.yaml": tokensYAML()})
	f := newAuthFixture(t, auth.Options{ProxySecretFile: vol.path("proxy-secret"), TokensFile: vol.path("tokens.yaml"), ReloadInterval: time.Hour})
	proxied := func(secret string, extra http.Header) http.Header {
		h := http.Header{"X-Ossie-Role": {"analyst, viewer"}, "X-Ossie-User": {"carol@example.com"},
			"X-Ossie-Attr-Region": {"CA"}, "X-Ossie-Attr-Cost-Center": {"42"}}
		if secret != "" {
			h.Set("X-Ossie-Proxy-Secret", secret)
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	identity := func(hdr http.Header) (*auth.Identity, *auth.AuthError) {
		r, _ := http.NewRequest("GET", "/v1/models", nil)
		r.Header = hdr
		return f.auth.Authenticate(r)
	}

	id, fail := identity(proxied(testProxySecret, nil))
	if fail != nil || id.Method != auth.MethodProxy || id.Name != "carol@example.com" || strings.Join(id.Roles, ",") != "analyst,viewer" ||
		len(id.Attributes) != 2 || id.Attributes["region"] != "CA" || id.Attributes["cost_center"] != "42" {
		t.Errorf("proxy identity %+v %+v", id, fail)
	}
	if resp, body := f.call(t, "GET", "/v1/models", "", proxied(testProxySecret, nil)); resp.StatusCode != 200 {
		t.Errorf("proxied request: %d %s", resp.StatusCode, body)
	}
	// The proxy's identity wins over an Authorization header it forwards.
	if id, _ := identity(proxied(testProxySecret, bearer(tokAnalyst))); id == nil || id.Method != auth.MethodProxy {
		t.Errorf("proxy + bearer: %+v", id)
	}

	// Without the secret the identity headers are ignored: 401, or the
	// token's identity when one is sent.
	resp, body := f.call(t, "GET", "/v1/models", "", proxied("", nil))
	want401(t, resp, body, `Bearer realm="ossie"`)
	if id, _ := identity(proxied("", bearer(tokHashed))); id == nil || id.Name != "bi-tool" || strings.Join(id.Roles, ",") != "viewer,auditor" || len(id.Attributes) != 0 {
		t.Errorf("headers without secret changed the token identity: %+v", id)
	}
	for name, hdr := range map[string]http.Header{
		"wrong secret":       proxied("proxy-shared-secret-012345678", nil),
		"secret with suffix": proxied(testProxySecret+"x", nil),
		"two secrets":        proxied(testProxySecret, http.Header{"X-Ossie-Proxy-Secret": {"x", testProxySecret}}),
		"no role":            proxied(testProxySecret, http.Header{"X-Ossie-Role": {" , "}}),
		"two users":          proxied(testProxySecret, http.Header{"X-Ossie-User": {"a", "b"}}),
		"bad attribute name": proxied(testProxySecret, http.Header{"X-Ossie-Attr-A.B": {"x"}}),
		"attribute twice":    proxied(testProxySecret, http.Header{"X-Ossie-Attr-Region": {"CA", "NY"}}),
		// Two keys for one attribute: the proxy sets one, a client smuggles the other.
		"attribute by two keys": proxied(testProxySecret, http.Header{"X-Ossie-Attr-Cost-Center": {"CC1"}, "X-Ossie-Attr-Cost_center": {"CC9"}}),
	} {
		resp, body := f.call(t, "GET", "/v1/models", "", hdr)
		want401(t, resp, body, `Bearer realm="ossie"`)
		if strings.Contains(string(body), testProxySecret[:10]) {
			t.Errorf("%s: problem shows the secret: %s", name, body)
		}
	}

	// Rotating the secret through the Secret volume: the old one stops
	// working.
	const rotated = "another-proxy-secret-9876543210"
	vol.update(map[string]string{"proxy-secret": rotated, "tokens.yaml": tokensYAML()})
	f.eventuallyStatus(t, proxied(rotated, nil), 200, "rotated proxy secret")
	f.eventuallyStatus(t, proxied(testProxySecret, nil), 401, "old proxy secret")
	if logs := f.logs.String(); strings.Contains(logs, testProxySecret) || strings.Contains(logs, rotated) {
		t.Errorf("logs contain the proxy secret:\n%s", logs)
	}
}

// TestProxyHeadersIgnoredWhenNotEnabled: without --proxy-secret-file the
// identity headers, with or without a "secret", change nothing.
func TestProxyHeadersIgnoredWhenNotEnabled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tokens.yaml"), tokensYAML())
	f := newAuthFixture(t, auth.Options{TokensFile: filepath.Join(dir, "tokens.yaml"), AnonymousRoles: []string{"public"}})
	hdr := http.Header{"X-Ossie-Proxy-Secret": {testProxySecret}, "X-Ossie-Role": {"admin"}, "X-Ossie-User": {"root"}, "X-Ossie-Attr-Region": {"*"}}
	r, _ := http.NewRequest("GET", "/v1/models", nil)
	r.Header = hdr
	if id, fail := f.auth.Authenticate(r); fail != nil || id.Method != auth.MethodAnonymous || strings.Join(id.Roles, ",") != "public" || id.Attributes != nil {
		t.Errorf("identity %+v %+v", id, fail)
	}
	r.Header.Set("Authorization", "Bearer "+tokAnalyst)
	if id, _ := f.auth.Authenticate(r); id == nil || id.Name != "alice" || strings.Join(id.Roles, ",") != "analyst" || id.Attributes["region"] != "CA" {
		t.Errorf("identity %+v", id)
	}
}

func TestCheckExposure(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:0": true, "127.9.9.9:1": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.1:80": false, "example.com:80": false, "bad": false,
	} {
		if err := auth.CheckExposure(addr); (err == nil) != ok {
			t.Errorf("CheckExposure(%q) = %v", addr, err)
		}
	}
	var f auth.Flags
	if err := f.Check(":8080"); err == nil || !strings.Contains(err.Error(), "--no-auth") {
		t.Errorf("no auth on :8080: %v", err)
	}
	f.NoAuth = true
	if err := f.Check(":8080"); err != nil {
		t.Errorf("--no-auth: %v", err)
	}
	f.AnonymousRoles = []string{"x"}
	if err := f.Check("127.0.0.1:1"); err == nil {
		t.Error("--no-auth with --anonymous-role accepted")
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
