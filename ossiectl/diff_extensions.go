package ossiectl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Reasons an Ossie extension change breaks consumers.
const (
	reasonZoneChanged = "timestamps are read in another zone, so days, hours and date filters group and select other rows"
	reasonTypeChanged = "the metric is computed differently, so the same query returns different numbers"
)

// extensionChanges compares two objects' custom_extensions: each key of
// the OSSIE vendor's data (docs/authoring.md, "Ossie extensions") whose
// value changed is one detail, e.g. `timezone "UTC" -> "Europe/Amsterdam"`.
// A change is breaking unless its key only changes how answers are found
// (rollups); other vendors' extensions, which Ossie does not read, are one
// non-breaking detail. reason is the first breaking key's.
func extensionChanges(old, new []ossie.CustomExtension) (details []string, breaking bool, reason string) {
	o, n := ossieKeys(old), ossieKeys(new)
	keys := make([]string, 0, len(o)+len(n))
	for k := range o {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if o[k] == n[k] {
			continue
		}
		details = append(details, fmt.Sprintf("%s %s -> %s", k, shorten(orNone(o[k])), shorten(orNone(n[k]))))
		if k == "rollups" || breaking {
			continue
		}
		breaking, reason = true, reasonTypeChanged
		if k == "timezone" {
			reason = reasonZoneChanged
		}
	}
	if canonical(otherVendors(old)) != canonical(otherVendors(new)) {
		details = append(details, "custom_extensions of other vendors (not read by Ossie)")
	}
	return details, breaking, reason
}

// ossieKeys maps each key of the OSSIE vendor's data to its value as
// canonical JSON; data that is not a JSON object counts as one key "data".
func ossieKeys(exts []ossie.CustomExtension) map[string]string {
	out := map[string]string{}
	for _, e := range exts {
		if !strings.EqualFold(e.VendorName, "OSSIE") {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(e.Data), &m) != nil {
			out["data"] = e.Data
			continue
		}
		for k, v := range m {
			out[k] = canonical(v)
		}
	}
	return out
}

func otherVendors(exts []ossie.CustomExtension) []ossie.CustomExtension {
	var out []ossie.CustomExtension
	for _, e := range exts {
		if !strings.EqualFold(e.VendorName, "OSSIE") {
			out = append(out, e)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// shorten keeps a detail readable: a rollup list or a metric type can be
// long JSON.
func shorten(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-3]) + "..."
}
