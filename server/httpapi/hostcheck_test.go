package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLoopbackGuard reproduces issue 13 finding 7 on a server without
// authentication: a DNS-rebinding page's request (Host of the attacker's
// name) is 403 OSS5011, a cross-origin "simple" POST (text/plain or a
// form) is 415 OSS5012; loopback names with JSON bodies answer. With
// AnyHost (--no-auth on a public address) other names are accepted.
func TestLoopbackGuard(t *testing.T) {
	f := newFixture(t, nil)
	send := func(host, ctype, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", f.ts.URL+"/v1/models/shop/query", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const q = `{"metrics":["order_count"]}`
	for _, tc := range []struct {
		host, ctype string
		code        int
		want        string
	}{
		{"attacker.example.com", "application/json", 403, "OSS5011"},
		{"attacker.example.com:8080", "application/json", 403, "OSS5011"},
		{"127.0.0.1.nip.io", "application/json", 403, "OSS5011"},
		{"localhost:8080", "text/plain", 415, "OSS5012"},
		{"localhost:8080", "application/x-www-form-urlencoded", 415, "OSS5012"},
		{"localhost:8080", "", 415, "OSS5012"},
		{"localhost:8080", "application/json; charset=utf-8", 200, `"rows"`},
		{"127.0.0.1:8080", "application/json", 200, `"rows"`},
		{"[::1]:8080", "application/json", 200, `"rows"`},
	} {
		if code, body := send(tc.host, tc.ctype, q); code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("Host %s, %q: %d %s; want %d %s", tc.host, tc.ctype, code, body, tc.code, tc.want)
		}
	}
	open := newFixture(t, nil)
	h, err := New(open.srv, Options{AnyHost: true})
	if err != nil {
		t.Fatal(err)
	}
	open.ts = httptest.NewServer(h)
	t.Cleanup(open.ts.Close)
	f = open
	if code, body := send("ossie.example.com", "application/json", q); code != 200 {
		t.Errorf("AnyHost: %d %s", code, body)
	}
}

// localRequest is httptest.NewRequest as a loopback client sends it: Host
// localhost and, with a body, Content-Type application/json.
func localRequest(method, target string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	r.Host = "localhost"
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}
