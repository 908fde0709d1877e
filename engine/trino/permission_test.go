package trino_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// TestPermissionDenied: a table access control refuses is
// engine.ErrPermissionDenied from Describe (information_schema hides it,
// the probe read names the reason) and from Query; a missing table stays
// ErrNotFound, a readable one describes.
func TestPermissionDenied(t *testing.T) {
	s, e := start(t, 10)
	ctx := context.Background()
	if err := e.Exec(ctx, "CREATE TABLE secret (id BIGINT, amount DOUBLE)"); err != nil {
		t.Fatal(err)
	}
	if cols, err := e.Describe(ctx, []string{"secret"}); err != nil || len(cols) != 2 {
		t.Fatalf("before Deny: %v %v", cols, err)
	}
	s.Deny("secret")
	_, err := e.Describe(ctx, []string{"secret"})
	if !errors.Is(err, engine.ErrPermissionDenied) || errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Describe of a denied table: %v, want ErrPermissionDenied only", err)
	}
	if !strings.Contains(err.Error(), "PERMISSION_DENIED") {
		t.Errorf("message %q should name PERMISSION_DENIED", err)
	}
	if _, err := e.Query(ctx, `SELECT id FROM "memory"."main"."SECRET"`, 0); !errors.Is(err, engine.ErrPermissionDenied) {
		t.Fatalf("Query of a denied table: %v, want ErrPermissionDenied", err)
	}
	if _, err := e.Describe(ctx, []string{"absent"}); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Describe of a missing table: %v, want ErrNotFound", err)
	}
}
