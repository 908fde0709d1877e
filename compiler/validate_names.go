package compiler

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// checkName reports CodeInvalidName for an empty name, one over maxNameLen
// characters or one with control characters, and returns whether the name
// is usable. what is the kind of thing named ("dataset", "field", ...).
func checkName(p *Parsed, probs *Problems, path, what, name string) bool {
	msg := ""
	switch {
	case strings.TrimSpace(name) == "":
		msg = fmt.Sprintf("%s name is empty", what)
	case utf8.RuneCountInString(name) > maxNameLen:
		msg = fmt.Sprintf("%s name is %d characters long; at most %d are allowed", what, utf8.RuneCountInString(name), maxNameLen)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		msg = fmt.Sprintf("%s name %q contains control characters or invalid UTF-8", what, name)
	default:
		return true
	}
	*probs = append(*probs, p.At(CodeInvalidName, SeverityError, path, msg))
	return false
}

// indexNames checks names and builds the lookup maps. Per model, dataset,
// metric and relationship names are unique; per dataset, field names are.
// A metric may share its name with a field (they live in different
// namespaces: metrics are bare names, fields are dataset.field).
func (mc *modelCheck) indexNames() {
	m := mc.m
	if len(m.Datasets) == 0 {
		mc.errorf(CodeEmpty, mc.base+".datasets", "semantic model %q defines no datasets; at least one is required", m.Name)
	}
	mc.fields = make([]nameIndex, len(m.Datasets))
	mc.fieldOwners = map[string][]int{}
	mc.foldedOwners = map[string][]fieldAt{}
	mc.datasetNames = make([]string, 0, len(m.Datasets))
	for d := range m.Datasets {
		ds := &m.Datasets[d]
		path := mc.datasetPath(d)
		if checkName(mc.p, mc.probs, path+".name", "dataset", ds.Name) {
			if first, dup := mc.datasets.add(ds.Name, d); dup {
				mc.errorf(CodeDuplicateName, path+".name", "dataset name %q is already used by datasets[%d]", ds.Name, first)
			} else {
				mc.datasetNames = append(mc.datasetNames, ds.Name)
			}
		}
		for f := range ds.Fields {
			fl := &ds.Fields[f]
			fpath := mc.fieldPath(d, f) + ".name"
			if !checkName(mc.p, mc.probs, fpath, "field", fl.Name) {
				continue
			}
			if first, dup := mc.fields[d].add(fl.Name, f); dup {
				mc.errorf(CodeDuplicateName, fpath, "field name %q is already used by fields[%d] of dataset %q", fl.Name, first, ds.Name)
				continue
			}
			mc.fieldOwners[fl.Name] = append(mc.fieldOwners[fl.Name], d)
			k := strings.ToLower(fl.Name)
			mc.foldedOwners[k] = append(mc.foldedOwners[k], fieldAt{d, fl.Name})
		}
	}
	for i := range m.Metrics {
		mt := &m.Metrics[i]
		path := mc.metricPath(i) + ".name"
		if !checkName(mc.p, mc.probs, path, "metric", mt.Name) {
			continue
		}
		if first, dup := mc.metrics.add(mt.Name, i); dup {
			mc.errorf(CodeDuplicateName, path, "metric name %q is already used by metrics[%d]", mt.Name, first)
			continue
		}
		mc.metricNames = append(mc.metricNames, mt.Name)
	}
	var rels nameIndex
	for i := range m.Relationships {
		r := &m.Relationships[i]
		path := mc.relPath(i) + ".name"
		if !checkName(mc.p, mc.probs, path, "relationship", r.Name) {
			continue
		}
		if first, dup := rels.add(r.Name, i); dup {
			mc.errorf(CodeDuplicateName, path, "relationship name %q is already used by relationships[%d]", r.Name, first)
		}
	}
}

// fieldNames lists the field names of dataset d (for did-you-mean).
func (mc *modelCheck) fieldNames(d int) []string {
	fs := mc.m.Datasets[d].Fields
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// isOwnDataset reports whether d is the dataset registered under its name
// (false for a duplicate-named dataset, which is reported already).
func (mc *modelCheck) isOwnDataset(d int) bool {
	i, ok := mc.datasets.exact[mc.m.Datasets[d].Name]
	return ok && i == d
}

// checkKeys: primary_key and unique_keys name columns of their dataset
// (OSSIE.md "Dataset": the spec calls them columns). A key column that is
// a declared field is checked now; one that is not is read as a physical
// column of the source, recorded in keyPhysical and checked at bind time
// against the engine (a missing one is drift), as relationship columns are.
func (mc *modelCheck) checkKeys() {
	mc.keyPhysical = make([][]string, len(mc.m.Datasets))
	for d := range mc.m.Datasets {
		ds := &mc.m.Datasets[d]
		path := mc.datasetPath(d)
		mc.checkKeyColumns(d, path+".primary_key", "primary_key", ds.PrimaryKey)
		for u, key := range ds.UniqueKeys {
			kp := fmt.Sprintf("%s.unique_keys[%d]", path, u)
			if len(key) == 0 {
				mc.errorf(CodeEmpty, kp, "unique key of dataset %q lists no columns", ds.Name)
				continue
			}
			mc.checkKeyColumns(d, kp, "unique key", key)
		}
	}
}

func (mc *modelCheck) checkKeyColumns(d int, path, what string, cols []string) {
	seen := make(map[string]bool, len(cols))
	for c, col := range cols {
		cp := fmt.Sprintf("%s[%d]", path, c)
		if seen[col] {
			mc.errorf(CodeDuplicateName, cp, "%s of dataset %q lists column %q twice", what, mc.m.Datasets[d].Name, col)
			continue
		}
		seen[col] = true
		if strings.TrimSpace(col) == "" {
			mc.errorf(CodeUnknownColumn, cp, "%s of dataset %q lists an empty column name", what, mc.m.Datasets[d].Name)
			continue
		}
		if _, ok := mc.fields[d].exact[col]; !ok && !slices.Contains(mc.keyPhysical[d], col) {
			mc.keyPhysical[d] = append(mc.keyPhysical[d], col)
		}
	}
}

// checkSources resolves every dataset source (source.go) and records it.
func (mc *modelCheck) checkSources() {
	mc.sources = make([]ResolvedSource, len(mc.m.Datasets))
	for d := range mc.m.Datasets {
		rs, code, msg := resolveSource(mc.m.Datasets[d].Source)
		if code != "" {
			mc.errorf(code, mc.datasetPath(d)+".source", "dataset %q: %s", mc.m.Datasets[d].Name, msg)
			continue
		}
		mc.sources[d] = rs
	}
}
