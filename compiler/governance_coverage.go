package compiler

import (
	"path"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// checkCoverage refuses governance that a role can read around (issue 13,
// finding 4): rules are written on fields of datasets, but the data lives
// in the columns of sources, and two datasets may read one source (an
// airports table as both origin and destination) while several fields may
// read one column (`on_time = delay < 15`). For the role r of model mc:
//
//   - a field the role may not read makes every column its expression reads
//     protected in its source; another field reading a protected column of
//     the same source, in any dataset, must not be readable either;
//   - a masked field's columns must be masked (any mask) or unreadable in
//     every other field reading them;
//   - a dataset with a row filter for the role makes every other dataset
//     over the same source need a row filter for the role too.
//
// Each leak is a CodeGovernanceLeak error at the rule's path naming the
// field or dataset that reads around it.
func (gc *govCheck) checkCoverage(base string, r *ossie.Role, mc *modelCheck) {
	type guard struct {
		by     string // dataset.field whose rule protects the column
		masked bool   // masked (readable as mask text) rather than denied
	}
	guarded := map[string]guard{} // source key + "\x00" + column -> first rule
	cols := func(d, f int) []string {
		if d >= len(mc.fieldExprs) || f >= len(mc.fieldExprs[d]) || !mc.fieldExprs[d][f].ok {
			return nil
		}
		var out []string
		for _, ref := range expr.Refs(mc.fieldExprs[d][f].node) {
			name := ref.Name
			if !ref.Quoted {
				name = strings.ToLower(name)
			}
			out = append(out, name)
		}
		return out
	}
	masked := map[string]bool{}
	for _, m := range r.Masks {
		masked[m.Field] = true
	}
	type fieldRef struct {
		d, f int
		key  string
	}
	var fields []fieldRef
	for d := range mc.m.Datasets {
		for f := range mc.m.Datasets[d].Fields {
			fields = append(fields, fieldRef{d, f, mc.m.Datasets[d].Name + "." + mc.m.Datasets[d].Fields[f].Name})
		}
	}
	src := func(d int) string {
		if d >= len(mc.sources) {
			return ""
		}
		s := mc.sources[d]
		return string(s.Kind) + "\x00" + strings.Join(s.Table, "\x00") + "\x00" + s.Query + "\x00" + s.Path
	}
	for _, fr := range fields {
		readable := accessAllows(r.Fields, fr.key)
		if readable && !masked[fr.key] {
			continue
		}
		for _, c := range cols(fr.d, fr.f) {
			k := src(fr.d) + "\x00" + c
			if g, ok := guarded[k]; !ok || g.masked && !readable {
				guarded[k] = guard{by: fr.key, masked: readable}
			}
		}
	}
	for _, fr := range fields {
		if !accessAllows(r.Fields, fr.key) {
			continue
		}
		for _, c := range cols(fr.d, fr.f) {
			g, ok := guarded[src(fr.d)+"\x00"+c]
			switch {
			case !ok || g.by == fr.key:
			case !g.masked:
				gc.errorf(CodeGovernanceLeak, base+".fields", "role %q may not read %s, but it may read %s, which reads the same column %q of the same source; deny or mask %s too",
					r.Name, g.by, fr.key, c, fr.key)
			case !masked[fr.key]:
				gc.errorf(CodeGovernanceLeak, base+".masks", "role %q masks %s, but %s reads the same column %q of the same source unmasked; mask or deny %s too",
					r.Name, g.by, fr.key, c, fr.key)
			}
		}
	}
	filtered := map[string]string{}
	for _, rf := range r.RowFilters {
		if d, ok := mc.datasets.find(rf.Dataset, true); ok {
			if _, seen := filtered[src(d)]; !seen {
				filtered[src(d)] = rf.Dataset
			}
		}
	}
	for d := range mc.m.Datasets {
		name := mc.m.Datasets[d].Name
		by, ok := filtered[src(d)]
		if !ok || by == name || slices.ContainsFunc(r.RowFilters, func(rf ossie.RowFilter) bool { return rf.Dataset == name }) {
			continue
		}
		gc.errorf(CodeGovernanceLeak, base+".row_filters", "role %q filters the rows of %s, but %s reads the same source without a row filter; give %s a row filter too",
			r.Name, by, name, name)
	}
}

// accessAllows applies a role's allow/deny patterns (docs/governance.md,
// "Member access") to name: deny wins, no rules or no allow list allow.
func accessAllows(a *Access, name string) bool {
	if a == nil {
		return true
	}
	for _, p := range a.Deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if a.Allow == nil {
		return true
	}
	for _, p := range a.Allow {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
