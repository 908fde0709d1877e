package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/load"
)

// modelName is the semantic_model the questions are asked of.
const modelName = "flights"

// demo loads the data, compiles the model and prints the answers.
func demo(ctx context.Context, o options, w io.Writer) error {
	flightsFile, airportsFile, err := dataFiles(o.dataDir)
	if err != nil {
		return err
	}

	eng, err := duckdb.Open(o.dbPath)
	if err != nil {
		return err
	}
	defer eng.Close()

	// The model's dataset sources are the table names flights and airports.
	start := time.Now()
	if err := eng.LoadFile(ctx, "flights", flightsFile); err != nil {
		return fmt.Errorf("loading %s: %w", flightsFile, err)
	}
	if err := eng.LoadFile(ctx, "airports", airportsFile); err != nil {
		return fmt.Errorf("loading %s: %w", airportsFile, err)
	}
	counts, err := eng.Query(ctx, "SELECT (SELECT COUNT(*) FROM flights), (SELECT COUNT(*) FROM airports)", 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Loaded %s flights from %s and %s airports from %s into DuckDB in %s.\n",
		formatCell(counts.Rows[0][0]), flightsFile, formatCell(counts.Rows[0][1]), airportsFile, since(start))

	start = time.Now()
	arts, err := load.Models([]string{o.modelPath}, compiler.CompileOptions{})
	if err != nil {
		return fmt.Errorf("model %s:\n%w", o.modelPath, err)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		return err
	}
	art := findModel(arts, modelName)
	if art == nil {
		return fmt.Errorf("%s defines no semantic_model named %q", o.modelPath, modelName)
	}
	fmt.Fprintf(w, "Model %q (Ossie %s) compiled in %s: %d datasets, %d metrics, version %s.\n",
		art.Name, art.DocumentVersion, since(start), len(art.Datasets), len(art.Metrics), art.Version)

	for i, q := range questions() {
		start = time.Now()
		res, err := srv.Answer(ctx, modelName, &q.Query)
		if err != nil {
			return fmt.Errorf("question %d (%s): %w", i+1, q.Title, err)
		}
		took := since(start)
		fmt.Fprintf(w, "\n%d. %s\n\n", i+1, q.Title)
		header := make([]string, len(res.Columns))
		for j, c := range res.Columns {
			header[j] = c.Name
		}
		if err := writeTable(w, header, res.Rows); err != nil {
			return err
		}
		more := ""
		if res.Truncated {
			more = " (truncated by the server's row cap)"
		}
		fmt.Fprintf(w, "\n%d rows%s, answered in %s.\n", res.RowCount, more, took)
		if q.Note != "" {
			fmt.Fprintf(w, "%s\n", q.Note)
		}
		if o.showSQL {
			fmt.Fprintf(w, "\nSQL:\n%s\n", indent(res.SQL, "    "))
		}
	}
	return nil
}

func findModel(arts []*compiler.Artifact, name string) *compiler.Artifact {
	for _, a := range arts {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
