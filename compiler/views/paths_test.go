package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// TestViewAlongTwoPaths: a view field written dataset.field@relationship
// names its join path, so a view reads the calendar of case JA-01 by
// order day and by ship day; without a path it is refused as a query is
// (OSS4011), saying how a view names one.
func TestViewAlongTwoPaths(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "test", "conformance", "testdata", "JA-01", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.LoadGoverned(doc, []byte(`roles: [{name: analyst}]`), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	gov := &ossie.Governance{Roles: []ossie.Role{{Name: "analyst"}}}
	v := v1alpha1.View{Name: "both_months", Role: "analyst", Metrics: []string{"revenue"},
		Dimensions: []v1alpha1.ViewDimension{{Field: "calendar.month@orders_order_date"}, {Field: "calendar.month@orders_ship_date"}},
		Filters:    []v1alpha1.ViewFilter{{Field: "calendar.kind@orders_ship_date", Op: "is_not_null"}}}
	plans, probs := PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{v}, Governance: gov}, arts, dialect.Postgres)
	if probs.HasErrors() || len(plans) != 1 {
		t.Fatal(probs)
	}
	if got := strings.Join(plans[0].Columns, ","); got != "calendar.month@orders_order_date,calendar.month@orders_ship_date,revenue" {
		t.Errorf("columns %s", got)
	}
	if !strings.Contains(plans[0].SQL, `"calendar@orders_ship_date"."kind" IS NOT NULL`) {
		t.Errorf("the filter is not read along the ship date:\n%s", plans[0].SQL)
	}
	v.Dimensions = []v1alpha1.ViewDimension{{Field: "calendar.month"}}
	v.Filters = nil
	_, probs = PlanSpec(&v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{v}, Governance: gov}, arts, dialect.Postgres)
	if len(probs) != 1 || probs[0].Code != compiler.CodeAmbiguousJoin || probs[0].Path != "views[0].dimensions[0]" ||
		!strings.Contains(probs[0].Message, "calendar.month@<relationship> in ossiectl and views") {
		t.Errorf("want OSS4011 at views[0].dimensions[0] naming the view spelling, got %v", probs)
	}
}
