package reference

import "github.com/ossie-dev/ossie/test/differential/dcase"

// hop is one relationship crossed on a join path: forward from its many
// side to its one side (a LEFT JOIN: at most one row, NULL when none), or
// backward from the one side to the many side (a one-to-many hop).
type hop struct {
	rel     *Relationship
	forward bool
}

// path is the join path from dataset a to the dataset of member m (nil
// when it is a itself), as query-semantics.md ("Choosing a path") defines
// it over the simple paths between them:
//   - with m.via, the shortest path containing that relationship
//     (OSS4013 when none does);
//   - without, the shortest; two paths along many-to-one relationships
//     only (parallel relationships) are a choice the query must make
//     (OSS4011);
//   - a path through a one-to-many hop when another path exists is
//     OSS4011 whatever the via: the routes give different answers.
func (e *evaluator) path(a string, m rdim) ([]hop, error) {
	b := m.ds
	if a == b {
		if m.via != "" {
			return nil, &Refused{Code: "OSS4013", Reason: "via " + m.via + " on a member of the home dataset"}
		}
		return nil, nil
	}
	var all [][]hop
	seen := map[string]bool{a: true}
	var cur []hop
	var walk func(ds string)
	walk = func(ds string) {
		for i := range e.m.Relationships {
			r := &e.m.Relationships[i]
			var next string
			var h hop
			switch {
			case r.From == ds:
				next, h = r.To, hop{r, true}
			case r.To == ds:
				next, h = r.From, hop{r, false}
			default:
				continue
			}
			if seen[next] {
				continue
			}
			cur = append(cur, h)
			if next == b {
				all = append(all, append([]hop(nil), cur...))
			} else {
				seen[next] = true
				walk(next)
				delete(seen, next)
			}
			cur = cur[:len(cur)-1]
		}
	}
	walk(a)
	if len(all) == 0 {
		return nil, &Refused{Code: "OSS4010", Reason: b + " is not related to " + a}
	}
	forward := 0
	var pick []hop
	for _, p := range all {
		fwd := true
		has := m.via == ""
		for _, h := range p {
			fwd = fwd && h.forward
			has = has || h.rel.Name == m.via
		}
		if fwd {
			forward++
		}
		if has && (pick == nil || len(p) < len(pick)) {
			pick = p
		}
	}
	for _, h := range pick {
		if !h.forward && len(all) > 1 {
			return nil, &Refused{Code: "OSS4011", Reason: b + " is reached from " + a + " through a one-to-many hop by more than one route"}
		}
	}
	switch {
	case pick == nil:
		return nil, &Refused{Code: "OSS4013", Reason: "via " + m.via + " is on no path from " + a + " to " + b}
	case m.via == "" && forward > 1:
		return nil, &Refused{Code: "OSS4011", Reason: b + " is reached from " + a + " by several many-to-one paths and the query names none"}
	}
	return pick, nil
}

// reachesForward: b is a itself or reached from a by many-to-one hops.
func (e *evaluator) reachesForward(a, b string) bool {
	seen := map[string]bool{a: true}
	for stack := []string{a}; len(stack) > 0; {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == b {
			return true
		}
		for _, r := range e.m.Relationships {
			if r.From == cur && !seen[r.To] {
				seen[r.To] = true
				stack = append(stack, r.To)
			}
		}
	}
	return false
}

// node is the join tree node member m reads: its dataset, or, for a
// member with a via, the dataset joined along that path (one join per
// path, query-semantics.md "Choosing a path").
func (m rdim) node() string {
	if m.via == "" {
		return m.ds
	}
	return m.ds + "@" + m.via
}

// relationship is the model's relationship name, or nil.
func (e *evaluator) relationship(name string) *Relationship {
	for i := range e.m.Relationships {
		if e.m.Relationships[i].Name == name {
			return &e.m.Relationships[i]
		}
	}
	return nil
}

// combo is one joined row: a row (nil: the NULL row of an unmatched
// many-to-one join) per node of the join tree.
type combo map[string][]any

// joinTree is the nodes a home reaches for a query, each with the hop
// from its parent node, in an order where parents come first. A node is a
// dataset joined along the model's path (named by the dataset) or along
// a member's via (named dataset@via from the via's hop on).
type joinTree struct {
	home    string
	order   []string
	via     map[string]hop
	parent  map[string]string
	ds      map[string]string // node → dataset
	fanOut  bool              // a one-to-many hop is crossed
	reached map[string]bool   // datasets
}

// tree joins home to the dataset of every member of need along its path.
func (e *evaluator) tree(home string, need []rdim) (*joinTree, error) {
	t := &joinTree{home: home, via: map[string]hop{}, parent: map[string]string{}, ds: map[string]string{home: home}, reached: map[string]bool{home: true}}
	for _, m := range need {
		hops, err := e.path(home, m)
		if err != nil {
			return nil, err
		}
		cur, suffix := home, ""
		for _, h := range hops {
			next := h.rel.To
			if !h.forward {
				next = h.rel.From
				t.fanOut = true
			}
			if h.rel.Name == m.via {
				suffix = "@" + m.via
			}
			node := next + suffix
			t.reached[next] = true
			if _, ok := t.ds[node]; !ok {
				t.ds[node] = next
				t.order = append(t.order, node)
				t.via[node] = h
				t.parent[node] = cur
			}
			cur = node
		}
	}
	return t, nil
}

// combos are the joined rows of one home row: LEFT JOIN along many-to-one
// hops, inner join along one-to-many hops (a row reaching no row through
// such a hop is in none of the groups behind it, query-semantics.md
// "Fan-out groups").
func (e *evaluator) combos(t *joinTree, row []any) []combo {
	out := []combo{{t.home: row}}
	for _, node := range t.order {
		h, d := t.via[node], t.ds[node]
		parent, pds := t.parent[node], t.ds[t.parent[node]]
		var next []combo
		for _, c := range out {
			pr := c[parent]
			if h.forward {
				var match []any
				if pr != nil {
					match = e.lookupOne(pds, pr, h.rel.FromColumns, d, h.rel.ToColumns)
				}
				nc := copyCombo(c)
				nc[node] = match
				next = append(next, nc)
				continue
			}
			if pr == nil {
				continue
			}
			for _, m := range e.lookupAll(pds, pr, h.rel.ToColumns, d, h.rel.FromColumns) {
				nc := copyCombo(c)
				nc[node] = m
				next = append(next, nc)
			}
		}
		out = next
	}
	return out
}

func copyCombo(c combo) combo {
	n := make(combo, len(c)+1)
	for k, v := range c {
		n[k] = v
	}
	return n
}

// lookupAll is the visible rows of ds whose fields cols equal row's
// fields keys (a NULL key matches nothing).
func (e *evaluator) lookupAll(from string, row []any, keys []string, ds string, cols []string) [][]any {
	var vals []any
	for _, k := range keys {
		v := e.raw(from, row, k)
		if v == nil {
			return nil
		}
		vals = append(vals, v)
	}
	var out [][]any
	for _, r := range e.visible(ds) {
		ok := true
		for i, c := range cols {
			if cmp, comparable := compare(e.raw(ds, r, c), vals[i]); !comparable || cmp != 0 {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func (e *evaluator) lookupOne(from string, row []any, keys []string, ds string, cols []string) []any {
	if m := e.lookupAll(from, row, keys, ds, cols); len(m) > 0 {
		return m[0]
	}
	return nil
}

// raw is a field's stored value in a row of ds (nil for the NULL row).
func (e *evaluator) raw(ds string, row []any, field string) any {
	if row == nil {
		return nil
	}
	d := e.ds[ds]
	return row[d.col[field]]
}

// colType is the column type under a field.
func (e *evaluator) colType(ds, field string) dcase.ColumnType {
	d := e.ds[ds]
	return d.table.Columns[d.col[field]].Type
}
