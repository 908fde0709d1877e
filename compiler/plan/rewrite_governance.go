package plan

// governance implements row filters and masks (docs/governance.md;
// query-semantics.md, Governance): a governed answer is the ungoverned
// answer over the data the caller may see. It fires for a governed caller
// (PlanFor with a Caller on a model with governance) and
//
//   - replaces every scan of a dataset the caller's roles restrict by a
//     rowFilter, wherever the dataset is read: home, joined dimension,
//     filter or a measure's extra dataset;
//   - makes every dimension and dimension filter on a masked field read
//     the mask instead of the value.
//
// Hidden members never get this far: resolve reports them exactly as
// unknown ones.
func (bl *builder) governance(root node) node {
	pol := bl.b.pol
	if pol == nil {
		return root
	}
	for _, dm := range bl.b.dims {
		dm.masked = dm.mask
	}
	for _, f := range bl.b.filters {
		f.dm.masked = f.dm.mask
	}
	return mapScans(root, func(s *scan) node {
		alts, restricted := pol.rows[s.dataset]
		if !restricted {
			return s
		}
		return &rowFilter{origin: origin{rwGovernance}, dataset: s.dataset, alts: alts}
	})
}

// mapScans replaces, in place, every scan under n by f(scan).
func mapScans(n node, f func(*scan) node) node {
	switch n := n.(type) {
	case *scan:
		return f(n)
	case *join:
		n.left = mapScans(n.left, f)
		n.right = mapScans(n.right, f)
	case *filter:
		n.input = mapScans(n.input, f)
	case *distinct:
		n.input = mapScans(n.input, f)
	case *convJoin:
		n.left = mapScans(n.left, f)
		n.right = mapScans(n.right, f)
	case *keyJoin:
		mapScans(n.left, f)
		n.right = mapScans(n.right, f)
	case *aggregate:
		n.input = mapScans(n.input, f)
	case *combine:
		for _, g := range n.groups {
			mapScans(g, f)
		}
	case *project:
		mapScans(n.input, f)
	case *window:
		mapScans(n.input, f)
	case *sortNode:
		n.input = mapScans(n.input, f)
	case *limit:
		n.input = mapScans(n.input, f)
	}
	return n
}
