package compiler

import (
	"fmt"
	"strings"
)

// joinGraph is the undirected graph of datasets joined by relationships.
// A union-find gives connectivity in near-constant time per query; the
// spanning-forest adjacency lets a problem name the path that an extra
// relationship duplicates.
type joinGraph struct {
	parent []int
	adj    [][]graphEdge // spanning-forest edges only
}

type graphEdge struct {
	to, rel int
}

func newJoinGraph(n int) *joinGraph {
	g := &joinGraph{parent: make([]int, n), adj: make([][]graphEdge, n)}
	for i := range g.parent {
		g.parent[i] = i
	}
	return g
}

func (g *joinGraph) root(x int) int {
	for g.parent[x] != x {
		g.parent[x] = g.parent[g.parent[x]]
		x = g.parent[x]
	}
	return x
}

func (g *joinGraph) connected(a, b int) bool { return g.root(a) == g.root(b) }

// path returns the spanning-forest edges from a to b (both in one tree),
// as the sequence of (next dataset, relationship) steps.
func (g *joinGraph) path(a, b int) []graphEdge {
	prev := map[int]graphEdge{a: {to: -1, rel: -1}}
	queue := []int{a}
	for len(queue) > 0 && b != a {
		x := queue[0]
		queue = queue[1:]
		if x == b {
			break
		}
		for _, e := range g.adj[x] {
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = graphEdge{to: x, rel: e.rel}
				queue = append(queue, e.to)
			}
		}
	}
	var steps []graphEdge
	for x := b; x != a; {
		p, ok := prev[x]
		if !ok {
			return nil
		}
		steps = append(steps, graphEdge{to: x, rel: p.rel})
		x = p.to
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return steps
}

// buildGraph adds the usable relationships in document order; one that
// joins two datasets already joined closes a cycle (or duplicates a path),
// so the join graph would not be a tree (DESIGN.md section 3): joins would
// be ambiguous. The problem names both paths and suggests the role-playing
// fix.
func (mc *modelCheck) buildGraph() {
	g := newJoinGraph(len(mc.m.Datasets))
	mc.graph = g
	for i, ok := range mc.relationships {
		if !ok {
			continue
		}
		r := &mc.m.Relationships[i]
		from := mc.datasets.exact[r.From]
		to := mc.datasets.exact[r.To]
		if !g.connected(from, to) {
			g.parent[g.root(from)] = g.root(to)
			g.adj[from] = append(g.adj[from], graphEdge{to: to, rel: i})
			g.adj[to] = append(g.adj[to], graphEdge{to: from, rel: i})
			continue
		}
		steps := g.path(from, to)
		var route strings.Builder
		route.WriteString(fmt.Sprintf("%q", r.From))
		involved := []string{fmt.Sprintf("%q", r.Name)}
		for _, s := range steps {
			rel := mc.m.Relationships[s.rel].Name
			fmt.Fprintf(&route, " -[%s]- %q", rel, mc.m.Datasets[s.to].Name)
			involved = append(involved, fmt.Sprintf("%q", rel))
		}
		mc.errorf(CodeJoinGraphNotTree, mc.relPath(i),
			"relationship %q joins %q to %q, which are already joined by %s; two join paths between the same datasets make joins ambiguous (the join graph must be a tree; relationships involved: %s). For a role-playing dimension (e.g. origin and destination airports) declare one dataset per role on the same source and relate each one once",
			r.Name, r.From, r.To, route.String(), strings.Join(involved, ", "))
	}
}
