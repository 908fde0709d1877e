package plan

import (
	"fmt"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// windowQualifier marks a Ref, inside a post-window metric's expression,
// to a metric column of the window's output ("w"); like measureQualifier
// it cannot collide with a dataset name.
const windowQualifier = "\x00window"

// postWindow is a metric computed from other metrics after the window
// (docs/metrics.md, "Typed metrics inside other metrics"): expr combines
// the window's columns deps, typed metrics windowed along time and plain
// metrics at the query grain, so revenue_ytd / revenue_prior_year_ytd
// divides the two year-to-date sums of each period, not per-period sums.
type postWindow struct {
	expr expr.Node
	deps []string
}

// windowed reports whether metric type t is computed by the window node
// (semi-additive and conversion metrics are computed per group).
func windowed(t *compiler.MetricType) bool {
	return t != nil && t.Type != compiler.MetricSemi && t.Type != compiler.MetricConversion
}

// reachesWindowed reports whether plain metric m refers, directly or
// through plain metrics, to a windowed typed metric.
func (p *Planner) reachesWindowed(m *compiler.ArtifactMetric, seen map[string]bool) bool {
	if m.Type != nil || seen[m.Name] {
		return false
	}
	seen[m.Name] = true
	for _, r := range expr.Refs(m.Expr.Node) {
		if r.Qualifier != "" {
			continue
		}
		if dep := p.art.Metric(r.Name); dep != nil && (windowed(dep.Type) || p.reachesWindowed(dep, seen)) {
			return true
		}
	}
	return false
}

// postOf builds the post-window plan of plain metric m, which
// reachesWindowed: references to typed and to other plain metrics become
// window columns, references to metrics that are themselves post-window
// are inlined. An aggregate call of m's own has no window column to read
// (the compiler refuses it with OSS2043).
func (p *Planner) postOf(m *compiler.ArtifactMetric, visiting map[string]bool) (*postWindow, *compiler.Problem) {
	if visiting[m.Name] {
		return nil, &compiler.Problem{Code: compiler.CodeMetricCycle, Severity: compiler.SeverityError, Path: "metrics." + m.Name, Message: "metric " + m.Name + " refers to itself"}
	}
	visiting[m.Name] = true
	defer delete(visiting, m.Name)
	pw := &postWindow{}
	var prob *compiler.Problem
	fail := func(code, msg string) {
		if prob == nil {
			prob = &compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: "metrics." + m.Name, Message: msg}
		}
	}
	use := func(name string) expr.Node {
		for _, d := range pw.deps {
			if d == name {
				return expr.Ref{Qualifier: windowQualifier, Name: name}
			}
		}
		pw.deps = append(pw.deps, name)
		return expr.Ref{Qualifier: windowQualifier, Name: name}
	}
	pw.expr = expr.Rewrite(m.Expr.Node, func(n expr.Node) expr.Node {
		switch n := n.(type) {
		case expr.Ref:
			if n.Qualifier != "" {
				fail(compiler.CodeMetricTypeRef, fmt.Sprintf("metric %s combines typed metrics with the field %s.%s; a metric over typed metrics combines metrics only", m.Name, n.Qualifier, n.Name))
				return n
			}
			dep := p.art.Metric(n.Name)
			switch {
			case dep == nil:
				fail(compiler.CodeUnknownReference, fmt.Sprintf("metric %s refers to %q, which is not a metric", m.Name, n.Name))
				return n
			case dep.Type == nil && p.reachesWindowed(dep, map[string]bool{}):
				sub, pr := p.postOf(dep, visiting)
				if pr != nil {
					fail(pr.Code, pr.Message)
					return n
				}
				for _, d := range sub.deps {
					use(d)
				}
				return sub.expr
			case dep.Type != nil && !windowed(dep.Type):
				fail(compiler.CodeMetricTypeRef, fmt.Sprintf("metric %s refers to %s, a %s metric, next to windowed metrics", m.Name, dep.Name, dep.Type.Type))
				return n
			}
			return use(dep.Name)
		case expr.Func:
			if info, ok := expr.Lookup(n.Name); ok && info.Aggregate {
				fail(compiler.CodeMetricTypeRef, fmt.Sprintf("metric %s aggregates (%s) next to typed metrics; a metric over typed metrics combines metrics only", m.Name, n.Name))
			}
		}
		return n
	})
	return pw, prob
}

// windowedRef is, for a windowed typed metric whose expression is only a
// reference to another windowed typed metric, that metric's name; ""
// otherwise (the compiler allows one such level, OSS2043).
func (p *Planner) windowedRef(m *compiler.ArtifactMetric) string {
	if !windowed(m.Type) {
		return ""
	}
	r, ok := m.Expr.Node.(expr.Ref)
	if !ok || r.Qualifier != "" {
		return ""
	}
	if dep := p.art.Metric(r.Name); dep != nil && windowed(dep.Type) {
		return dep.Name
	}
	return ""
}
