package compiler

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// OssieVendor is the vendor_name of the custom extensions this product
// reads (docs/authoring.md, "Ossie extensions"); the match ignores case.
// Extensions of every other vendor are kept and never read.
const OssieVendor = "OSSIE"

// ossieExtension is the data of an OSSIE custom extension. Each key is
// allowed only where it means something:
//   - timezone (semantic model, dataset, field): the IANA zone in which a
//     naive DateTime column stores its instants; the nearest declaration
//     (field, then dataset, then model) wins;
//   - via (metric): relationships the metric pins where a dimension could
//     be joined by several many-to-one paths;
//   - metric (metric): the metric's type parameters (metric_type.go,
//     docs/metrics.md), validated by checkMetricTypes;
//   - rollups (semantic model): the model's pre-aggregations (rollup.go,
//     docs/rollups.md), validated by checkRollups.
type ossieExtension struct {
	Timezone *string         `json:"timezone,omitempty"`
	Via      []string        `json:"via,omitempty"`
	Metric   json.RawMessage `json:"metric,omitempty"`
	Rollups  json.RawMessage `json:"rollups,omitempty"`
}

// readExtension decodes the OSSIE extension among exts (nil when there is
// none) and reports malformed data, a second OSSIE extension and keys not
// allowed at this place (allowed: "timezone", "timezone, rollups" on a
// model, or "via, metric" on a metric).
func (mc *modelCheck) readExtension(path string, exts []ossie.CustomExtension, allowed string) *ossieExtension {
	var out *ossieExtension
	for i, x := range exts {
		if !strings.EqualFold(x.VendorName, OssieVendor) {
			continue
		}
		xp := fmt.Sprintf("%s.custom_extensions[%d].data", path, i)
		if out != nil {
			mc.errorf(CodeBadExtension, xp, "a second %s custom extension; merge its keys into the first", OssieVendor)
			continue
		}
		// The data is JSON inside a scalar, which the document scan does
		// not see into: it is scanned as a request body is.
		if p := CheckBody([]byte(x.Data)); p != nil {
			mc.errorf(CodeDocumentTooComplex, xp, "%s extension data: %s", OssieVendor, p.Message)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(x.Data)))
		dec.DisallowUnknownFields()
		var e ossieExtension
		if err := dec.Decode(&e); err != nil {
			mc.errorf(CodeBadExtension, xp, "%s extension data must be a JSON object with %s: %v", OssieVendor, allowed, err)
			continue
		}
		if (e.Timezone != nil && allowed == metricExtKeys) || (e.Via != nil && allowed != metricExtKeys) || (e.Metric != nil && allowed != metricExtKeys) || (e.Rollups != nil && allowed != modelExtKeys) {
			mc.errorf(CodeBadExtension, xp, "%s extension here takes only %q", OssieVendor, allowed)
			continue
		}
		out = &e
	}
	return out
}

// zoneOf checks a declared stored time zone and returns it ("" when none
// or invalid).
func (mc *modelCheck) zoneOf(path func() string, exts []ossie.CustomExtension) string {
	if len(exts) == 0 { // the common case; paths are built only when needed
		return ""
	}
	return mc.zoneIn(path, mc.readExtension(path(), exts, "timezone"))
}

// zoneIn checks the stored time zone declared by e, if any.
func (mc *modelCheck) zoneIn(path func() string, e *ossieExtension) string {
	if e == nil || e.Timezone == nil {
		return ""
	}
	z := *e.Timezone
	if z == "" || CheckTimezone(z) != nil {
		mc.errorf(CodeBadExtension, path()+".custom_extensions", "timezone %q is not an IANA time zone name (e.g. \"Europe/Amsterdam\", \"UTC\")", z)
		return ""
	}
	return z
}

// checkExtensions reads the OSSIE extensions: stored time zones (resolved
// per field into fieldZones), metric `via` pins (into metricVia), metric
// types and the model's rollups (kept raw for checkMetricTypes and
// checkRollups).
func (mc *modelCheck) checkExtensions() {
	m := mc.m
	var modelExt *ossieExtension
	if len(m.CustomExtensions) > 0 {
		modelExt = mc.readExtension(mc.base, m.CustomExtensions, modelExtKeys)
	}
	modelZone := mc.zoneIn(func() string { return mc.base }, modelExt)
	if modelExt != nil && modelExt.Rollups != nil {
		mc.rollupRaw = metricTypeData{path: mc.base + ".custom_extensions[" + strconv.Itoa(ossieIndex(m.CustomExtensions)) + "].data.rollups", raw: modelExt.Rollups}
	}
	mc.fieldZones = make([][]string, len(m.Datasets))
	for d := range m.Datasets {
		ds := &m.Datasets[d]
		dsZone := cmp.Or(mc.zoneOf(func() string { return mc.datasetPath(d) }, ds.CustomExtensions), modelZone)
		mc.fieldZones[d] = make([]string, len(ds.Fields))
		for f := range ds.Fields {
			fl := &ds.Fields[f]
			own := mc.zoneOf(func() string { return mc.fieldPath(d, f) }, fl.CustomExtensions)
			switch {
			case own != "" && fl.Datatype == ossie.TypeDateTimeTz:
				mc.errorf(CodeBadExtension, mc.fieldPath(d, f)+".custom_extensions", "field %q is DateTimeTz: its values are instants already, so a stored time zone does not apply; declare it DateTime (a naive timestamp) or drop the timezone", ds.Name+"."+fl.Name)
			case own != "" && fl.Datatype != ossie.TypeDateTime && fl.Datatype != "":
				mc.errorf(CodeBadExtension, mc.fieldPath(d, f)+".custom_extensions", "field %q is %s: a stored time zone applies only to DateTime (naive timestamp) fields", ds.Name+"."+fl.Name, fl.Datatype)
			case fl.Datatype == ossie.TypeDateTime || (fl.Datatype == "" && own != ""):
				mc.fieldZones[d][f] = cmp.Or(own, dsZone)
			}
		}
	}
	mc.metricVia = make([][]string, len(m.Metrics))
	mc.metricTypeRaw = make([]metricTypeData, len(m.Metrics))
	for i := range m.Metrics {
		if len(m.Metrics[i].CustomExtensions) == 0 || !mc.metricExprs[i].ok {
			continue // no extension, or the metric is already reported
		}
		e := mc.readExtension(mc.metricPath(i), m.Metrics[i].CustomExtensions, metricExtKeys)
		if e != nil && e.Metric != nil {
			mc.metricTypeRaw[i] = metricTypeData{path: mc.metricPath(i) + ".custom_extensions[" + strconv.Itoa(ossieIndex(m.Metrics[i].CustomExtensions)) + "].data.metric", raw: e.Metric}
		}
		if e == nil || len(e.Via) == 0 {
			continue
		}
		mc.metricVia[i] = mc.checkVia(i, e.Via)
	}
}

// checkVia: every pinned relationship exists and lies on a candidate path
// of a choice the metric's datasets face; otherwise it pins nothing.
func (mc *modelCheck) checkVia(i int, via []string) []string {
	path := mc.metricPath(i) + ".custom_extensions"
	name := mc.m.Metrics[i].Name
	var rels []string
	for _, r := range mc.m.Relationships {
		rels = append(rels, r.Name)
	}
	reads := map[string]bool{}
	for _, d := range mc.metricExprs[i].datasets {
		reads[d] = true
	}
	var out []string
	for _, v := range via {
		ri := slices.Index(rels, v)
		if ri < 0 {
			mc.errorf(CodeBadExtension, path, "metric %q pins relationship %q, which does not exist%s", name, v, hint(v, rels))
			continue
		}
		onChoice := false
		for _, c := range mc.graph.choices {
			if !reads[mc.m.Datasets[c.from].Name] {
				continue
			}
			for _, p := range c.paths {
				onChoice = onChoice || slices.Contains(p, ri)
			}
		}
		if !onChoice {
			mc.errorf(CodeBadExtension, path, "metric %q pins relationship %q, but it is not one of several join paths from the datasets the metric reads (%s); it would choose nothing", name, v, strings.Join(mc.metricExprs[i].datasets, ", "))
			continue
		}
		out = append(out, v)
	}
	return out
}

// metricExtKeys and modelExtKeys are the keys an OSSIE extension of a
// metric, or of a semantic model, may hold.
const (
	metricExtKeys = "via, metric"
	modelExtKeys  = "timezone, rollups"
)

// ossieIndex is the index of the first OSSIE extension among exts.
func ossieIndex(exts []ossie.CustomExtension) int {
	for i, x := range exts {
		if strings.EqualFold(x.VendorName, OssieVendor) {
			return i
		}
	}
	return -1
}
