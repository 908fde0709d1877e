package operator_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/operator"
)

// Binding checks what the compiler could not: a primary key column that
// is not a field must exist in the table, and a field declared DateTimeTz
// must not read a naive TIMESTAMP column (flights.date is one). Both
// block publication as drift until the spec or the table is fixed.
func TestBindChecksKeyColumnsAndTimeZoneKind(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v1 := publishFlights(t, f)
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) {
		ds := &s.SemanticModel[0].Datasets[0]
		ds.PrimaryKey = []string{"flight_key"}
		ds.Fields[0].Datatype = "DateTimeTz"
	})
	if _, err := f.reconcile("flights"); err != nil {
		t.Fatal(err)
	}
	sm := f.get("flights")
	d := wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift)
	for _, want := range []string{`column "flight_key" does not exist in flights`, "field flights.departure_time is declared DateTimeTz"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("drift message lacks %q: %s", want, d.Message)
		}
	}
	if sm.Status.PublishedVersion != v1 {
		t.Errorf("published %s, want the last good %s", sm.Status.PublishedVersion, v1)
	}
	// The table gains the key column; the declared zone kind is put back.
	f.exec("ALTER TABLE flights ADD COLUMN flight_key INTEGER")
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) { s.SemanticModel[0].Datasets[0].Fields[0].Datatype = "DateTime" })
	f.mustReconcile("flights")
	sm = f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift)
	if sm.Status.PublishedVersion == v1 {
		t.Errorf("the fixed spec was not published")
	}
}
