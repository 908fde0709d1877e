package operator_test

import (
	"encoding/json"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/operator"
)

const schemaModel = `
apiVersion: ossie.dev/v1alpha1
kind: SemanticModel
metadata: {name: shop}
spec:
  version: "0.2.0.dev0"
  semantic_model:
    - name: shop
      ai_context: {instructions: "Use revenue.", vendor_hint: {deep: [1, 2]}}
      datasets:
        - name: orders
          source: {kind: table, object: main.orders}
          ai_context: One row per order.
          fields:
            - name: amount
              expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}
      metrics:
        - name: revenue
          expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.amount)}]}
  views:
    - name: revenue_by_day
      role: analyst
      metrics: [revenue]
      dimensions: [{field: orders.amount}]
      filters: [{field: orders.amount, op: gt, values: [10, "x"]}]
  viewReclaimPolicy: retain
  governance:
    roles: [{name: analyst}]
`

// The CRD schema is structural: unknown keys anywhere outside the
// schemaless parts are refused, while ai_context and source keep any
// JSON (string or object, nested) exactly as written.
func TestCRDSchema(t *testing.T) {
	f := newFixture(t, operator.Options{})
	create := func(edit func(obj map[string]any)) error {
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(schemaModel), &obj); err != nil {
			t.Fatal(err)
		}
		edit(obj)
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(f.ns)
		return f.api.Create(f.ctx, u, client.FieldValidation("Strict"))
	}
	if err := create(func(map[string]any) {}); err != nil {
		t.Fatalf("a valid manifest is refused: %v", err)
	}
	sm := f.get("shop")
	model := sm.Spec.SemanticModel[0]
	if hint, _ := json.Marshal(model.AIContext.Extra["vendor_hint"]); string(hint) != `{"deep":[1,2]}` {
		t.Errorf("ai_context object not kept: %+v", model.AIContext)
	}
	if ai := model.Datasets[0].AIContext; ai == nil || !ai.IsText || ai.Text != "One row per order." {
		t.Errorf("ai_context string not kept: %+v", ai)
	}
	if src := model.Datasets[0].Source; src.Form != ossie.SourceFormTable || src.Object != "main.orders" {
		t.Errorf("source object not kept: %+v", src)
	}
	if len(sm.Spec.Views) != 1 || len(sm.Spec.Views[0].Filters[0].Values) != 2 || sm.Spec.ViewReclaimPolicy != v1alpha1.ViewReclaimRetain || sm.Spec.Governance.Roles[0].Name != "analyst" {
		t.Errorf("views/governance not kept: %+v %+v", sm.Spec.Views, sm.Spec.Governance)
	}

	for name, edit := range map[string]func(obj map[string]any){
		"unknown key in a dataset": func(obj map[string]any) {
			ds := obj["spec"].(map[string]any)["semantic_model"].([]any)[0].(map[string]any)["datasets"].([]any)[0].(map[string]any)
			ds["primary_keys"] = []any{"id"}
		},
		"unknown key in spec": func(obj map[string]any) { obj["spec"].(map[string]any)["semantic_models"] = []any{} },
		"number for a name": func(obj map[string]any) {
			obj["spec"].(map[string]any)["semantic_model"].([]any)[0].(map[string]any)["name"] = 2024
		},
		"missing version": func(obj map[string]any) { delete(obj["spec"].(map[string]any), "version") },
		"view without a role": func(obj map[string]any) {
			delete(obj["spec"].(map[string]any)["views"].([]any)[0].(map[string]any), "role")
		},
		"view in the old nested shape": func(obj map[string]any) {
			v := obj["spec"].(map[string]any)["views"].([]any)[0].(map[string]any)
			v["query"] = map[string]any{"metrics": v["metrics"]}
		},
		"two views with one name": func(obj map[string]any) {
			spec := obj["spec"].(map[string]any)
			spec["views"] = append(spec["views"].([]any), spec["views"].([]any)[0])
		},
		"unknown reclaim policy": func(obj map[string]any) { obj["spec"].(map[string]any)["viewReclaimPolicy"] = "Orphan" },
	} {
		err := create(func(obj map[string]any) {
			obj["metadata"].(map[string]any)["name"] = "bad"
			edit(obj)
		})
		if err == nil || (!apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err)) {
			t.Errorf("%s: accepted (%v)", name, err)
			_ = f.api.Delete(f.ctx, &v1alpha1.SemanticModel{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: f.ns}})
		}
	}
}
