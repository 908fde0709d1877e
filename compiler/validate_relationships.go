package compiler

import (
	"fmt"
	"slices"
	"strings"
)

// checkRelationships applies the relationship rules of DESIGN.md section 3:
// `from` and `to` name existing, different datasets; from_columns and
// to_columns are non-empty and of equal length; a column naming no field of
// its dataset is taken as a physical column (checked at bind time); and
// to_columns equal, as a set, the primary key or a unique key of `to` when
// `to` declares keys; when it declares none, the relationship itself asserts
// uniqueness and a CodeAssumedKey warning says so.
func (mc *modelCheck) checkRelationships() {
	rels := mc.m.Relationships
	mc.relPhysical = make([]relColumns, len(rels))
	mc.relationships = make([]bool, len(rels))
	for i := range rels {
		r := &rels[i]
		path := mc.relPath(i)
		from, fromOK := mc.datasets.exact[r.From]
		to, toOK := mc.datasets.exact[r.To]
		if !fromOK {
			mc.errorf(CodeUnknownDataset, path+".from", "relationship %q: dataset %q does not exist%s", r.Name, r.From, hint(r.From, mc.datasetNames))
		}
		if !toOK {
			mc.errorf(CodeUnknownDataset, path+".to", "relationship %q: dataset %q does not exist%s", r.Name, r.To, hint(r.To, mc.datasetNames))
		}
		if fromOK && toOK && from == to {
			mc.errorf(CodeSelfRelationship, path, "relationship %q joins dataset %q to itself; for a hierarchy (e.g. employee → manager) declare a second dataset on the same source and relate the two", r.Name, r.From)
			continue
		}
		if len(r.FromColumns) == 0 {
			mc.errorf(CodeEmpty, path+".from_columns", "relationship %q lists no from_columns", r.Name)
		}
		if len(r.ToColumns) == 0 {
			mc.errorf(CodeEmpty, path+".to_columns", "relationship %q lists no to_columns", r.Name)
		}
		if len(r.FromColumns) != len(r.ToColumns) && len(r.FromColumns) > 0 && len(r.ToColumns) > 0 {
			mc.errorf(CodeColumnCountMismatch, path+".to_columns", "relationship %q pairs columns by position but has %d from_columns and %d to_columns", r.Name, len(r.FromColumns), len(r.ToColumns))
		}
		if fromOK {
			mc.relPhysical[i].from = mc.physicalColumns(from, r.FromColumns)
		}
		if toOK {
			mc.relPhysical[i].to = mc.physicalColumns(to, r.ToColumns)
			if len(r.ToColumns) > 0 {
				mc.checkToKey(i, to)
			}
		}
		mc.relationships[i] = fromOK && toOK
	}
}

// physicalColumns returns the columns that name no field of dataset d.
func (mc *modelCheck) physicalColumns(d int, cols []string) []string {
	var out []string
	for _, c := range cols {
		if _, ok := mc.fields[d].exact[c]; !ok {
			out = append(out, c)
		}
	}
	return out
}

func (mc *modelCheck) checkToKey(i, to int) {
	r := &mc.m.Relationships[i]
	ds := &mc.m.Datasets[to]
	var keys [][]string
	if len(ds.PrimaryKey) > 0 {
		keys = append(keys, ds.PrimaryKey)
	}
	for _, k := range ds.UniqueKeys {
		if len(k) > 0 {
			keys = append(keys, k)
		}
	}
	path := mc.relPath(i) + ".to_columns"
	if len(keys) == 0 {
		mc.add(CodeAssumedKey, SeverityWarning, path, fmt.Sprintf(
			"dataset %q declares no primary_key or unique_keys; relationship %q assumes (%s) is unique in %q — declare it as a key so the assumption is written down",
			ds.Name, r.Name, strings.Join(r.ToColumns, ", "), ds.Name))
		return
	}
	for _, k := range keys {
		if sameSet(k, r.ToColumns) {
			return
		}
	}
	shown := make([]string, len(keys))
	for j, k := range keys {
		shown[j] = "(" + strings.Join(k, ", ") + ")"
	}
	mc.errorf(CodeNotAKey, path,
		"relationship %q: to_columns (%s) are not a key of %q (its keys: %s); `to` is the one side, so the columns must identify one row of it",
		r.Name, strings.Join(r.ToColumns, ", "), ds.Name, strings.Join(shown, ", "))
}

func sameSet(a, b []string) bool {
	as := slices.Clone(a)
	bs := slices.Clone(b)
	slices.Sort(as)
	slices.Sort(bs)
	return slices.Equal(slices.Compact(as), slices.Compact(bs))
}
