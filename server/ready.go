package server

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reasons for not being ready; safe to show (the engine's own error may
// carry connection details and is only logged).
var (
	errNotSynced = errors.New("the ConfigMap cache has not synced yet")
	errNoModels  = errors.New("no models loaded")
	errNoEngine  = errors.New("no engine configured")
)

// Ready reports nil when the model source is ready (local mode: at least
// one model loaded; Kubernetes mode: the Synced gate passes), every served
// model binds to the engine (no recorded drift, bindstate.go) and the
// engine answers a trivial query within 5 seconds.
func (s *Server) Ready(ctx context.Context) error {
	if s.cfg.Synced != nil && !s.cfg.Synced() {
		return errNotSynced
	}
	if s.cfg.Store == nil && len(s.store.snapshot().all) == 0 {
		return errNoModels
	}
	if s.cfg.Engine == nil {
		return errNoEngine
	}
	if s.store.snapshot().notBound() {
		return errNotBound
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.cfg.Engine.Query(ctx, "SELECT 1", 1); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// ReadyDetail is the reason of a Ready error that is safe to show a
// caller (GET /readyz): one of the reasons above, or "the engine does
// not answer" for an engine failure, whose own message may carry
// connection details and is only logged.
func ReadyDetail(err error) string {
	for _, safe := range []error{errNotSynced, errNoModels, errNoEngine, errNotBound} {
		if errors.Is(err, safe) {
			return safe.Error()
		}
	}
	return "the engine does not answer"
}

// Status returns every model name (namespace/name for a namespaced
// source) with the version and source serving it and the last load error
// of that source (GET /readyz's models).
func (s *Server) Status() map[string]ModelStatus { return s.store.Status() }
