package operator_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/operator"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// flightsTables are the columns the flights example reads, enough for the
// drift check (it reads no rows).
const flightsTables = `CREATE TABLE flights (date TIMESTAMP, delay INTEGER, distance INTEGER, origin VARCHAR, destination VARCHAR);
CREATE TABLE airports (iata VARCHAR, name VARCHAR, city VARCHAR, state VARCHAR, latitude DOUBLE PRECISION, longitude DOUBLE PRECISION)`

// A PostgreSQL role without SELECT on a table the model reads is drift
// with its own reason, PermissionDenied, not EngineUnavailable (a retry
// cannot fix a missing grant) and not Drift (nothing is missing); the
// grant recovers without a change to the resource.
func TestPermissionDeniedOnPostgresIsItsOwnDrift(t *testing.T) {
	f := newFixture(t, operator.Options{})
	srv := pgtest.Shared(t)
	dsn := srv.NewDatabase(t)
	ctx := context.Background()
	admin, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	role := "ossie_op_" + strings.ToLower(strings.ReplaceAll(f.ns, "-", "_"))
	if err := admin.Exec(ctx, flightsTables+`; CREATE ROLE "`+role+`" LOGIN PASSWORD 'op-reader'; GRANT SELECT ON flights TO "`+role+`"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`) })
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(role, "op-reader")
	reader, err := postgres.Open(ctx, postgres.Config{DSN: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	f.setEngine(reader)

	f.create("flights", flightsSpec(t))
	res, err := f.reconcile("flights")
	if err != nil {
		t.Fatalf("a missing grant is not an outage to retry: %v", err)
	}
	if res.RequeueAfter != operator.DefaultDriftRecheck {
		t.Errorf("requeue after %s, want the drift recheck %s", res.RequeueAfter, operator.DefaultDriftRecheck)
	}
	sm := f.get("flights")
	d := wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonPermissionDenied)
	if !strings.Contains(d.Message, "airports") || !strings.Contains(d.Message, "42501") || strings.Contains(d.Message, "flights (") {
		t.Errorf("message should name airports (only) and SQLSTATE 42501: %s", d.Message)
	}
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked)
	if f.configMap("flights") != nil {
		t.Error("published although the engine cannot read a table")
	}
	if seen := f.eventReasons("flights", operator.EventDriftDetected); !contains(seen, operator.EventDriftDetected) {
		t.Errorf("events %v, want DriftDetected", seen)
	}

	if err := admin.Exec(ctx, `GRANT SELECT ON airports TO "`+role+`"`); err != nil {
		t.Fatal(err)
	}
	f.mustReconcile("flights")
	sm = f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
}

// The same on a real Trino: the engine runs as trinoserver.ReaderUser,
// whose file-based access control allows only memory.governed; flights
// is there, airports in a schema of its own, so Trino refuses airports
// with PERMISSION_DENIED.
func TestPermissionDeniedOnTrinoIsItsOwnDrift(t *testing.T) {
	f := newFixture(t, operator.Options{})
	srv := trinoserver.Shared(t)
	srv.Schema(t, trinoserver.ReaderSchema)
	private := srv.NewSchema(t, "private")
	ctx := context.Background()
	if err := srv.Exec(ctx,
		"CREATE TABLE memory."+trinoserver.ReaderSchema+".flights (date TIMESTAMP(6), delay INTEGER, distance INTEGER, origin VARCHAR, destination VARCHAR)",
		"CREATE TABLE memory."+private+".airports (iata VARCHAR, name VARCHAR, city VARCHAR, state VARCHAR, latitude DOUBLE, longitude DOUBLE)",
	); err != nil {
		t.Fatal(err)
	}
	tr, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.ReaderUser, "memory", trinoserver.ReaderSchema), RetryTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	f.setEngine(tr)

	spec := flightsSpec(t)
	for i, d := range spec.SemanticModel[0].Datasets {
		if d.Source.Object == "airports" {
			spec.SemanticModel[0].Datasets[i].Source.Object = private + ".airports"
		}
	}
	f.create("flights", spec)
	if _, err := f.reconcile("flights"); err != nil {
		t.Fatalf("a refused table is not an outage to retry: %v", err)
	}
	sm := f.get("flights")
	d := wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonPermissionDenied)
	if !strings.Contains(d.Message, "airports") || !strings.Contains(d.Message, "PERMISSION_DENIED") || strings.Contains(d.Message, "flights (") {
		t.Errorf("message should name airports (only) and PERMISSION_DENIED: %s", d.Message)
	}
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked)
	if f.configMap("flights") != nil {
		t.Error("published although the engine cannot read a table")
	}
}
