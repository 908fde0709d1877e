package pgwire

import (
	"slices"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
)

// maxViaSteps bounds the search for join paths of one model; a model
// needing more is read as having the paths found by then (its columns
// along a path are then missing, never wrong: the planner still refuses
// an ambiguous path, OSS4011).
const maxViaSteps = 100000

// viaChoices lists, for each dataset some dataset reaches by several
// many-to-one paths (parallel relationships such as an order's order date
// and ship date to one calendar), the relationships a query names as its
// `via` to take each path (docs/query-semantics.md, "Choosing a path"):
// on each path, the first relationship not on every other path. Its
// fields get one column per via (docs/sql-api.md). Sorted, no repeats.
func viaChoices(rels []server.RelationshipRef) map[string][]string {
	out := map[string][]string{}
	steps := 0
	homes := map[string]bool{}
	for _, r := range rels {
		homes[r.From] = true
	}
	for home := range homes {
		paths := map[string][][]string{} // target → relationship paths from home
		var path []string
		onPath := map[string]bool{home: true}
		var walk func(cur string)
		walk = func(cur string) {
			for _, r := range rels {
				if steps++; steps > maxViaSteps || r.From != cur || onPath[r.To] {
					continue
				}
				path = append(path, r.Name)
				paths[r.To] = append(paths[r.To], slices.Clone(path))
				onPath[r.To] = true
				walk(r.To)
				delete(onPath, r.To)
				path = path[:len(path)-1]
			}
		}
		walk(home)
		for target, ps := range paths {
			if len(ps) < 2 {
				continue
			}
			for _, p := range ps {
				if via, ok := distinguishing(p, ps); ok && !slices.Contains(out[target], via) {
					out[target] = append(out[target], via)
				}
			}
		}
	}
	for ds := range out {
		slices.Sort(out[ds])
	}
	return out
}

// distinguishing is the first relationship of p that some other path of
// ps does not take.
func distinguishing(p []string, ps [][]string) (string, bool) {
	for _, rel := range p {
		for _, q := range ps {
			if !slices.Contains(q, rel) {
				return rel, true
			}
		}
	}
	return "", false
}

// throughOfVias is the fact a query without metrics lists the rows of
// when its columns along a path (`calendar_kind@orders_ship_date`) all
// take relationships from one dataset (orders): the query's `through`,
// which SQL has no other way to name (docs/sql-api.md). "" when no
// column takes a path, or the paths start from several datasets (the
// planner then says which fact to choose, OSS4012 or OSS4013).
func (t *table) throughOfVias(q *plan.Query) string {
	from := ""
	take := func(via string) bool {
		if via == "" {
			return true
		}
		f := t.viaFrom[via]
		if from != "" && f != from {
			return false
		}
		from = f
		return true
	}
	for _, d := range q.Dimensions {
		if !take(d.Via) {
			return ""
		}
	}
	for _, f := range q.Filters {
		if !take(f.Via) {
			return ""
		}
	}
	return from
}
