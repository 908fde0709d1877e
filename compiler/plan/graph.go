package plan

import (
	"fmt"
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

// ambiguousJoin returns why joining ds to home (along hops, a tree from
// home) is refused, or "": the path crosses a join choice, a pair of
// datasets the model joins by several many-to-one paths (Artifact.
// JoinChoices, warning OSS2020) whose From comes before its To on the
// path. Until a query can name a `via`, such a join is refused (OSS4011)
// rather than answered through whichever relationship the tree took.
func ambiguousJoin(a *compiler.Artifact, hops map[string]hop, home, ds string) string {
	if len(a.JoinChoices) == 0 {
		return ""
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
	for _, c := range a.JoinChoices {
		f, okF := pos[c.From]
		t, okT := pos[c.To]
		if okF && okT && f < t {
			paths := make([]string, len(c.Paths))
			for i, p := range c.Paths {
				paths[i] = strings.Join(p, " then ")
			}
			return fmt.Sprintf("%s is joined to %s through %s, which reaches %s by several many-to-one paths (relationships %s); this query cannot choose one yet, so it is refused rather than answered through an arbitrary one",
				ds, home, c.From, c.To, strings.Join(paths, "; "))
		}
	}
	return ""
}
