package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// One join alias per path (query-semantics.md, Choosing a path; case
// JA-01). A query may read one dataset along several paths at once:
// revenue by order month and by ship month joins the calendar twice,
// once along orders_order_date and once along orders_ship_date. The
// first path a group's members take to a dataset joins it under its own
// name, as every other join; each further path joins it again under an
// alias, "<dataset>@<relationship>" (the relationship where the path
// leaves the one already joined), and so does every dataset joined
// beyond it on that path. Members read their values from the node of
// their own path; measures read the datasets under their own names.
//
// Every hop of an aliased path goes from a many side to a one side, so an
// alias never repeats a home row and fan-out safety is unchanged: a
// second path through a one-to-many hop is refused (OSS4011, as any
// one-to-many path where the model has another route).

// step is one hop of a join path, from dataset from along e; why is what
// chose e where the model joins the pair by several paths ("" elsewhere).
type step struct {
	from string
	e    edge
	why  string
}

// treeSteps are the hops from home to ds along the dataset-named nodes of
// hops (the tree as the group's earlier members left it).
func treeSteps(hops map[string]hop, home, ds string) []step {
	n := hops[ds].depth
	out := make([]step, n)
	for cur := ds; cur != home && n > 0; cur = hops[cur].parent {
		n--
		out[n] = step{from: hops[cur].parent, e: hops[cur].via}
	}
	return out
}

// replaceSegment replaces the hops of steps from c.From to c.To by the
// candidate path cand (relationship names walked many-to-one from
// c.From), chosen for the reason why.
func (gr graph) replaceSegment(steps []step, c *compiler.ArtifactJoinChoice, cand []string, why string) ([]step, string, string) {
	i := slices.IndexFunc(steps, func(s step) bool { return s.from == c.From })
	j := slices.IndexFunc(steps, func(s step) bool { return s.e.other == c.To })
	if i < 0 || j < i {
		return steps, "", "" // choicesOn found it on the path: not reached
	}
	seg := make([]step, 0, len(cand))
	cur := c.From
	for _, name := range cand {
		k := slices.IndexFunc(gr[cur], func(e edge) bool { return e.toOne && e.rel.Name == name })
		if k < 0 {
			return nil, compiler.CodeBadVia, fmt.Sprintf("relationship %s does not leave %s many-to-one", name, cur)
		}
		e := gr[cur][k]
		seg = append(seg, step{from: cur, e: e, why: why})
		cur = e.other
	}
	return slices.Concat(steps[:i], seg, steps[j+1:]), "", ""
}

// walkPath makes g's join tree hold the path steps for member by and
// returns the node the member reads. A hop the tree already has is
// shared; a dataset no earlier member or choice has claimed is re-parented
// onto the path (as a lone via always did); from the first hop whose
// dataset is joined along another path, the rest of the path is joined
// under aliases.
func (bl *builder) walkPath(g *group, by member, steps []step) (string, string, string) {
	cur, div := g.agg.home, ""
	moved := false
	for _, s := range steps {
		next := s.e.other
		if div == "" {
			h, ok := g.hops[next]
			switch {
			case ok && h.parent == cur && h.via.rel == s.e.rel && h.via.toOne == s.e.toOne:
				if _, set := g.chosen[next]; !set && s.why != "" {
					g.choose(next, s, by)
				}
				cur = next
				continue
			case !g.claimed(next):
				g.own()
				g.hops[next] = hop{parent: cur, via: s.e}
				if s.why != "" {
					g.choose(next, s, by)
				}
				cur, moved = next, true
				continue
			}
			div = s.e.rel.Name
		}
		if !s.e.toOne {
			// fanRoutes refuses a path crossing a one-to-many hop where
			// the model joins the two ends by another route, which a
			// path through a join choice always has; this keeps an alias
			// from ever repeating home rows should that change.
			return "", compiler.CodeAmbiguousJoin, fmt.Sprintf("%s reads %s along another path than the query's other members, and that path crosses one-to-many relationship %s: a second path is joined under an alias only along many-to-one relationships; query it separately",
				describeMember(by), next, s.e.rel.Name)
		}
		cur = g.aliasHop(next, div, cur, s, by)
		moved = true
	}
	if moved {
		g.reorder()
	}
	return cur, "", ""
}

// claimed reports whether node is fixed in g's join tree: set by a join
// choice, or already joined for a member.
func (g *group) claimed(node string) bool {
	_, chosen := g.chosen[node]
	return chosen || g.need[node]
}

// own gives g its own copy of the join tree before a change: the planner's
// cached tree is shared.
func (g *group) own() {
	if !g.ownHops {
		g.hops, g.order, g.ownHops = maps.Clone(g.hops), slices.Clone(g.order), true
	}
}

func (g *group) choose(node string, s step, by member) {
	if g.chosen == nil {
		g.chosen = map[string]chosenHop{}
	}
	g.chosen[node] = chosenHop{rel: s.e.rel.Name, by: by, why: s.why}
}

// aliasHop returns the alias node joining ds from parent along s.e on the
// path that left the tree at relationship div, adding it when new.
func (g *group) aliasHop(ds, div, parent string, s step, by member) string {
	base := ds + "@" + div
	name := base
	for n := 2; ; n++ {
		h, ok := g.hops[name]
		if !ok {
			break
		}
		if h.parent == parent && h.via.rel == s.e.rel {
			return name
		}
		name = base + "#" + strconv.Itoa(n)
	}
	g.own()
	g.hops[name] = hop{parent: parent, via: s.e}
	g.order = append(g.order, name)
	if g.aliasDS == nil {
		g.aliasDS = map[string]string{}
	}
	g.aliasDS[name] = ds
	if s.why != "" {
		g.choose(name, s, by)
	}
	return name
}

// reorder recomputes depths and the parents-first order after the tree
// changed.
func (g *group) reorder() {
	depth := func(node string) int {
		d := 0
		for c := node; g.hops[c].parent != ""; c = g.hops[c].parent {
			d++
		}
		return d
	}
	for _, node := range g.order {
		h := g.hops[node]
		h.depth = depth(node)
		g.hops[node] = h
	}
	slices.SortStableFunc(g.order, func(a, b string) int { return g.hops[a].depth - g.hops[b].depth })
}

// datasetOf is the dataset a join tree node reads: an alias's dataset, or
// the node's own name.
func (g *group) datasetOf(node string) string {
	if ds, ok := g.aliasDS[node]; ok {
		return ds
	}
	return node
}

// orderDim is the selected dimension an order_by key names: its column
// name (`calendar.month@orders_ship_date`, `calendar.day.month`), else
// its field (`calendar.day`, the first dimension of it), else its field
// and via (`calendar.day@orders_ship_date`). A field selected along two
// paths is ambiguous: amb says which names to use instead.
func orderDim(dims []*dim, key string) (col, amb string) {
	var vias []string
	for _, dm := range dims {
		if dm.name == key {
			return dm.name, ""
		}
	}
	for _, dm := range dims {
		fk := fieldKey(dm.ds, dm.field)
		if fk == key || (dm.via != "" && fk+"@"+dm.via == key) {
			if col == "" {
				col = dm.name
			}
			if !slices.Contains(vias, dm.via) {
				vias = append(vias, dm.via)
			}
		}
	}
	if len(vias) > 1 {
		var cands []string
		for _, dm := range dims {
			if fieldKey(dm.ds, dm.field) == key {
				cands = append(cands, dm.name)
			}
		}
		return "", fmt.Sprintf("order_by %q names a field selected along several paths; name one column: %s", key, strings.Join(cands, ", "))
	}
	return col, ""
}
