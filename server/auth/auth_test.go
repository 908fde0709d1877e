package auth

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/server/auth/authtest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// authFixture serves Auth alone: GET /v1/models is an API route behind
// Require that answers 200 to any authenticated caller, and /metrics
// serves a registry holding only Auth. The auth layer logs to logs.
type authFixture struct {
	auth *Auth
	logs *authtest.SyncBuffer
	ts   *httptest.Server
}

func newAuthFixture(t *testing.T, opts Options) *authFixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logs := &authtest.SyncBuffer{}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(a)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", a.Require(func(w http.ResponseWriter, r *http.Request) {}))
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return &authFixture{auth: a, logs: logs, ts: ts}
}

func TestAnonymousRole(t *testing.T) {
	dir := t.TempDir()
	authtest.WriteFile(t, filepath.Join(dir, "tokens.yaml"), authtest.TokensYAML())
	f := newAuthFixture(t, Options{TokensFile: filepath.Join(dir, "tokens.yaml"), AnonymousRoles: []string{"public"}})
	if resp, body := authtest.Call(t, f.ts.URL, "GET", "/v1/models", "", nil); resp.StatusCode != 200 {
		t.Fatalf("anonymous: %d %s", resp.StatusCode, body)
	}
	// A bad token is not downgraded to anonymous.
	resp, body := authtest.Call(t, f.ts.URL, "GET", "/v1/models", "", authtest.Bearer("wrong-token-000000000000000"))
	authtest.Want401(t, resp, body, `Bearer realm="ossie", error="invalid_token"`)

	r, _ := http.NewRequest("GET", "/v1/models", nil)
	id, fail := f.auth.Authenticate(r)
	if fail != nil || id.Method != MethodAnonymous || strings.Join(id.Roles, ",") != "public" {
		t.Errorf("anonymous identity %+v %+v", id, fail)
	}
	r.Header.Set("Authorization", "Bearer "+authtest.TokAnalyst)
	if id, _ := f.auth.Authenticate(r); id == nil || id.Name != "alice" || id.Attributes["region"] != "CA" || id.Method != MethodToken {
		t.Errorf("token identity %+v", id)
	}
}

func TestNewAuthRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		authtest.WriteFile(t, p, content)
		return p
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		opts Options
		want []string
	}{
		"nothing":       {Options{}, []string{"set a tokens file"}},
		"missing file":  {Options{TokensFile: filepath.Join(dir, "none.yaml")}, []string{"no such file"}},
		"bad anon role": {Options{AnonymousRoles: []string{"a,b"}}, []string{"anonymous role"}},
		"short secret":  {Options{ProxySecretFile: write("short", "abc\n")}, []string{"shorter than 16"}},
		"unknown key":   {Options{TokensFile: write("k.yaml", "tokens:\n  - name: a\n    token: "+authtest.TokAnalyst+"\n    role: [x]\n")}, []string{`tokens[0] (a): unknown key "role"`}},
		"every unknown key": {Options{TokensFile: write("ks.yaml", "tokns: []\ntokens:\n  - nme: a\n    token: "+authtest.TokAnalyst+"\n    roles: [x]\n  - name: b\n    token: "+authtest.TokNew+"\n    role: [x]\n    atributes: {}\n")}, []string{
			`token file: unknown key "tokns"`,
			`tokens[0]: unknown key "nme"`,
			"tokens[0]: name is required",
			`tokens[1] (b): unknown key "atributes"`,
			`tokens[1] (b): unknown key "role"`,
			"tokens[1] (b): roles must list at least one role",
		}},
		"not yaml":      {Options{TokensFile: write("y.yaml", "tokens: [\n  name: "+authtest.TokAnalyst)}, []string{"yaml"}},
		"duplicate key": {Options{TokensFile: write("d.yaml", "tokens: []\ntokens: []\n")}, []string{"already set"}},
		"every mistake": {Options{TokensFile: write("all.yaml", `tokens:
  - token: `+authtest.TokAnalyst+`
    roles: [a]
  - name: short
    token: abc
    roles: [a]
  - name: both
    token: `+authtest.TokHashed+`
    token_sha256: `+authtest.SHA256Hex(authtest.TokHashed)+`
    roles: [a]
  - name: badhash
    token_sha256: 12ab
    roles: [a]
  - name: norole
    token: `+authtest.TokNew+`
  - name: norole
    token: `+authtest.TokAnalyst+`
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
		_, err := New(ctx, tc.opts)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
		for _, secret := range []string{authtest.TokAnalyst, authtest.TokHashed, authtest.TokNew, "abc\n"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: error shows a credential: %v", name, err)
			}
		}
	}
}

// TestTokenFileReload edits the file the way tools do (write a new file,
// rename it over the old one) and breaks it: a broken version keeps the
// last good tokens serving, is logged without its content and counted.
// The poll interval is an hour, so file-system events drive every reload.
func TestTokenFileReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.yaml")
	authtest.WriteFile(t, path, authtest.TokensYAML())
	f := newAuthFixture(t, Options{TokensFile: path, ReloadInterval: time.Hour})
	replace := func(content string) {
		tmp := filepath.Join(dir, ".tokens.tmp")
		authtest.WriteFile(t, tmp, content)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 200, "initial token")

	replace("tokens:\n  - name: rotated\n    token: " + authtest.TokNew + "\n    roles: [analyst]\n")
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokNew), 200, "rotated token")
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 401, "revoked token")

	broken := "tokens:\n  - name: broken\n    token: " + authtest.TokAnalyst + "\n    roles: [analyst]\n    rolez: [admin]\n"
	replace(broken)
	deadline := time.Now().Add(10 * time.Second)
	for counterValue(t, f.auth.metrics.reloads.WithLabelValues("tokens", "error")) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the broken file was not noticed within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Last good set in force: the rotated token works, the one in the
	// broken file does not.
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokNew), 200, "last good token after a broken file")
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 401, "token of the broken file")
	metrics := authtest.Scrape(t, f.ts.URL)
	if !strings.Contains(metrics, `ossie_server_auth_file_refused{file="tokens"} 1`) {
		t.Errorf("refused gauge not set:\n%s", authtest.GrepLines(metrics, "ossie_server_auth"))
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "refused a changed credentials file") || !strings.Contains(logs, `rolez`) {
		t.Errorf("the refusal is not logged with its reason:\n%s", logs)
	}
	if strings.Contains(logs, authtest.TokAnalyst) || strings.Contains(logs, authtest.TokNew) {
		t.Errorf("logs contain a token:\n%s", logs)
	}

	// Writing the same broken content again is not a new error.
	errsBefore := counterValue(t, f.auth.metrics.reloads.WithLabelValues("tokens", "error"))
	f.auth.tokens.reload()
	if got := counterValue(t, f.auth.metrics.reloads.WithLabelValues("tokens", "error")); got != errsBefore {
		t.Errorf("unchanged broken content counted again: %v -> %v", errsBefore, got)
	}

	replace(authtest.TokensYAML())
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 200, "fixed file")
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokNew), 401, "token removed by the fixed file")
	if m := authtest.Scrape(t, f.ts.URL); !strings.Contains(m, `ossie_server_auth_file_refused{file="tokens"} 0`) {
		t.Errorf("refused gauge not cleared:\n%s", authtest.GrepLines(m, "ossie_server_auth"))
	}
}

// TestSecretVolumeSwap rotates a token through the kubelet's atomic
// symlink swap: once driven by file-system events (hour-long poll), once
// by the poll alone (a reload call, what the ticker does).
func TestSecretVolumeSwap(t *testing.T) {
	vol := authtest.NewSecretVolume(t, map[string]string{"tokens.yaml": authtest.TokensYAML()})
	f := newAuthFixture(t, Options{TokensFile: vol.Path("tokens.yaml"), ReloadInterval: time.Hour})
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 200, "initial")
	vol.Update(map[string]string{"tokens.yaml": "tokens:\n  - name: rotated\n    token: " + authtest.TokNew + "\n    roles: [analyst]\n"})
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokNew), 200, "token after the Secret update")
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokAnalyst), 401, "old token after the Secret update")

	// A broken Secret update keeps the last good tokens.
	vol.Update(map[string]string{"tokens.yaml": "tokens: {"})
	deadline := time.Now().Add(10 * time.Second)
	for !f.auth.tokens.failed.Load() {
		if time.Now().After(deadline) {
			t.Fatal("broken Secret update not noticed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	authtest.EventuallyStatus(t, f.ts.URL, authtest.Bearer(authtest.TokNew), 200, "last good after a broken Secret update")

	// The poll path: a watcher-less reload sees through the symlinks too.
	vol2 := authtest.NewSecretVolume(t, map[string]string{"tokens.yaml": authtest.TokensYAML()})
	w, err := loadWatchedFile(vol2.Path("tokens.yaml"), "tokens", parseTokens, slog.New(slog.DiscardHandler), newAuthMetrics())
	if err != nil {
		t.Fatal(err)
	}
	if w.reload() {
		t.Error("reload without a change installed a new set")
	}
	vol2.Update(map[string]string{"tokens.yaml": "tokens:\n  - name: rotated\n    token: " + authtest.TokNew + "\n    roles: [analyst]\n"})
	if !w.reload() || w.get().lookup(authtest.TokNew) == nil || w.get().lookup(authtest.TokAnalyst) != nil {
		t.Error("poll reload did not follow the Secret swap")
	}
}

func TestTrustedProxy(t *testing.T) {
	vol := authtest.NewSecretVolume(t, map[string]string{"proxy-secret": authtest.ProxySecret + "\n", "tokens.yaml": authtest.TokensYAML()})
	f := newAuthFixture(t, Options{ProxySecretFile: vol.Path("proxy-secret"), TokensFile: vol.Path("tokens.yaml"), ReloadInterval: time.Hour})
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
	identity := func(hdr http.Header) (*Identity, *AuthError) {
		r, _ := http.NewRequest("GET", "/v1/models", nil)
		r.Header = hdr
		return f.auth.Authenticate(r)
	}

	id, fail := identity(proxied(authtest.ProxySecret, nil))
	if fail != nil || id.Method != MethodProxy || id.Name != "carol@example.com" || strings.Join(id.Roles, ",") != "analyst,viewer" ||
		len(id.Attributes) != 2 || id.Attributes["region"] != "CA" || id.Attributes["cost_center"] != "42" {
		t.Errorf("proxy identity %+v %+v", id, fail)
	}
	if resp, body := authtest.Call(t, f.ts.URL, "GET", "/v1/models", "", proxied(authtest.ProxySecret, nil)); resp.StatusCode != 200 {
		t.Errorf("proxied request: %d %s", resp.StatusCode, body)
	}
	// The proxy's identity wins over an Authorization header it forwards.
	if id, _ := identity(proxied(authtest.ProxySecret, authtest.Bearer(authtest.TokAnalyst))); id == nil || id.Method != MethodProxy {
		t.Errorf("proxy + authtest.Bearer: %+v", id)
	}

	// Without the secret the identity headers are ignored: 401, or the
	// token's identity when one is sent.
	resp, body := authtest.Call(t, f.ts.URL, "GET", "/v1/models", "", proxied("", nil))
	authtest.Want401(t, resp, body, `Bearer realm="ossie"`)
	if id, _ := identity(proxied("", authtest.Bearer(authtest.TokHashed))); id == nil || id.Name != "bi-tool" || strings.Join(id.Roles, ",") != "viewer,auditor" || len(id.Attributes) != 0 {
		t.Errorf("headers without secret changed the token identity: %+v", id)
	}
	for name, hdr := range map[string]http.Header{
		"wrong secret":       proxied("proxy-shared-secret-012345678", nil),
		"secret with suffix": proxied(authtest.ProxySecret+"x", nil),
		"two secrets":        proxied(authtest.ProxySecret, http.Header{"X-Ossie-Proxy-Secret": {"x", authtest.ProxySecret}}),
		"no role":            proxied(authtest.ProxySecret, http.Header{"X-Ossie-Role": {" , "}}),
		"two users":          proxied(authtest.ProxySecret, http.Header{"X-Ossie-User": {"a", "b"}}),
		"bad attribute name": proxied(authtest.ProxySecret, http.Header{"X-Ossie-Attr-A.B": {"x"}}),
		"attribute twice":    proxied(authtest.ProxySecret, http.Header{"X-Ossie-Attr-Region": {"CA", "NY"}}),
		// Two keys for one attribute: the proxy sets one, a client smuggles the other.
		"attribute by two keys": proxied(authtest.ProxySecret, http.Header{"X-Ossie-Attr-Cost-Center": {"CC1"}, "X-Ossie-Attr-Cost_center": {"CC9"}}),
	} {
		resp, body := authtest.Call(t, f.ts.URL, "GET", "/v1/models", "", hdr)
		authtest.Want401(t, resp, body, `Bearer realm="ossie"`)
		if strings.Contains(string(body), authtest.ProxySecret[:10]) {
			t.Errorf("%s: problem shows the secret: %s", name, body)
		}
	}

	// Rotating the secret through the Secret volume: the old one stops
	// working.
	const rotated = "another-proxy-secret-9876543210"
	vol.Update(map[string]string{"proxy-secret": rotated, "tokens.yaml": authtest.TokensYAML()})
	authtest.EventuallyStatus(t, f.ts.URL, proxied(rotated, nil), 200, "rotated proxy secret")
	authtest.EventuallyStatus(t, f.ts.URL, proxied(authtest.ProxySecret, nil), 401, "old proxy secret")
	if logs := f.logs.String(); strings.Contains(logs, authtest.ProxySecret) || strings.Contains(logs, rotated) {
		t.Errorf("logs contain the proxy secret:\n%s", logs)
	}
}

// TestProxyHeadersIgnoredWhenNotEnabled: without --proxy-secret-file the
// identity headers, with or without a "secret", change nothing.
func TestProxyHeadersIgnoredWhenNotEnabled(t *testing.T) {
	dir := t.TempDir()
	authtest.WriteFile(t, filepath.Join(dir, "tokens.yaml"), authtest.TokensYAML())
	f := newAuthFixture(t, Options{TokensFile: filepath.Join(dir, "tokens.yaml"), AnonymousRoles: []string{"public"}})
	hdr := http.Header{"X-Ossie-Proxy-Secret": {authtest.ProxySecret}, "X-Ossie-Role": {"admin"}, "X-Ossie-User": {"root"}, "X-Ossie-Attr-Region": {"*"}}
	r, _ := http.NewRequest("GET", "/v1/models", nil)
	r.Header = hdr
	if id, fail := f.auth.Authenticate(r); fail != nil || id.Method != MethodAnonymous || strings.Join(id.Roles, ",") != "public" || id.Attributes != nil {
		t.Errorf("identity %+v %+v", id, fail)
	}
	r.Header.Set("Authorization", "Bearer "+authtest.TokAnalyst)
	if id, _ := f.auth.Authenticate(r); id == nil || id.Name != "alice" || strings.Join(id.Roles, ",") != "analyst" || id.Attributes["region"] != "CA" {
		t.Errorf("identity %+v", id)
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
