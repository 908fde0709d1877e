package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// route makes the join path of group g from its home to ds, the dataset
// member by reads, follow the chosen relationship wherever the path
// crosses a pair the model joins by several many-to-one paths (Artifact.
// JoinChoices; query-semantics.md, Choosing a path). The candidate is, in
// this order:
//
//  1. the one containing the member's `via` (query JSON
//     `{"field": "calendar.month", "via": "orders_ship_date"}`);
//  2. the one containing a relationship every metric of the group pins
//     (OSSIE extension `{"via": [...]}` on the metric);
//  3. none: OSS4011 naming every candidate path.
//
// A via that lies on no candidate, or on no path from the home to ds at
// all, is OSS4013. A member needing ds along another path than an earlier
// member (order month and ship month in one query) gets a join alias of
// its own for that path (rewrite_paths.go). It returns the join tree node
// the member reads (ds, or ds's alias), or the problem code and message.
func (bl *builder) route(g *group, by member, ds string) (node, code, msg string) {
	home := g.agg.home
	if msg := fanRoutes(bl.p.graph, g.hops, home, ds); msg != "" {
		return "", compiler.CodeAmbiguousJoin, msg
	}
	choices := choicesOn(bl.p.art, g.hops, home, ds)
	if len(choices) == 0 {
		if v := by.dm.via; v != "" && !pathHas(g.hops, home, ds, v) {
			if ds == home {
				// The rows come from ds itself: nothing is joined to choose.
				hint := "a via chooses how another dataset is joined to the rows"
				if len(bl.b.metrics) == 0 {
					hint = "a query without metrics reads the rows of its first dataset; name one that reaches " + ds + " along " + v + " with \"through\""
				}
				return "", compiler.CodeBadVia, fmt.Sprintf("via %q: the query's rows are %s's own, joined along no relationship; %s", v, ds, hint)
			}
			return "", compiler.CodeBadVia, fmt.Sprintf("via %q: %s is joined to %s without relationship %s (the path is %s)",
				v, ds, home, v, strings.Join(pathRels(g.hops, home, ds), " then "))
		}
		return ds, "", ""
	}
	steps := treeSteps(g.hops, home, ds)
	for _, c := range choices {
		cand, why, code, msg := bl.choose(g, by, ds, c)
		if code != "" {
			return "", code, msg
		}
		if steps, code, msg = bl.p.graph.replaceSegment(steps, c, cand, why); code != "" {
			return "", code, msg
		}
	}
	if v := by.dm.via; v != "" && !slices.ContainsFunc(steps, func(s step) bool { return s.e.rel.Name == v }) {
		return "", compiler.CodeBadVia, fmt.Sprintf("via %q: %s is joined to %s without relationship %s", v, ds, home, v)
	}
	return bl.walkPath(g, by, steps)
}

// choose picks the candidate path of join choice c for member by (see
// route); why says what chose it, for EXPLAIN.
func (bl *builder) choose(g *group, by member, ds string, c *compiler.ArtifactJoinChoice) (cand []string, why, code, msg string) {
	if v := by.dm.via; v != "" {
		for _, p := range c.Paths {
			if slices.Contains(p, v) {
				return p, "the query's via " + v, "", ""
			}
		}
		return nil, "", compiler.CodeBadVia, fmt.Sprintf("via %q is on none of the paths from %s to %s: %s", v, c.From, c.To, candidates(c))
	}
	var pinnedBy string
	for _, m := range bl.b.metrics {
		if !homeOf(m, g.agg.home) {
			continue
		}
		var p []string
		if am := bl.p.art.Metric(m.name); am != nil {
			for _, cp := range c.Paths {
				if slices.ContainsFunc(am.Via, func(v string) bool { return slices.Contains(cp, v) }) {
					p = cp
					break
				}
			}
		}
		switch {
		case p == nil:
			return nil, "", compiler.CodeAmbiguousJoin, fmt.Sprintf("%s is joined to %s through %s, which reaches %s by several many-to-one paths (relationships %s), and metric %s pins none: name one with {\"field\": %[7]q, \"via\": \"<relationship>\"} (%[7]s@<relationship> in ossiectl and views)",
				ds, g.agg.home, c.From, c.To, candidates(c), m.name, by.dm.name)
		case cand != nil && !slices.Equal(cand, p):
			return nil, "", compiler.CodeAmbiguousJoin, fmt.Sprintf("metrics %s and %s pin different paths from %s to %s (relationships %s); name one with {\"field\": %[6]q, \"via\": \"<relationship>\"} (%[6]s@<relationship> in ossiectl and views) or query them separately",
				pinnedBy, m.name, c.From, c.To, candidates(c), by.dm.name)
		}
		cand, pinnedBy = p, m.name
	}
	if cand == nil {
		return nil, "", compiler.CodeAmbiguousJoin, fmt.Sprintf("%s is joined to %s through %s, which reaches %s by several many-to-one paths (relationships %s): name one with {\"field\": %[6]q, \"via\": \"<relationship>\"} (%[6]s@<relationship> in ossiectl and views)",
			ds, g.agg.home, c.From, c.To, candidates(c), by.dm.name)
	}
	return cand, "metric " + pinnedBy + "'s pinned via", "", ""
}

// chosenHop is a hop of a group's join tree set by a join choice.
type chosenHop struct {
	rel string
	by  member
	why string // for EXPLAIN: the query's via, or the pinning metric
}

// homeOf reports whether some measure of m lives at home.
func homeOf(m *selMetric, home string) bool {
	return slices.ContainsFunc(m.mp.measures, func(ms *measure) bool { return ms.home == home })
}

// candidates lists a choice's paths as "a then b; c".
func candidates(c *compiler.ArtifactJoinChoice) string {
	paths := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		paths[i] = strings.Join(p, " then ")
	}
	return strings.Join(paths, "; ")
}

// pathRels are the relationship names from home to ds along hops.
func pathRels(hops map[string]hop, home, ds string) []string {
	var out []string
	for cur := ds; cur != home; cur = hops[cur].parent {
		out = append([]string{hops[cur].via.rel.Name}, out...)
	}
	return out
}

func pathHas(hops map[string]hop, home, ds, rel string) bool {
	return slices.Contains(pathRels(hops, home, ds), rel)
}

// hasRelationship reports whether the model has a relationship name.
func (p *Planner) hasRelationship(name string) bool {
	return slices.ContainsFunc(p.art.Relationships, func(r compiler.ArtifactRelationship) bool { return r.Name == name })
}

// relNames are the relationship names, for did-you-mean.
func (p *Planner) relNames() []string {
	out := make([]string, len(p.art.Relationships))
	for i, r := range p.art.Relationships {
		out[i] = r.Name
	}
	return out
}
