package plan

// distinctMembers implements "a query with dimensions and no metric returns
// the distinct members" (query-semantics.md, Dimension-only queries). It
// fires when the query names no metric (not even in a filter or order_by):
// it makes the one group of the query, without measures, at the members'
// home, so aggregatePerHome joins and filters it like any group and the
// GROUP BY on the dimensions is the distinct.
//
// The home (membersHome) is the query's through, else the first dataset,
// in request order (dimensions, then filters), from which every other
// dataset of the dimensions and filters is reached by many-to-one hops
// only, else the one linking fact that reaches them all: its rows never
// repeat, and a member is listed when some row of the home carries it (a
// customer region with no customer is not listed, as in Cube). No such
// dataset, or several linking facts, is OSS4012 (there is no one set of
// rows whose members to list; through or a metric says which).
func (bl *builder) distinctMembers() {
	b := bl.b
	if len(b.metrics) > 0 {
		return
	}
	var cands []string
	add := func(ds string) {
		for _, c := range cands {
			if c == ds {
				return
			}
		}
		cands = append(cands, ds)
	}
	for _, dm := range b.dims {
		add(dm.ds)
	}
	for _, f := range b.filters {
		add(f.dm.ds)
	}
	home := bl.membersHome(cands)
	if home == "" {
		return
	}
	bl.groups = append(bl.groups, &group{agg: &aggregate{origin: origin{rwMembers}, home: home, alias: groupAlias(0), dims: b.dims}})
}
