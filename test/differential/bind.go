package differential

import (
	"context"
	"errors"
	"fmt"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/server/load"
)

// bindAsOperator binds arts to p's engine as the operator does before it
// publishes a bundle and plans its views (engine/bindcheck, through
// server.BindModels): fields that declare no datatype take the type the
// engine gives them. A model the engine refuses (OSS5008) is returned as
// a refusal, as the operator would publish nothing; an engine that does
// not answer is an error.
func bindAsOperator(ctx context.Context, p Place, arts []*compiler.Artifact) ([]*compiler.Artifact, *Outcome, error) {
	var eng engine.Engine
	var err error
	switch p.Engine {
	case DuckDB:
		eng, err = duckdb.Open(p.DuckDBPath)
	case Postgres:
		eng, err = postgres.Open(ctx, postgres.Config{DSN: p.DSN})
	case Trino:
		eng, err = trino.Open(ctx, trino.Config{DSN: p.DSN, Catalog: p.Catalog, Schema: p.Schema})
	default:
		err = fmt.Errorf("no engine %q", p.Engine)
	}
	if err != nil {
		return nil, nil, err
	}
	defer eng.Close()
	bound, err := load.BindModels(ctx, eng, arts, "model", 0)
	var le *load.Error
	if errors.As(err, &le) {
		o := refusal(err.Error())
		return nil, &o, nil
	}
	return bound, nil, err
}
