package compiler

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

// TestGovernanceJSONRoundTrip: the operator hands spec.governance
// (ossie.Governance, decoded by the Kubernetes client) to ParseGovernance
// as JSON. A governance with every field set must come back unchanged, so
// a field added to ossie.Governance and not read by ParseGovernance fails
// here (allSet names the field left zero, or the comparison the one lost).
func TestGovernanceJSONRoundTrip(t *testing.T) {
	want := ossie.Governance{
		Attributes: []ossie.GovernanceAttribute{{Name: "region", Description: "sales region"}},
		Roles: []ossie.Role{{
			Name:        "regional",
			Description: "one region",
			Metrics:     &ossie.Access{Allow: []string{"revenue*"}, Deny: []string{"revenue_secret"}},
			Fields:      &ossie.Access{Allow: []string{}, Deny: []string{"customers.id"}},
			RowFilters:  []ossie.RowFilter{{Dataset: "customers", Expression: "region = {{ caller.region }}"}},
			Masks: []ossie.Mask{{Field: "customers.name", Mask: ossie.MaskPartial, Value: "x",
				KeepFirst: 1, KeepLast: 2, AllowAggregates: true}},
		}},
	}
	allSet(t, reflect.ValueOf(want), "governance")
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, probs := ParseGovernance(data)
	if len(probs) > 0 {
		t.Fatalf("problems: %v", probs)
	}
	if !reflect.DeepEqual(got.Governance, want) {
		t.Errorf("round trip changed the governance:\n got %+v\nwant %+v", got.Governance, want)
	}
}

// allSet fails for any zero field of v (structs, pointers and the first
// element of slices are walked).
func allSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			t.Errorf("%s is not set", path)
			return
		}
		allSet(t, v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			allSet(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		if v.IsNil() {
			t.Errorf("%s is not set", path)
			return
		}
		if v.Len() > 0 {
			allSet(t, v.Index(0), path+"[0]")
		}
	default:
		if v.IsZero() {
			t.Errorf("%s is not set", path)
		}
	}
}
