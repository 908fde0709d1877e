package ossiectl

import (
	"context"
	"fmt"
	"time"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server"
)

// localRollupSchema is the schema `query --rollups` builds rollup tables
// in.
const localRollupSchema = "ossie_rollups"

// buildLocalRollups builds every rollup art declares in eng (schema
// localRollupSchema, replacing tables of the same name) as the operator
// does, and returns their states, all fresh as of now. The first build
// that fails ends it.
func buildLocalRollups(ctx context.Context, eng engine.Engine, art *compiler.Artifact) ([]v1alpha1.RollupState, error) {
	if len(art.Rollups) == 0 {
		return nil, nil
	}
	mat, ok := eng.(engine.Materializer)
	if !ok {
		return nil, fmt.Errorf("--rollups: the %s engine cannot hold rollup tables", eng.Dialect().Name())
	}
	var states []v1alpha1.RollupState
	for _, r := range art.Rollups {
		rb, probs := plan.BuildRollup(art, r.Name, eng.Dialect())
		if probs.HasErrors() {
			return nil, fmt.Errorf("--rollups: rollup %s: %s", r.Name, probs[0].Message)
		}
		rows, err := mat.BuildTable(ctx, engine.TableDef{Schema: []string{localRollupSchema}, Name: r.Table, Query: rb.SQL,
			Comment: "rollup " + art.Name + "/" + r.Name + " built by ossiectl query --rollups"})
		if err != nil {
			return nil, fmt.Errorf("--rollups: building rollup %s: %w", r.Name, err)
		}
		states = append(states, v1alpha1.RollupState{Model: art.Name, Name: r.Name, Table: []string{localRollupSchema, r.Table},
			ArtifactVersion: art.Version, BuiltAt: time.Now().UTC(), Rows: rows})
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
