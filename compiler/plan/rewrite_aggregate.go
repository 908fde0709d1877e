package plan

import (
	"fmt"
	"strconv"

	"github.com/ossie-dev/ossie/compiler"
)

// group is the part of the query answered at one home dataset: the
// aggregate node and what its join tree must reach.
type group struct {
	agg   *aggregate
	hops  map[string]hop
	order []string        // join tree datasets, parents before children
	need  map[string]bool // datasets the dimensions and filters read, home included
	reads map[string]bool // datasets the measures read, home included
	fan   []fanHop        // one-to-many hops on the way to need
	// firstBy is, for each needed dataset, the first member needing it.
	firstBy map[string]member
	// chosen are the hops a join choice set (rewrite_via.go); ownHops: hops
	// and order are this group's copy, not the planner's cached tree.
	chosen  map[string]chosenHop
	ownHops bool
	// aliasDS maps each join alias (a second path to a dataset,
	// rewrite_paths.go) to its dataset; aliases are the members that read
	// such an alias, and which.
	aliasDS map[string]string
	aliases map[*dim]string
}

// aggregatePerHome implements "a metric is decomposed into measures, each
// computed at its home dataset" and "measures with the same home share one
// GROUP BY" (query-semantics.md, Shape of the SQL). It always fires: a
// query without a metric has its one group from rewrite_members.go. For each home dataset, in first-use
// order, it makes
//
//	aggregate(home; dims; measures) ← filter(dimension filters) ← join … ← scan(home)
//
// joining, with LEFT JOINs along the unique tree path, every dataset a
// dimension, a filter or a measure reads (home rows with unmatched or NULL
// keys stay, under NULL). A member no relationship connects to the home
// is OSS4010 at its path.
func (bl *builder) aggregatePerHome() {
	b := bl.b
	n := 0
	for _, m := range b.metrics {
		for _, ms := range m.mp.measures {
			g := bl.group(ms)
			if g == nil {
				g = &group{agg: &aggregate{origin: origin{rwAggregate}, home: ms.home, alias: groupAlias(len(bl.groups)), dims: b.dims,
					measures: make([]*measure, 0, 4), cols: make([]string, 0, 4), semi: ms.semi, conv: ms.conv}}
				if ms.semi != nil {
					g.agg.rewrite = rwSemi
				}
				if ms.conv != nil {
					g.agg.rewrite = rwConversion
				}
				bl.groups = append(bl.groups, g)
			} else if hasMeasure(g.agg.measures, ms.key) {
				continue // identical aggregates share a column
			}
			g.agg.measures = append(g.agg.measures, ms)
			g.agg.cols = append(g.agg.cols, measureCol(n))
			n++
		}
	}
	for _, g := range bl.groups {
		if !bl.reach(g) || !bl.semiReach(g) {
			continue
		}
		want := g.need
		if len(g.fan) == 0 {
			// Without a fan-out one join chain serves dimensions and
			// measures alike.
			want = make(map[string]bool, len(g.need)+len(g.reads))
			for k := range g.need {
				want[k] = true
			}
			for k := range g.reads {
				want[k] = true
			}
		}
		var in node = bl.joins(g, &scan{origin: origin{rwAggregate}, dataset: g.agg.home}, want, rwAggregate)
		if g.agg.conv != nil {
			if in = bl.conversion(g, in, want); in == nil {
				continue
			}
		}
		if len(b.filters) > 0 {
			in = &filter{origin: origin{rwAggregate}, input: in, dims: b.filters}
		}
		g.agg.input = in
		g.agg.aliases = g.aliases
	}
}

func hasMeasure(ms []*measure, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// group returns the group measure ms belongs to, or nil: the one at its
// home, or for a semi-additive measure its own (rewrite_semiadditive.go).
func (bl *builder) group(ms *measure) *group {
	for _, g := range bl.groups {
		if g.agg.home == ms.home && g.agg.semi == nil && g.agg.conv == nil && ms.semi == nil && ms.conv == nil {
			return g
		}
		if (ms.semi != nil || ms.conv != nil) && g.agg.measures[0].key == ms.key {
			return g
		}
	}
	return nil
}

// reach marks the datasets g's dimensions, filters and measures read, and
// the one-to-many hops on the way to the first two. False when a member is
// unreachable (reported).
func (bl *builder) reach(g *group) bool {
	home := g.agg.home
	g.hops, g.order = bl.p.tree(home)
	g.need = map[string]bool{home: true}
	ok := true
	mark := func(i int, by member, ds string) {
		path := func() string {
			if by.filter {
				return bl.b.filters[i].path()
			}
			return at("dimensions", i)
		}
		if _, reached := g.hops[ds]; !reached {
			bl.fail(compiler.CodeUnreachable, path(), fmt.Sprintf("%s cannot be joined to dataset %s: no relationship path connects them", ds, home))
			ok = false
			return
		}
		// Two routes between the home and ds (parallel relationships, or a
		// constellation reached through another fact) give different
		// answers: the query's via or the metric's pin chooses, else the
		// query is refused (rewrite_via.go).
		node, code, msg := bl.route(g, by, ds)
		if code != "" {
			bl.fail(code, path(), msg)
			ok = false
			return
		}
		if node != ds {
			if g.aliases == nil {
				g.aliases = map[*dim]string{}
			}
			g.aliases[by.dm] = node
		}
		for cur := node; cur != home && !g.need[cur]; cur = g.hops[cur].parent {
			g.need[cur] = true
			if g.firstBy == nil {
				g.firstBy = map[string]member{}
			}
			g.firstBy[cur] = by
			if h := g.hops[cur]; !h.via.toOne {
				g.fan = append(g.fan, fanHop{by: by, rel: h.via.rel.Name, one: h.parent, many: cur})
			}
		}
	}
	for i, dm := range bl.b.dims {
		mark(i, member{dm: dm}, dm.ds)
	}
	for i, f := range bl.b.filters {
		mark(i, member{dm: f.dm, filter: true}, f.dm.ds)
	}
	g.reads = map[string]bool{home: true}
	for _, ms := range g.agg.measures {
		for _, r := range ms.reads {
			for cur := r; cur != home; cur = g.hops[cur].parent {
				g.reads[cur] = true
			}
		}
	}
	return ok
}

// joins LEFT JOINs to base, in join tree order, every dataset of want but
// the home; rewrite names the rewrite making them.
func (bl *builder) joins(g *group, base node, want map[string]bool, rewrite string) node {
	for _, node := range g.order[1:] {
		if !want[node] {
			continue
		}
		h, ds := g.hops[node], g.datasetOf(node)
		j := &join{origin: origin{rewrite}, left: base, right: &scan{origin: origin{rewrite}, dataset: ds},
			dataset: ds, rel: h.via.rel, toOne: h.via.toOne}
		if node != ds || g.datasetOf(h.parent) != h.parent {
			j.path = &joinPath{alias: node, parent: h.parent}
		}
		if rewrite == rwAggregate && g.need[node] {
			j.by = g.firstBy[node]
		}
		if c, ok := g.chosen[node]; ok {
			j.chosen = c.why
		}
		base = j
	}
	return base
}

// Column and alias names of the generated SQL; the common ones are
// constants so planning does not allocate them.
var (
	groupAliases = [...]string{"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"}
	measureCols  = [...]string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11"}
	dimCols      = [...]string{"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"}
	keyCols      = [...]string{"k0", "k1", "k2", "k3"}
)

func groupAlias(i int) string { return indexed(groupAliases[:], "g", i) }
func measureCol(i int) string { return indexed(measureCols[:], "m", i) }
func dimCol(i int) string     { return indexed(dimCols[:], "d", i) }
func keyCol(i int) string     { return indexed(keyCols[:], "k", i) }

func indexed(common []string, prefix string, i int) string {
	if i < len(common) {
		return common[i]
	}
	return prefix + strconv.Itoa(i)
}
