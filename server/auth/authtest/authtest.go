// Package authtest holds what the tests of server/auth and of server share
// about credentials: the test tokens and token file, a log sink for the
// reload goroutines, a kubelet-style Secret volume, and HTTP helpers that
// send credentials and read the answer. Test code only.
package authtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test credentials. Long enough for the minimum token length (16 bytes);
// the hashed one is stored only as its SHA-256 in the token file.
const (
	TokAnalyst  = "analyst-token-0123456789abcdef"
	TokHashed   = "hashed-token-fedcba9876543210"
	TokNew      = "rotated-token-aaaaaaaaaaaaaaaa"
	ProxySecret = "proxy-shared-secret-0123456789"
)

// SHA256Hex is the token_sha256 form of s: 64 lower-case hex digits.
func SHA256Hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

// TokensYAML is a token file with two entries: alice (TokAnalyst, role
// analyst, attribute region CA) and bi-tool (TokHashed by hash, roles
// viewer and auditor).
func TokensYAML() string {
	return `tokens:
  - name: alice
    token: ` + TokAnalyst + `
    roles: [analyst]
    attributes: {region: CA}
  - name: bi-tool
    token_sha256: ` + SHA256Hex(TokHashed) + `
    roles: [viewer, auditor]
`
}

// WriteFile replaces path with content (mode 0600) or fails the test. It
// writes a file beside it and renames it over path, as editors and
// Kubernetes volume updates do, so a watcher polling meanwhile reads the
// old content or the new, never a truncated file (which a test waiting
// for the new content's outcome would take for the answer).
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// SyncBuffer is a log sink safe for the watcher goroutine and the test.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Bearer is an Authorization header carrying tok.
func Bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// Call sends a request to base+path with the given headers (a key may
// repeat by listing several values) and returns the response and its body.
func Call(t testing.TB, base, method, path, body string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
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

// EventuallyStatus polls GET base/v1/models with hdr until it gets
// status, failing the test after 10 s.
func EventuallyStatus(t testing.TB, base string, hdr http.Header, status int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := Call(t, base, "GET", "/v1/models", "", hdr)
		if resp.StatusCode == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %d after 10s: %s", what, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Scrape returns the text of base/metrics.
func Scrape(t testing.TB, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// GrepLines keeps the lines of s that contain substr.
func GrepLines(s, substr string) string {
	var out bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out.WriteString(l + "\n")
		}
	}
	return out.String()
}

// Want401 checks a 401 RFC 9457 problem with code OSS5005 (status,
// content type, status/code/title/type members) and its WWW-Authenticate
// challenge.
func Want401(t testing.TB, resp *http.Response, body []byte, challenge string) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, http.StatusUnauthorized, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q", ct)
	}
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body %s: %v", body, err)
	}
	if p.Status != http.StatusUnauthorized || p.Code != "OSS5005" || p.Title == "" || p.Type == "" {
		t.Fatalf("problem %+v, want status %d code %q", p, http.StatusUnauthorized, "OSS5005")
	}
	if got := resp.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("WWW-Authenticate %q, want %q", got, challenge)
	}
}

// SecretVolume lays out a directory the way the kubelet mounts a Secret:
// every key is a symlink through `..data`, which points at a timestamped
// directory; an update writes a new directory and renames a new `..data`
// symlink over the old one, then deletes the old directory. The watched
// file path itself never changes.
type SecretVolume struct {
	t   testing.TB
	dir string
	gen int
}

// NewSecretVolume mounts files (name → content) in a temporary directory.
func NewSecretVolume(t testing.TB, files map[string]string) *SecretVolume {
	v := &SecretVolume{t: t, dir: t.TempDir()}
	v.Update(files)
	for name := range files {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// Update swaps in a new generation holding files, as the kubelet does.
func (v *SecretVolume) Update(files map[string]string) {
	v.gen++
	old := filepath.Join(v.dir, "..gen"+string(rune('0'+v.gen-1)))
	ts := "..gen" + string(rune('0'+v.gen))
	if err := os.Mkdir(filepath.Join(v.dir, ts), 0o755); err != nil {
		v.t.Fatal(err)
	}
	for name, content := range files {
		WriteFile(v.t, filepath.Join(v.dir, ts, name), content)
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

// Path is the path of the key name as a reader of the volume sees it.
func (v *SecretVolume) Path(name string) string { return filepath.Join(v.dir, name) }
