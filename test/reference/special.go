package reference

import (
	"fmt"
	"math/big"
	"time"
)

// baseAgg is the one aggregate a semi-additive metric's expression is
// (directly or through the metric it names).
func (e *evaluator) baseAgg(m *Metric) (*Agg, error) {
	x := m.Expr
	for {
		switch v := x.(type) {
		case *Agg:
			return v, nil
		case Ref:
			x = e.metric[v.Metric].Expr
			continue
		}
		return nil, fmt.Errorf("metric %s: expression is not one aggregate", m.Name)
	}
}

// stack adds value v of metric m to the group k of l (created when new).
func stack(l *layer, k string, dims []any, m *Metric, v *big.Rat) {
	g := l.groups[k]
	if g == nil {
		g = newGroup(dims)
		l.groups[k] = g
	}
	g.vals[m] = v
	g.has[m] = true
}

// semiAdditive: per group, the expression summed per value of the
// `along` field, then the sum at the latest (last) or earliest (first)
// along value of the group, or the largest (max) or smallest (min) sum
// (docs/metrics.md, "Semi-additive metrics"). Rows with a NULL along
// value form one more sum, which min and max compare and last and first
// never pick.
func (e *evaluator) semiAdditive(m *Metric, dims []rdim, filters []rfilter, l *layer) error {
	a, err := e.baseAgg(m)
	if err != nil {
		return err
	}
	groups, rows, t, err := e.rowGroups(a.Dataset, dims, filters)
	if err != nil {
		return err
	}
	if t.fanOut {
		return &Refused{Code: "OSS4062", Reason: m.Name + " is fanned out"}
	}
	if len(m.Type.Per) > 0 {
		return e.semiPer(m, a, groups, rows, l)
	}
	ads, afield := splitMember(m.Type.Along)
	for k, g := range groups {
		byAlong := map[string][][]any{}
		alongVal := map[string]any{}
		for _, r := range rows[k] {
			v := e.raw(ads, r, afield)
			ak := keyOf([]any{v})
			byAlong[ak] = append(byAlong[ak], r)
			alongVal[ak] = v
		}
		var pickKey string
		var pick *big.Rat
		picked := false
		for ak, rs := range byAlong {
			s := e.aggregate(a, rs)
			switch m.Type.Pick {
			case "last", "first":
				if alongVal[ak] == nil {
					continue
				}
				c := 0
				if picked {
					c, _ = compare(alongVal[ak], alongVal[pickKey])
				}
				if !picked || (m.Type.Pick == "last" && c > 0) || (m.Type.Pick == "first" && c < 0) {
					pickKey, pick, picked = ak, s, true
				}
			case "max", "min":
				if s == nil {
					continue
				}
				if pick == nil || (m.Type.Pick == "max" && s.Cmp(pick) > 0) || (m.Type.Pick == "min" && s.Cmp(pick) < 0) {
					pick = s
				}
			}
		}
		stack(l, k, g.dims, m, pick)
	}
	return nil
}

// conversion: per group of the A rows, the distinct entities with a B row
// of the same entity at or after the A row's time and at most count units
// after it (and meeting to_filter), over the distinct entities, or their
// number alone with calculation conversions (docs/metrics.md, "Conversion
// metrics"); B is read through the caller's row filters.
func (e *evaluator) conversion(m *Metric, dims []rdim, filters []rfilter, l *layer) error {
	t := m.Type
	ads, aent := splitMember(t.Entity)
	_, aat := splitMember(t.At)
	bds, bent := splitMember(t.ToEntity)
	_, bat := splitMember(t.ToAt)
	groups, rows, tr, err := e.rowGroups(ads, dims, filters)
	if err != nil {
		return err
	}
	if tr.fanOut {
		return &Refused{Code: "OSS4062", Reason: m.Name + " is fanned out"}
	}
	if tr.reached[bds] {
		return &Refused{Code: "OSS4063", Reason: m.Name + " grouped or filtered by its event-B dataset"}
	}
	for k, g := range groups {
		ents := map[string]bool{}
		conv := map[string]bool{}
		for _, r := range rows[k] {
			ent := e.raw(ads, r, aent)
			if ent == nil {
				continue
			}
			ek := keyOf([]any{ent})
			ents[ek] = true
			at, ok := e.raw(ads, r, aat).(time.Time)
			if !ok {
				continue
			}
			until := step(at, t.Unit, t.Count)
			for _, b := range e.visible(bds) {
				c, comparable := compare(e.raw(bds, b, bent), ent)
				bt, isTime := e.raw(bds, b, bat).(time.Time)
				if t.ToFilter != nil && !e.when(bds, b, t.ToFilter) {
					continue
				}
				if comparable && c == 0 && isTime && !bt.Before(at) && !bt.After(until) {
					conv[ek] = true
				}
			}
		}
		var v *big.Rat
		switch {
		case t.Calculation == "conversions":
			v = big.NewRat(int64(len(conv)), 1)
		case len(ents) > 0:
			v = big.NewRat(int64(len(conv)), int64(len(ents)))
		}
		stack(l, k, g.dims, m, v)
	}
	return nil
}
