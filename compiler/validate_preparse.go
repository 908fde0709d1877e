package compiler

import (
	"runtime"
	"sync"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// parsedExpr is the outcome of expr.Parse for one expression text.
type parsedExpr struct {
	node expr.Node
	errs []expr.Error
}

// preparse parses the selected portable text of every field and metric
// once per distinct text, on all CPUs. Parsing goes through cgo
// (pg_query) and dominates validation time, while the texts are
// independent and often repeated (`id`, `amount`), so this is where
// parallelism and sharing pay. Trees are never modified after parsing
// (rewrites copy), so one tree may back several fields. The result is
// keyed by text; the rules that follow stay sequential and deterministic.
func preparse(a *analysis) map[string]parsedExpr {
	seen := map[string]bool{}
	var texts []string
	add := func(text string) {
		if !seen[text] {
			seen[text] = true
			texts = append(texts, text)
		}
	}
	for _, m := range a.doc.SemanticModel {
		for _, d := range m.Datasets {
			for _, f := range d.Fields {
				if de, ok := f.Expression.Portable(); ok {
					add(de.Expression)
				}
			}
		}
		for _, mt := range m.Metrics {
			if de, ok := mt.Expression.Portable(); ok {
				add(de.Expression)
			}
		}
	}
	results := make([]parsedExpr, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts)/8+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(texts); i += workers {
				node, errs := expr.Parse(texts[i])
				results[i] = parsedExpr{node, errs}
			}
		}(w)
	}
	wg.Wait()
	out := make(map[string]parsedExpr, len(texts))
	for i, t := range texts {
		out[t] = results[i]
	}
	return out
}
