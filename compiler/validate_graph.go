package compiler

import (
	"fmt"
	"slices"
	"strings"
)

// joinGraph is the join graph of one model. A union-find over the
// undirected graph gives connectivity (can a metric's datasets be joined
// at all); the directed many-to-one edges (from → to) decide ambiguity.
// Ambiguity is judged along many-to-one paths only (docs/query-semantics.md,
// "Validation rules"): two fact datasets meeting at a shared dimension
// (a constellation) are fine, a dataset that reaches another by two
// many-to-one paths needs a choice per query, and a directed cycle is an
// error.
type joinGraph struct {
	parent []int
	out    [][]graphEdge // many-to-one edges, by `from`
	// choices are the pairs reached by several many-to-one paths, sorted.
	choices []joinChoice
}

type graphEdge struct {
	to, rel int
}

// joinChoice is one pair reached by several many-to-one paths; paths hold
// relationship indexes in walking order.
type joinChoice struct {
	from, to int
	paths    [][]int
}

// maxChoicePaths bounds the candidate paths listed for one pair: a model
// with that many is already unusable without `via`, and the listing must
// stay small.
const maxChoicePaths = 16

func newJoinGraph(n int) *joinGraph {
	g := &joinGraph{parent: make([]int, n), out: make([][]graphEdge, n)}
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

// buildGraph adds the usable relationships in document order. One that
// closes a directed cycle (a dataset reaching itself by many-to-one hops)
// is CodeJoinGraphNotTree and left out. Then every pair reached by several
// many-to-one paths is recorded for the artifact, and each place where
// those paths part is a CodeAmbiguousPaths warning naming the candidates.
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
		if cycle := g.directedPath(to, from); cycle != nil {
			var route strings.Builder
			fmt.Fprintf(&route, "%q", r.To)
			for _, s := range cycle {
				fmt.Fprintf(&route, " -[%s]-> %q", mc.m.Relationships[s.rel].Name, mc.m.Datasets[s.to].Name)
			}
			mc.errorf(CodeJoinGraphNotTree, mc.relPath(i),
				"relationship %q (%q many-to-one %q) closes a cycle of many-to-one relationships: %s already reaches %q, so %q would reach itself and joins would be ambiguous; for a hierarchy (e.g. employee → manager) declare a second dataset on the same source and relate the two",
				r.Name, r.From, r.To, route.String(), r.From, r.From)
			mc.relationships[i] = false
			continue
		}
		g.parent[g.root(from)] = g.root(to)
		g.out[from] = append(g.out[from], graphEdge{to: to, rel: i})
	}
	g.findChoices()
	for _, c := range g.choices {
		if !mc.partsAt(c) {
			continue
		}
		last := 0
		shown := make([]string, len(c.paths))
		for k, p := range c.paths {
			shown[k] = mc.routeOf(c.from, p)
			last = max(last, p[len(p)-1])
		}
		mc.add(CodeAmbiguousPaths, SeverityWarning, mc.relPath(last), fmt.Sprintf(
			"dataset %q reaches %q by %d many-to-one join paths: %s. The document is valid; a query that joins %q to %q must choose one with \"via\" (or a metric pins one in custom_extensions), otherwise it is refused with %s",
			mc.m.Datasets[c.from].Name, mc.m.Datasets[c.to].Name, len(c.paths), strings.Join(shown, "; "),
			mc.m.Datasets[c.to].Name, mc.m.Datasets[c.from].Name, CodeAmbiguousJoin))
	}
}

// partsAt reports whether the candidate paths of c do not all start with
// the same relationship: the place where they part. A dataset above it
// (e.g. line items above orders) has the same choice recorded, but is not
// warned about again.
func (mc *modelCheck) partsAt(c joinChoice) bool {
	for _, p := range c.paths[1:] {
		if p[0] != c.paths[0][0] {
			return true
		}
	}
	return false
}

func (mc *modelCheck) routeOf(from int, path []int) string {
	var b strings.Builder
	b.WriteString(mc.m.Datasets[from].Name)
	for _, rel := range path {
		r := &mc.m.Relationships[rel]
		fmt.Fprintf(&b, " -[%s]-> %s", r.Name, r.To)
	}
	return b.String()
}

// directedPath returns the many-to-one steps from a to b, or nil when b is
// not reachable from a (a == b is a path of no steps, returned non-nil).
func (g *joinGraph) directedPath(a, b int) []graphEdge {
	prev := map[int]graphEdge{a: {to: -1, rel: -1}}
	queue := []int{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == b {
			break
		}
		for _, e := range g.out[x] {
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = graphEdge{to: x, rel: e.rel}
				queue = append(queue, e.to)
			}
		}
	}
	if _, ok := prev[b]; !ok {
		return nil
	}
	steps := []graphEdge{}
	for x := b; x != a; {
		p := prev[x]
		steps = append(steps, graphEdge{to: x, rel: p.rel})
		x = p.to
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return steps
}

// findChoices records, for every dataset x and every dataset y it reaches
// by more than one many-to-one path, the candidate paths. The graph has no
// directed cycle (buildGraph refused those), so path counts propagate in
// topological order (saturating at 2); only pairs with two or more paths
// are enumerated, depth-first over datasets that still reach y, which
// stops after maxChoicePaths paths however many there are.
func (g *joinGraph) findChoices() {
	n := len(g.out)
	order := g.topoOrder()
	pos := make([]int, n)
	for i, x := range order {
		pos[x] = i
	}
	in := make([][]graphEdge, n) // reverse edges: in[y] holds {to: from, rel}
	for x := range g.out {
		for _, e := range g.out[x] {
			in[e.to] = append(in[e.to], graphEdge{to: x, rel: e.rel})
		}
	}
	count := make([]int, n)
	seen := make([]bool, n)
	for x := 0; x < n; x++ {
		if len(g.out[x]) == 0 {
			continue
		}
		// Only what x reaches matters: collect it, then propagate path
		// counts over it in topological order.
		reach := []int{x}
		seen[x] = true
		for i := 0; i < len(reach); i++ {
			for _, e := range g.out[reach[i]] {
				if !seen[e.to] {
					seen[e.to] = true
					reach = append(reach, e.to)
				}
			}
		}
		slices.SortFunc(reach, func(a, b int) int { return pos[a] - pos[b] })
		count[x] = 1
		for _, cur := range reach {
			for _, e := range g.out[cur] {
				count[e.to] = min(2, count[e.to]+count[cur])
			}
		}
		var targets []int
		for _, y := range reach {
			if y != x && count[y] > 1 {
				targets = append(targets, y)
			}
		}
		for _, y := range reach {
			count[y], seen[y] = 0, false
		}
		slices.Sort(targets)
		for _, y := range targets {
			g.choices = append(g.choices, joinChoice{from: x, to: y, paths: g.enumerate(x, y, in)})
		}
	}
}

// enumerate lists up to maxChoicePaths many-to-one paths from x to y.
func (g *joinGraph) enumerate(x, y int, in [][]graphEdge) [][]int {
	reaches := map[int]bool{y: true}
	stack := []int{y}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range in[cur] {
			if !reaches[e.to] {
				reaches[e.to] = true
				stack = append(stack, e.to)
			}
		}
	}
	var out [][]int
	var walk func(cur int, path []int)
	walk = func(cur int, path []int) {
		for _, e := range g.out[cur] {
			if len(out) >= maxChoicePaths || !reaches[e.to] {
				continue
			}
			p := append(path[:len(path):len(path)], e.rel)
			if e.to == y {
				out = append(out, p)
				continue
			}
			walk(e.to, p)
		}
	}
	walk(x, nil)
	return out
}

// topoOrder orders datasets so every many-to-one edge goes forward.
func (g *joinGraph) topoOrder() []int {
	n := len(g.out)
	indeg := make([]int, n)
	for x := range g.out {
		for _, e := range g.out[x] {
			indeg[e.to]++
		}
	}
	var order []int
	for x := 0; x < n; x++ {
		if indeg[x] == 0 {
			order = append(order, x)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, e := range g.out[order[i]] {
			if indeg[e.to]--; indeg[e.to] == 0 {
				order = append(order, e.to)
			}
		}
	}
	return order
}
