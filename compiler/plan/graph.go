package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// edge is one relationship seen from one of its ends. toOne is true when
// walking it goes from the many side (From) to the one side (To): such a
// hop never multiplies rows; the opposite hop fans out.
type edge struct {
	rel   *compiler.ArtifactRelationship
	other string
	toOne bool
}

// graph is the join graph of one artifact. Validation allows shared
// dimensions and parallel many-to-one paths (recorded in
// Artifact.JoinChoices); tree picks one path, and choiceOn refuses a join
// whose path crosses a recorded choice.
type graph map[string][]edge

func newGraph(a *compiler.Artifact) graph {
	g := graph{}
	for i := range a.Relationships {
		r := &a.Relationships[i]
		g[r.From] = append(g[r.From], edge{rel: r, other: r.To, toOne: true})
		g[r.To] = append(g[r.To], edge{rel: r, other: r.From, toOne: false})
	}
	return g
}

// hop is how a dataset is reached in a join tree rooted at some dataset.
type hop struct {
	parent string
	via    edge
	depth  int
}

// tree returns, for every dataset reachable from root, the hop it is
// reached by (root maps to a hop with empty parent), and the datasets in
// breadth-first order so parents always come before children.
func (g graph) tree(root string) (map[string]hop, []string) {
	hops := map[string]hop{root: {}}
	order := []string{root}
	for i := 0; i < len(order); i++ {
		cur := order[i]
		for _, e := range g[cur] {
			if _, seen := hops[e.other]; seen {
				continue
			}
			hops[e.other] = hop{parent: cur, via: e, depth: hops[cur].depth + 1}
			order = append(order, e.other)
		}
	}
	return hops, order
}

// reachesToOne reports whether target is reachable from root by many-to-one
// hops only (so joining it to root never multiplies root's rows).
func (g graph) reachesToOne(root, target string) bool {
	if root == target {
		return true
	}
	seen := map[string]bool{root: true}
	stack := []string{root}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g[cur] {
			if !e.toOne || seen[e.other] {
				continue
			}
			if e.other == target {
				return true
			}
			seen[e.other] = true
			stack = append(stack, e.other)
		}
	}
	return false
}

// fanRoutes returns why joining ds to home (along hops, a tree from home)
// is refused, or "": the path takes a one-to-many hop (a dimension of
// another fact dataset, reached through a shared dimension) and another
// route joins the two: orders and returns sharing dates, products and
// stores meet through any of them, and the answers differ (OSS4011).
func fanRoutes(g graph, hops map[string]hop, home, ds string) string {
	fans := false
	for cur := ds; cur != home; cur = hops[cur].parent {
		fans = fans || !hops[cur].via.toOne
	}
	if !fans {
		return ""
	}
	route := pathRels(hops, home, ds)
	if other := g.otherRoute(home, ds, route); other != nil {
		return fmt.Sprintf("%s is joined to %s through a one-to-many hop, and the model joins them by more than one route (relationships %s; %s); this query cannot choose one yet, so it is refused rather than answered through an arbitrary one",
			ds, home, strings.Join(route, " then "), strings.Join(other, " then "))
	}
	return ""
}

// choicesOn returns the join choices the path from home to ds (along hops)
// crosses: pairs the model joins by several many-to-one paths (Artifact.
// JoinChoices, warning OSS2020) whose From comes before its To on the path.
func choicesOn(a *compiler.Artifact, hops map[string]hop, home, ds string) []*compiler.ArtifactJoinChoice {
	if len(a.JoinChoices) == 0 {
		return nil
	}
	pos := map[string]int{}
	depth := hops[ds].depth
	for cur := ds; ; cur = hops[cur].parent {
		pos[cur] = depth
		if cur == home {
			break
		}
		depth--
	}
	var out []*compiler.ArtifactJoinChoice
	for i := range a.JoinChoices {
		c := &a.JoinChoices[i]
		f, okF := pos[c.From]
		t, okT := pos[c.To]
		if okF && okT && f < t {
			out = append(out, c)
		}
	}
	return out
}

// maxRouteSteps bounds the search for a second route; a model needing more
// is treated as having one (the search stops, nothing is refused by it).
const maxRouteSteps = 100000

// otherRoute returns the relationship names of a simple path between from
// and to (either direction per hop) other than route, or nil.
func (g graph) otherRoute(from, to string, route []string) []string {
	steps := 0
	onPath := map[string]bool{from: true}
	var path []string
	var found []string
	var walk func(cur string) bool
	walk = func(cur string) bool {
		for _, e := range g[cur] {
			if steps++; steps > maxRouteSteps {
				return true
			}
			if onPath[e.other] {
				continue
			}
			path = append(path, e.rel.Name)
			if e.other == to {
				if !slices.Equal(path, route) {
					found = slices.Clone(path)
					return true
				}
			} else {
				onPath[e.other] = true
				if walk(e.other) {
					return true
				}
				delete(onPath, e.other)
			}
			path = path[:len(path)-1]
		}
		return false
	}
	walk(from)
	return found
}
