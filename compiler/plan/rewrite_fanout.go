package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// dedupFanOut implements "when the path crosses a relationship from its
// one side to its many side (fan-out), the planner first forms SELECT
// DISTINCT <dimensions>, <home primary key> and then aggregates the home
// rows joined back on the key, so each home row counts once per group"
// (query-semantics.md, Shape of the SQL; case BC-01). It fires for a
// group when a dimension or dimension filter is reached through a
// one-to-many hop from the group's home dataset, and turns
//
//	aggregate ← filter ← joins ← scan(home)
//
// into
//
//	aggregate(keyed) ← joins (measure reads) ← keyJoin ─ distinct(dims, key) ← filter ← joins ← scan(home)
//	                                                    └ scan(home)
//
// A home without primary_key cannot be deduplicated exactly: OSS4008
// naming the relationships on the path.
func (bl *builder) dedupFanOut() {
	for _, g := range bl.groups {
		if len(g.fan) == 0 || g.agg.input == nil {
			continue
		}
		home := bl.p.art.Dataset(g.agg.home)
		if len(home.PrimaryKey) == 0 {
			rels := make([]string, len(g.fan))
			for i, f := range g.fan {
				rels[i] = f.rel
			}
			sort.Strings(rels)
			bl.fail(compiler.CodeFanOutNoKey, "dimensions", fmt.Sprintf("dataset %s is reached through one-to-many relationship(s) %s, so its rows would repeat; declare primary_key on %s so they can be counted once", g.agg.home, strings.Join(rels, ", "), g.agg.home))
			continue
		}
		dist := &distinct{origin: origin{rwFanOut}, input: g.agg.input, home: g.agg.home, dims: g.agg.dims, key: home.PrimaryKey, fan: g.fan}
		var in node = &keyJoin{origin: origin{rwFanOut}, left: dist, right: &scan{origin: origin{rwFanOut}, dataset: g.agg.home}}
		in = bl.joins(g, in, g.reads, rwFanOut)
		g.agg.input = in
		g.agg.keyed = true
	}
}
