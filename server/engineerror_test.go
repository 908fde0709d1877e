package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/auth/authtest"
)

// TestEngineOutOfMemory: a query past the engine's memory limit is a 503
// whose detail says so and names the flag, not "cannot be reached".
func TestEngineOutOfMemory(t *testing.T) {
	logs := &authtest.SyncBuffer{}
	s := &Server{cfg: Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))}}
	ctx := context.Background()
	oom := &engine.Error{Class: engine.ErrOutOfMemory, Message: "duckdb: Out of Memory Error: could not allocate block of size 256.0 KiB (1.5 MiB/2.0 MiB used)"}
	e := s.engineError(ctx, ctx, &plan.Query{}, oom)
	if e.Status != http.StatusServiceUnavailable || e.Code != compiler.CodeEngine || e.Detail != DetailOutOfMemory || !strings.Contains(e.Detail, "--engine-memory-limit") {
		t.Errorf("%d %s %q", e.Status, e.Code, e.Detail)
	}
	if !strings.Contains(logs.String(), "Out of Memory Error") {
		t.Errorf("log: %s", logs.String())
	}
}
