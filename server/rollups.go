package server

import (
	"encoding/json"
	"sync"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// rollupStates holds, per source, the rollup tables the operator published
// with it (the artifact ConfigMap's data key v1alpha1.RollupsKey,
// docs/rollups.md). Each model's planner reads them at every query
// (plan.Planner.Rollups), so a state written after the artifact takes
// effect without rebuilding the planner; the planner itself refuses a
// state built for another artifact version or too old for its refresh.
type rollupStates struct {
	mu     sync.RWMutex
	states map[string][]v1alpha1.RollupState // by Source.Key
}

// SetRollups makes states the rollup tables of the source with key; nil
// forgets them (every query of its models then reads the base tables).
func (s *Store) SetRollups(key string, states []v1alpha1.RollupState) {
	s.rollups.mu.Lock()
	defer s.rollups.mu.Unlock()
	if s.rollups.states == nil {
		s.rollups.states = map[string][]v1alpha1.RollupState{}
	}
	if len(states) == 0 {
		delete(s.rollups.states, key)
		return
	}
	s.rollups.states[key] = states
}

// rollupsOf returns the planner's view of the rollup states of model in
// the source with key.
func (s *Store) rollupsOf(key, model string) func() []plan.RollupState {
	return func() []plan.RollupState {
		s.rollups.mu.RLock()
		defer s.rollups.mu.RUnlock()
		var out []plan.RollupState
		for _, st := range s.rollups.states[key] {
			if st.Model != model {
				continue
			}
			ps := plan.RollupState{Name: st.Name, Table: st.Table, ArtifactVersion: st.ArtifactVersion, BuiltAt: st.BuiltAt}
			if !st.Watermark.IsZero() {
				w := st.Watermark
				ps.Watermark = &w
			}
			out = append(out, ps)
		}
		return out
	}
}

// parseRollupStates reads the rollups.json value of a ConfigMap; "" is
// none.
func parseRollupStates(data string) ([]v1alpha1.RollupState, error) {
	if data == "" {
		return nil, nil
	}
	var states []v1alpha1.RollupState
	if err := json.Unmarshal([]byte(data), &states); err != nil {
		return nil, err
	}
	return states, nil
}
