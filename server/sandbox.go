package server

import (
	"context"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
)

// Sandbox limits an in-process engine (one implementing engine.Sandboxer:
// DuckDB) to the data files that models read as file sources and to the
// relations already in its database, then locks its configuration, so a
// model author's query source cannot read the server's files (its tokens
// file, mounted Secrets). Call it after the engine has loaded its data and
// before serving. Models that arrive later (Kubernetes mode) can read
// tables of the database only. Other engines are left alone: their reach
// is the database login's (docs/governance.md, "What governance guarantees
// and what it does not").
func Sandbox(ctx context.Context, eng engine.Engine, models []*compiler.Artifact) error {
	s, ok := eng.(engine.Sandboxer)
	if !ok {
		return nil
	}
	var files []string
	for _, a := range models {
		for _, ds := range a.Datasets {
			if ds.Source.Kind == compiler.SourceFile {
				files = append(files, ds.Source.Path)
			}
		}
	}
	return s.Sandbox(ctx, files)
}
