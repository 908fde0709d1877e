package reference

import "math/big"

// semiPer is a semi-additive metric with `per` (docs/metrics.md, "Per
// entity"): within each group, the rows of each entity (its per values,
// NULL one entity as in a SQL PARTITION BY) at that entity's latest
// (last) or earliest (first) along value, aggregated together with the
// metric's aggregate. Rows with a NULL along value are never picked; a
// group where nothing is picked is NULL.
func (e *evaluator) semiPer(m *Metric, a *Agg, groups map[string]*group, rows map[string][][]any, l *layer) error {
	home, afield := splitMember(m.Type.Along)
	for k, g := range groups {
		type entity struct {
			at   any
			rows [][]any
		}
		ents := map[string]*entity{}
		for _, r := range rows[k] {
			at := e.raw(home, r, afield)
			if at == nil {
				continue
			}
			key := make([]any, len(m.Type.Per))
			for i, f := range m.Type.Per {
				_, field := splitMember(f)
				key[i] = e.raw(home, r, field)
			}
			ek := keyOf(key)
			en := ents[ek]
			c := 0
			if en != nil {
				c, _ = compare(at, en.at)
			}
			switch {
			case en == nil || (m.Type.Pick == "last" && c > 0) || (m.Type.Pick == "first" && c < 0):
				ents[ek] = &entity{at: at, rows: [][]any{r}}
			case c == 0:
				en.rows = append(en.rows, r)
			}
		}
		var v *big.Rat
		if len(ents) > 0 {
			var picked [][]any
			for _, en := range ents {
				picked = append(picked, en.rows...)
			}
			v = e.aggregate(a, picked)
		}
		stack(l, k, g.dims, m, v)
	}
	return nil
}
