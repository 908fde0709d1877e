package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine"
)

// TestPermissionDenied: a role without SELECT on a table gets
// engine.ErrPermissionDenied from Describe (the catalog alone would show
// the table as readable) and from Query (SQLSTATE 42501); a granted table
// still describes.
func TestPermissionDenied(t *testing.T) {
	admin, dsn := open(t)
	role := "reader_" + randSuffix(t, admin)
	mustExec(t, admin, `CREATE TABLE secret (id INTEGER, amount NUMERIC(10,2)); CREATE TABLE open_t (id INTEGER)`)
	mustExec(t, admin, `CREATE ROLE "`+role+`" LOGIN PASSWORD 'reader-pw'; GRANT SELECT ON open_t TO "`+role+`"`)
	t.Cleanup(func() {
		_ = admin.Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "reader-pw")
	reader := openDSN(t, u.String())
	ctx := context.Background()

	if _, err := reader.Describe(ctx, []string{"open_t"}); err != nil {
		t.Fatalf("granted table: %v", err)
	}
	_, err = reader.Describe(ctx, []string{"public", "secret"})
	if !errors.Is(err, engine.ErrPermissionDenied) || errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Describe without SELECT: %v, want ErrPermissionDenied only", err)
	}
	_, err = reader.Query(ctx, `SELECT id FROM secret`, 0)
	if !errors.Is(err, engine.ErrPermissionDenied) || errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Query without SELECT: %v, want ErrPermissionDenied", err)
	}
	var ee *engine.Error
	if !errors.As(err, &ee) || !containsAll(ee.Message, "permission denied", "42501") {
		t.Errorf("message %q should say permission denied and carry SQLSTATE 42501", err)
	}
}

// randSuffix asks the server for a unique suffix, so parallel packages
// sharing a cluster never collide on role names.
func randSuffix(t *testing.T, e interface {
	Query(context.Context, string, int) (*engine.Result, error)
}) string {
	t.Helper()
	res, err := e.Query(context.Background(), `SELECT md5(random()::text || clock_timestamp()::text)`, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows[0][0].(string)[:10]
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
