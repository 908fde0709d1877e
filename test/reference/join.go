package reference

import "github.com/ossie-dev/ossie/test/differential/dcase"

// hop is one relationship crossed on a join path: forward from its many
// side to its one side (a LEFT JOIN: at most one row, NULL when none), or
// backward from the one side to the many side (a one-to-many hop).
type hop struct {
	rel     *Relationship
	forward bool
}

// path is the unique tree path from dataset a to dataset b (nil when b is
// a itself; ok false when b is not connected to a).
func (e *evaluator) path(a, b string) (hops []hop, ok bool) {
	if a == b {
		return nil, true
	}
	type visit struct {
		ds   string
		hops []hop
	}
	seen := map[string]bool{a: true}
	queue := []visit{{a, nil}}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for i := range e.m.Relationships {
			r := &e.m.Relationships[i]
			var next string
			var h hop
			switch {
			case r.From == v.ds:
				next, h = r.To, hop{r, true}
			case r.To == v.ds:
				next, h = r.From, hop{r, false}
			default:
				continue
			}
			if seen[next] {
				continue
			}
			seen[next] = true
			hs := append(append([]hop(nil), v.hops...), h)
			if next == b {
				return hs, true
			}
			queue = append(queue, visit{next, hs})
		}
	}
	return nil, false
}

// combo is one joined row: a row (nil: the NULL row of an unmatched
// many-to-one join) per dataset of the join tree.
type combo map[string][]any

// joinTree is the datasets a home reaches for a query, each with the hop
// from its parent, in an order where parents come first.
type joinTree struct {
	home    string
	order   []string
	via     map[string]hop
	parent  map[string]string
	fanOut  bool // a one-to-many hop is crossed
	reached map[string]bool
}

// tree joins home to every dataset of need along the tree paths.
func (e *evaluator) tree(home string, need []string) (*joinTree, error) {
	t := &joinTree{home: home, via: map[string]hop{}, parent: map[string]string{}, reached: map[string]bool{home: true}}
	for _, d := range need {
		hops, ok := e.path(home, d)
		if !ok {
			return nil, &Refused{Code: "OSS4010", Reason: d + " is not related to " + home}
		}
		cur := home
		for _, h := range hops {
			next := h.rel.To
			if !h.forward {
				next = h.rel.From
				t.fanOut = true
			}
			if !t.reached[next] {
				t.reached[next] = true
				t.order = append(t.order, next)
				t.via[next] = h
				t.parent[next] = cur
			}
			cur = next
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
	for _, d := range t.order {
		h := t.via[d]
		parent := t.parent[d]
		var next []combo
		for _, c := range out {
			pr := c[parent]
			if h.forward {
				var match []any
				if pr != nil {
					match = e.lookupOne(parent, pr, h.rel.FromColumns, d, h.rel.ToColumns)
				}
				nc := copyCombo(c)
				nc[d] = match
				next = append(next, nc)
				continue
			}
			if pr == nil {
				continue
			}
			for _, m := range e.lookupAll(parent, pr, h.rel.ToColumns, d, h.rel.FromColumns) {
				nc := copyCombo(c)
				nc[d] = m
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
