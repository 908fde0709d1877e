package plan

// fanMembers implements "a row of a measure's dataset that reaches no row
// through a one-to-many hop has no member of the dimensions behind that
// hop, and is in none of their groups" (query-semantics.md, Fan-out
// groups; case RW-05). It fires for every one-to-many join below a
// fan-out distinct (rewrite_fanout.go) and makes it an inner join: store
// employees grouped by the last name of customers of the store's sales
// leave out the employees of a store without sales, instead of folding
// them into the NULL group, which then holds only sales whose customer is
// unknown. Many-to-one joins stay LEFT JOINs: a row with an unmatched key
// is in the NULL group, as always.
func (bl *builder) fanMembers() {
	for _, g := range bl.groups {
		for _, d := range nodesUnder[*distinct](g.agg) {
			for _, j := range nodesUnder[*join](d.input) {
				if !j.toOne {
					j.inner = true
					j.rewrite = rwFanMembers
				}
			}
		}
	}
}

// nodesUnder lists the nodes of type T under n (n included), depth first.
func nodesUnder[T node](n node) []T {
	var out []T
	var walk func(n node)
	walk = func(n node) {
		if n == nil {
			return
		}
		if x, ok := n.(T); ok {
			out = append(out, x)
		}
		for _, in := range n.inputs() {
			walk(in)
		}
	}
	walk(n)
	return out
}
