package plan

// combineGroups implements the chasm-trap rule: "measures with the same
// home share one GROUP BY; different homes are stacked with UNION ALL and
// grouped again on the dimensions", so a member present in one home only,
// or a NULL group, is kept (query-semantics.md, Shape of the SQL; cases
// BC-03, BC-04). It always fires and picks the mode from the query:
//
//   - one home: the group's rows as they are;
//   - several homes, no dimensions: one row each, cross joined;
//   - several homes with dimensions: stacked and grouped on the
//     dimensions. GROUP BY is NULL-safe and hashes on every engine, where
//     joining the groups on IS NOT DISTINCT FROM ran as a quadratic nested
//     loop on PostgreSQL.
func (bl *builder) combineGroups() *combine {
	c := &combine{origin: origin{rwCombine}, groups: make([]*aggregate, len(bl.groups)), dims: len(bl.b.dims)}
	for i, g := range bl.groups {
		c.groups[i] = g.agg
	}
	switch {
	case len(c.groups) == 1:
		c.mode = combineOne
	case c.dims == 0:
		c.mode = combineCross
	default:
		c.mode = combineStack
	}
	return c
}
