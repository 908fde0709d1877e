package compiler

import (
	"errors"
	"fmt"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// checkEngine reports every call in the model's field and metric
// expressions that engine d cannot compute (CodeExprUnsupported, at the
// path of the dialect entry that holds it). Approximate calls are fine:
// the language allows it for APPROX_* (docs/engine-support.md).
func (mc *modelCheck) checkEngine(d dialect.Dialect) {
	for ds := range mc.fieldExprs {
		for f, ce := range mc.fieldExprs[ds] {
			if !ce.ok {
				continue
			}
			owner := mc.m.Datasets[ds].Name + "." + mc.m.Datasets[ds].Fields[f].Name
			for _, u := range Unsupported(ce.node, d) {
				mc.errorf(CodeExprUnsupported, ce.path, "field %q: %s", owner, u.Error())
			}
		}
	}
	for i, cm := range mc.metricExprs {
		if !cm.ok {
			continue
		}
		for _, u := range Unsupported(cm.node, d) {
			mc.errorf(CodeExprUnsupported, cm.path, "metric %q: %s", mc.m.Metrics[i].Name, u.Error())
		}
	}
}

// CheckEngine is checkEngine for a compiled artifact, for callers that
// compiled without CompileOptions.Dialect and learn the engine later (the
// planner, the operator at bind time). Paths are the document paths of the
// dialect entries, relative to the semantic model (the artifact does not
// know its index in the document):
// `datasets[i].fields[j].expression.dialects[k].expression` and
// `metrics[i].expression.dialects[k].expression`.
func CheckEngine(art *Artifact, d dialect.Dialect) Problems {
	var probs Problems
	for i, ds := range art.Datasets {
		for j, f := range ds.Fields {
			for _, u := range Unsupported(f.Expr.Node, d) {
				probs = append(probs, Problem{Code: CodeExprUnsupported, Severity: SeverityError,
					Path:    fmt.Sprintf("datasets[%d].fields[%d].expression.dialects[%d].expression", i, j, dialectIndex(f.Dialects, f.Dialect)),
					Message: fmt.Sprintf("field %q: %s", ds.Name+"."+f.Name, u.Error())})
			}
		}
	}
	for i, m := range art.Metrics {
		for _, u := range Unsupported(m.Expr.Node, d) {
			probs = append(probs, Problem{Code: CodeExprUnsupported, Severity: SeverityError,
				Path:    fmt.Sprintf("metrics[%d].expression.dialects[%d].expression", i, dialectIndex(m.Dialects, m.Dialect)),
				Message: fmt.Sprintf("metric %q: %s", m.Name, u.Error())})
		}
	}
	return probs
}

// dialectIndex is the index of the entry for dialect d, the one compiled
// (validate_exprs.go picks the first entry of the chosen dialect).
func dialectIndex(es []ossie.DialectExpression, d ossie.Dialect) int {
	for i, e := range es {
		if e.Dialect == d {
			return i
		}
	}
	return 0
}

// Unsupported lists, once each, the calls in n (functions and TRY_CAST)
// that engine d cannot compute. Each call is rendered on its own with
// placeholder references, so every offending call is found, not only the
// first.
func Unsupported(n expr.Node, d dialect.Dialect) []*dialect.UnsupportedError {
	var out []*dialect.UnsupportedError
	seen := map[string]bool{}
	placeholder := func(r expr.Ref) (string, error) { return d.QuoteIdent(r.Name), nil }
	expr.Walk(n, func(x expr.Node) bool {
		switch x.(type) {
		case expr.Func, expr.Cast:
		default:
			return true
		}
		_, err := expr.Render(x, d, placeholder)
		var u *dialect.UnsupportedError
		if errors.As(err, &u) && !seen[u.Error()] {
			seen[u.Error()] = true
			out = append(out, u)
		}
		return true
	})
	return out
}
