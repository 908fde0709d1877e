package gen

import "github.com/ossie-dev/ossie/test/reference"

// v4Salt seeds the stream of version 4's draws from the case's seed.
const v4Salt = 0x5eed4

// variants draws what version 4 adds to a model made as version 3 made
// it, from b.v4 only: in a model of several datasets, aggregates whose
// field name only one dataset has are written bare (`SUM(amount)`,
// docs/authoring.md); a semi-additive metric picking last or first is
// sometimes picked per entity (`per`, docs/metrics.md) — one fact field
// or two.
func (b *builder) variants() {
	r := b.v4
	owners := map[string]int{}
	for _, f := range b.fields {
		owners[f.name]++
	}
	for i := range b.m.Metrics {
		m := &b.m.Metrics[i]
		if a, ok := m.Expr.(*reference.Agg); ok && len(b.m.Datasets) > 1 && a.Field != "" && owners[a.Field] == 1 && chance(r, 0.5) {
			bare := *a // metrics may share an Agg
			bare.Bare = true
			m.Expr = &bare
		}
		if t := m.Type; t != nil && t.Type == "semi_additive" && (t.Pick == "last" || t.Pick == "first") && chance(r, 0.6) {
			per := []string{"fact.cat"}
			if b.field("fact.d1_id") != nil {
				per = pick(r, [][]string{{"fact.d1_id"}, {"fact.cat"}, {"fact.d1_id", "fact.cat"}})
			}
			t.Per = per
		}
	}
}
