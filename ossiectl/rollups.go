package ossiectl

import (
	"context"
	"fmt"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server"
)

// buildLocalRollups builds every rollup art declares in eng (schema
// server.RollupSchema, replacing tables of the same name) as the operator
// does (server.BuildRollup), and returns their states, all fresh as of
// now. The first build that fails ends it.
func buildLocalRollups(ctx context.Context, eng engine.Engine, art *compiler.Artifact) ([]v1alpha1.RollupState, error) {
	var states []v1alpha1.RollupState
	for _, r := range art.Rollups {
		st, err := server.BuildRollup(ctx, eng, art, r.Name, "rollup "+art.Name+"/"+r.Name+" built by ossiectl query --rollups", false)
		if err != nil {
			return nil, fmt.Errorf("--rollups: %w", err)
		}
		states = append(states, st)
	}
	return states, nil
}

// localStore holds arts as local mode does, with the rollup states of art
// when it has any.
func localStore(arts []*compiler.Artifact, states []v1alpha1.RollupState) (*server.Store, error) {
	store := server.NewStore(nil)
	const key = "files"
	store.SetRollups(key, states)
	if err := store.Set(server.Source{Key: key}, arts); err != nil {
		return nil, err
	}
	return store, nil
}
