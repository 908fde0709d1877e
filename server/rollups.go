package server

import (
	"encoding/json"
	"sync"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// rollupStates holds, per source and model, the rollup tables the operator
// published with the source (the artifact ConfigMap's data key
// v1alpha1.RollupsKey, docs/rollups.md), already in the planner's form:
// they are converted once when published, not at every query. Each model's
// planner reads them at every query (plan.Planner.Rollups), so a state
// written after the artifact takes effect without rebuilding the planner;
// the planner itself refuses a state built for another artifact version or
// too old for its refresh.
type rollupStates struct {
	mu     sync.RWMutex
	states map[string]map[string][]plan.RollupState // by Source.Key, then model name
}

// SetRollups makes states the rollup tables of the source with key; nil
// forgets them (every query of its models then reads the base tables).
func (s *Store) SetRollups(key string, states []v1alpha1.RollupState) {
	byModel := map[string][]plan.RollupState{}
	for _, st := range states {
		ps := plan.RollupState{Name: st.Name, Table: st.Table, ArtifactVersion: st.ArtifactVersion, BuiltAt: st.BuiltAt}
		if !st.Watermark.IsZero() {
			w := st.Watermark
			ps.Watermark = &w
		}
		byModel[st.Model] = append(byModel[st.Model], ps)
	}
	s.rollups.mu.Lock()
	defer s.rollups.mu.Unlock()
	if s.rollups.states == nil {
		s.rollups.states = map[string]map[string][]plan.RollupState{}
	}
	if len(states) == 0 {
		delete(s.rollups.states, key)
		return
	}
	s.rollups.states[key] = byModel
}

// rollupsOf returns the planner's view of the rollup states of model in
// the source with key. The slice returned is shared: SetRollups replaces
// it, never changes it.
func (s *Store) rollupsOf(key, model string) func() []plan.RollupState {
	return func() []plan.RollupState {
		s.rollups.mu.RLock()
		defer s.rollups.mu.RUnlock()
		return s.rollups.states[key][model]
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
