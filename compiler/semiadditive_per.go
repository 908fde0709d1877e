package compiler

import (
	"encoding/json"
	"strings"
)

// FieldList is a list of "dataset.field" names that the Ossie extension
// lets a model write as one string when it has one element (a
// semi-additive metric's `per`, docs/metrics.md). It is always written
// back as a JSON array.
type FieldList []string

// UnmarshalJSON reads a string or an array of strings (the schema has
// already checked which).
func (l *FieldList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = FieldList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// checkPer requires each `per` field of a semi-additive metric to be a
// field of the one dataset the metric aggregates (OSS2044, with a
// did-you-mean): the latest row is picked per entity of that dataset's
// rows, so the entity must be on them. The schema allows per with pick
// last or first only.
func (mc *modelCheck) checkPer(i int, t *MetricType) {
	if len(t.Per) == 0 {
		return
	}
	path := mc.metricPath(i) + ".custom_extensions"
	datasets := mc.metricExprs[i].datasets
	seen := map[string]bool{}
	for _, ref := range t.Per {
		ds, field, _ := strings.Cut(ref, ".")
		if len(datasets) != 1 || datasets[0] != ds {
			mc.errorf(CodeMetricTypeAlong, path, "per %s: a semi-additive metric picks per entity of the dataset it aggregates (%s); name a field of it%s", ref, strings.Join(datasets, ", "), hint(ref, mc.perCandidates(datasets)))
			continue
		}
		d, _ := mc.datasets.find(ds, false)
		if _, ok := mc.fields[d].exact[field]; !ok {
			mc.errorf(CodeMetricTypeAlong, path, "per %s: dataset %s has no field %s%s", ref, ds, field, hint(field, mc.fieldNames(d)))
			continue
		}
		if seen[ref] {
			mc.errorf(CodeMetricTypeAlong, path, "per %s: listed twice", ref)
		}
		seen[ref] = true
	}
}

// perCandidates lists "dataset.field" for every field of the one dataset
// a metric aggregates (none when it aggregates several), for did-you-mean.
func (mc *modelCheck) perCandidates(datasets []string) []string {
	if len(datasets) != 1 {
		return nil
	}
	d, ok := mc.datasets.find(datasets[0], false)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range mc.fieldNames(d) {
		out = append(out, datasets[0]+"."+f)
	}
	return out
}

// perNote is " picked per <fields>" for a semi-additive metric with per,
// for messages that name the metric's type; "" otherwise.
func perNote(t *MetricType) string {
	if len(t.Per) == 0 {
		return ""
	}
	return " picked per " + strings.Join(t.Per, ", ")
}
