package ossiectl

import (
	"fmt"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// flagDependents marks the metrics of nm that reach, directly or through
// other derived metrics, a metric whose expression changed: their numbers
// change too, so the change is breaking even though their own expression
// is the same ("avg_order_value = revenue / order_count" when revenue
// changes). An existing change entry of such a metric becomes breaking;
// otherwise an entry is added. changes are diffModel's for this model.
func flagDependents(model string, nm *ossie.SemanticModel, changes []change) []change {
	changed := map[string]string{} // metric -> the changed metric it goes through
	for _, c := range changes {
		if c.Object == "metric" && c.Kind == "changed" && c.Reason == reasonMetricChanged {
			changed[c.Name] = c.Name
		}
	}
	if len(changed) == 0 {
		return changes
	}
	metrics := map[string]bool{}
	for _, m := range nm.Metrics {
		metrics[m.Name] = true
	}
	deps := map[string][]string{} // metric -> metrics it names
	for _, m := range nm.Metrics {
		e, ok := m.Expression.Portable()
		if !ok {
			continue
		}
		n, errs := expr.Parse(e.Expression)
		if len(errs) > 0 {
			continue
		}
		for _, r := range expr.Refs(n) {
			if r.Qualifier == "" && metrics[r.Name] && r.Name != m.Name {
				deps[m.Name] = append(deps[m.Name], r.Name)
			}
		}
	}
	var order []string // newly affected metrics, in the order found
	for grew := true; grew; {
		grew = false
		for _, m := range nm.Metrics {
			if _, done := changed[m.Name]; done {
				continue
			}
			for _, d := range deps[m.Name] {
				if via, ok := changed[d]; ok {
					changed[m.Name] = via
					order = append(order, m.Name)
					grew = true
					break
				}
			}
		}
	}
	for _, name := range order {
		reason := fmt.Sprintf("changed through dependency %s: the same query returns different numbers", changed[name])
		found := false
		for i := range changes {
			c := &changes[i]
			if c.Object == "metric" && c.Name == name && (c.Kind == "changed" || c.Kind == "renamed") {
				c.Breaking, found = true, true
				if c.Reason == "" {
					c.Reason = reason
				} else {
					c.Reason += "; " + reason
				}
			}
		}
		if !found {
			changes = append(changes, change{Kind: "changed", Object: "metric", Model: model, Name: name,
				Detail: "depends on " + changed[name], Breaking: true, Reason: reason})
		}
	}
	return changes
}
