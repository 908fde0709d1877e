package operator_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestViewGrantsPerRole (issue 13 finding 2): with --view-grant the
// operator grants each governed role's engine login SELECT on exactly
// that role's views, on a real PostgreSQL with two real logins. Login A
// reads role A's view and is refused role B's, and the reverse; when a
// view moves to the other role, the first login's grant is revoked and
// the other's added; an unchanged model runs no grant DDL.
func TestViewGrantsPerRole(t *testing.T) {
	pg := pgtest.Shared(t)
	dsn := pg.NewDatabase(t)
	ctx := context.Background()
	eng, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	if err := eng.Exec(ctx, shopTables); err != nil {
		t.Fatal(err)
	}
	// Logins are cluster-wide: names unique to this test process.
	loginA, loginB := fmt.Sprintf("bi_analyst_%d", os.Getpid()), fmt.Sprintf("bi_partner_%d", os.Getpid())
	const password = "grant-test-password-0123456789"
	for _, l := range []string{loginA, loginB} {
		if err := pg.Exec(ctx, "postgres", "CREATE ROLE "+l+" LOGIN PASSWORD '"+password+"'"); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, operator.Options{ViewGrants: map[string][]string{"analyst": {loginA}, "partner": {loginB}}})
	counted := &grantCounter{Engine: eng}
	f.setEngine(counted)
	var spec v1alpha1.SemanticModelSpec
	if err := yaml.UnmarshalStrict([]byte(strings.Replace(shopViewsSpec, "roles: [{name: analyst}]", "roles: [{name: analyst}, {name: partner}]", 1)), &spec); err != nil {
		t.Fatal(err)
	}
	spec.Views[1].Role = "partner"
	f.create("shop", spec)
	f.mustReconcile("shop")
	wantCond(t, f.get("shop"), v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)

	read := func(login, view string) error {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(login, password)
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		return conn.QueryRow(ctx, "SELECT count(*) FROM ossie_views."+view).Scan(&n)
	}
	check := func(when string, want map[[2]string]bool) {
		t.Helper()
		for lv, ok := range want {
			err := read(lv[0], lv[1])
			var pe *pgconn.PgError
			switch {
			case ok && err != nil:
				t.Errorf("%s: %s cannot read %s: %v", when, lv[0], lv[1], err)
			case !ok && !(errors.As(err, &pe) && pe.Code == "42501"):
				t.Errorf("%s: %s reading %s: %v, want permission denied (42501)", when, lv[0], lv[1], err)
			}
		}
	}
	check("created", map[[2]string]bool{
		{loginA, "orders_by_region"}: true, {loginA, "orders_by_month"}: false,
		{loginB, "orders_by_month"}: true, {loginB, "orders_by_region"}: false,
	})

	// Unchanged: one catalog query per view, no grant DDL.
	grants := counted.grants.Load()
	f.mustReconcile("shop")
	if n := counted.grants.Load() - grants; n != 0 {
		t.Errorf("%d grant changes on an unchanged pass", n)
	}

	// The region view moves to the partner role: the analyst's grant goes.
	f.update("shop", func(s *v1alpha1.SemanticModelSpec) { s.Views[0].Role = "partner" })
	f.mustReconcile("shop")
	wantCond(t, f.get("shop"), v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied)
	check("role changed", map[[2]string]bool{
		{loginA, "orders_by_region"}: false, {loginB, "orders_by_region"}: true,
	})

	// A login the engine does not know is a view failure naming it.
	f2 := newFixture(t, operator.Options{ViewGrants: map[string][]string{"analyst": {"no_such_login_x"}}})
	f2.setEngine(eng)
	spec2 := shopSpec(t)
	spec2.Views = spec2.Views[:1]
	spec2.Views[0].Name = "orders_elsewhere"
	f2.create("shop2", spec2)
	f2.mustReconcile("shop2")
	if c := cond(t, f2.get("shop2"), v1alpha1.ConditionViewsReady); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "no_such_login_x") {
		t.Errorf("unknown login: %+v", c)
	}
}

// grantCounter counts the grant changes the operator makes.
type grantCounter struct {
	*postgres.Engine
	grants atomic.Int64
}

func (g *grantCounter) SetGrants(ctx context.Context, schema []string, name string, grant, revoke []string) error {
	g.grants.Add(1)
	return g.Engine.SetGrants(ctx, schema, name, grant, revoke)
}
