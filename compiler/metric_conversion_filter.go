package compiler

import (
	"github.com/ossie-dev/ossie/compiler/expr"
)

// checkToFilter validates a conversion's to_filter (docs/metrics.md,
// "Conversion metrics"): an Ossie SQL condition under the bounded grammar,
// with no aggregate, reading only fields of the event-B dataset toDS
// (written `toDS.field`, or bare). Problems are OSS2045 at path.
func (mc *modelCheck) checkToFilter(path, toDS, text string) {
	node, errs := expr.Parse(text)
	if len(errs) > 0 {
		for _, e := range errs {
			mc.errorf(CodeMetricTypeConversion, path, "to_filter %q: %s (at offset %d)", text, e.Message, e.Offset)
		}
		return
	}
	if node == nil {
		mc.errorf(CodeMetricTypeConversion, path, "to_filter is empty")
		return
	}
	if expr.IsAggregate(node) {
		mc.errorf(CodeMetricTypeConversion, path, "to_filter %q: a condition on each row of %s, not an aggregate", text, toDS)
		return
	}
	d, ok := mc.datasets.find(toDS, false)
	if !ok {
		return // to_entity's own problem says so
	}
	for _, r := range expr.Refs(node) {
		if r.Qualifier != "" && r.Qualifier != toDS {
			mc.errorf(CodeMetricTypeConversion, path, "to_filter %q: %s.%s is not a field of %s, the dataset of event B", text, r.Qualifier, r.Name, toDS)
			continue
		}
		if _, ok := mc.fields[d].exact[r.Name]; !ok {
			mc.errorf(CodeMetricTypeConversion, path, "to_filter %q: dataset %s has no field %s", text, toDS, r.Name)
		}
	}
}
