// Package servertest holds what the server's tests share. It runs a
// command that serves the ossie HTTP API (the server binary, `ossiectl
// serve`) in the background of a test: on a free loopback address, polled
// until it serves, called with or without a bearer token, and waited for
// when the test stops it. And it holds the shop fixture's tables, model
// versions and row helpers (shop.go) and the MCP client helpers (mcp.go)
// that the tests of the query core (package server), server/mcpapi and
// server/httpapi share; it imports nothing of the server but server/load,
// so the core's own tests can import it.
package servertest

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Timeouts of a start and of a stop; generous, as CI machines are shared.
const (
	readyTimeout = 30 * time.Second
	stopTimeout  = 40 * time.Second
)

// Command is a serving command running in the background.
type Command struct {
	// Addr is the host:port it listens on.
	Addr string

	done   chan int
	exited bool
	code   int
}

// Start runs serve in a goroutine on a loopback address that was free a
// moment ago; serve returns the command's exit code. The caller stops the
// command (cancelling its context or signalling it) and then calls Exit.
func Start(t testing.TB, serve func(addr string) int) *Command {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Command{Addr: ln.Addr().String(), done: make(chan int, 1)}
	ln.Close()
	go func() { c.done <- serve(c.Addr) }()
	return c
}

// WaitReady polls ready every 50ms until it returns true. It fails the
// test when the command exits first or after 30s.
func (c *Command) WaitReady(t testing.TB, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	for !ready() {
		select {
		case code := <-c.done:
			c.exited, c.code = true, code
			t.Fatalf("the command exited with %d before serving", code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving within %s", readyTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitServing waits until GET /healthz answers 200 (see WaitReady).
func (c *Command) WaitServing(t testing.TB) {
	t.Helper()
	c.WaitReady(t, func() bool {
		code, _ := c.Call("GET", "/healthz", "", "")
		return code == 200
	})
}

// Call sends method path with body to the command, with "Authorization:
// Bearer token" when token is non-empty, and returns the status and the
// response body; a transport error is status 0 with the error's text.
func (c *Command) Call(method, path, body, token string) (int, string) {
	hdr := http.Header{}
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	return c.CallWith(method, path, body, hdr)
}

// CallWith is Call with the request headers hdr (e.g. an authenticating
// proxy's identity headers) instead of a token.
func (c *Command) CallWith(method, path, body string, hdr http.Header) (int, string) {
	req, err := http.NewRequest(method, "http://"+c.Addr+path, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Exit waits up to 40s for the command to return (the caller has stopped
// it) and returns its exit code; it fails the test when it does not stop.
func (c *Command) Exit(t testing.TB) int {
	t.Helper()
	if c.exited {
		return c.code
	}
	select {
	case c.code = <-c.done:
		c.exited = true
		return c.code
	case <-time.After(stopTimeout):
		t.Fatal("the command did not stop")
		return -1
	}
}
