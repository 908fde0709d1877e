package compiler

import (
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// MetricDatatype is the answer type of a metric (docs/query-semantics.md,
// "Answer types"): Declared is the document's datatype, Expr the type the
// metric's expression has, Answer the one the answer reports (Declared,
// else Expr; "" when the engine decides, as for AVG).
type MetricDatatype struct {
	Declared, Expr, Answer ossie.Datatype
}

// Integer reports whether the metric is an Integer expression answering
// Integer: the planner casts it to BIGINT, so that PostgreSQL (NUMERIC
// sums) and DuckDB (HUGEINT sums) answer the 64-bit integer Trino does.
func (t MetricDatatype) Integer() bool {
	return t.Expr == ossie.TypeInteger && t.Answer == ossie.TypeInteger
}

// MetricDatatypes types every metric of a: Integer for COUNT and for SUM,
// MIN and MAX of Integer fields, for a count of conversions, and for +, -, *, %, CASE and COALESCE of
// Integers; Float for /, a conversion rate and a period-over-period
// ratio; Decimal for arithmetic mixing Integer and Decimal; "" where the
// engine decides (AVG, most functions). Field types are the artifact's:
// declared, or resolved from the engine when the model was bound
// (WithEngineTypes). The engines disagree on the SQL type of the same
// expression (SUM of a BIGINT is NUMERIC on PostgreSQL, HUGEINT on DuckDB,
// BIGINT on Trino); the model decides instead.
func MetricDatatypes(a *Artifact) map[string]MetricDatatype {
	in := &typer{a: a, fields: map[string]ossie.Datatype{}, visiting: map[string]bool{}}
	for _, ds := range a.Datasets {
		for _, f := range ds.Fields {
			in.fields[ds.Name+"."+f.Name] = f.Datatype
		}
	}
	out := make(map[string]MetricDatatype, len(a.Metrics))
	for i := range a.Metrics {
		m := &a.Metrics[i]
		t := MetricDatatype{Declared: m.Datatype, Expr: in.exprDatatype(m)}
		t.Answer = t.Declared
		if t.Answer == "" {
			t.Answer = t.Expr
		}
		out[m.Name] = t
	}
	return out
}

// typer infers expression types over one artifact.
type typer struct {
	a        *Artifact
	fields   map[string]ossie.Datatype // "dataset.field" → datatype
	visiting map[string]bool           // metrics being typed (cycles)
}

// nullType is the type of a NULL literal while inferring: it joins any
// other type (a CASE without ELSE).
const nullType ossie.Datatype = "null"

// exprDatatype is the type metric m's expression has (MetricDatatypes).
func (p *typer) exprDatatype(m *ArtifactMetric) ossie.Datatype {
	if m.Type.CountsConversions() {
		return ossie.TypeInteger
	}
	if m.Type != nil && (m.Type.Type == MetricConversion || m.Type.Type == MetricPeriodOver && m.Type.Output == "ratio") {
		return ossie.TypeFloat
	}
	if p.visiting[m.Name] {
		return ""
	}
	p.visiting[m.Name] = true
	defer delete(p.visiting, m.Name)
	t := p.nodeDatatype(m.Expr.Node)
	if t == nullType {
		return ""
	}
	return t
}

// nodeDatatype is the type of one expression node, nullType for NULL.
func (p *typer) nodeDatatype(n expr.Node) ossie.Datatype {
	switch n := n.(type) {
	case expr.Ref:
		if n.Qualifier == "" {
			if dep := p.a.Metric(n.Name); dep != nil {
				return p.metricDatatype(dep)
			}
			return ""
		}
		if t := p.fields[n.Qualifier+"."+n.Name]; t != ossie.TypeOpaque {
			return t
		}
	case expr.Literal:
		switch n.Kind {
		case expr.LitNull:
			return nullType
		case expr.LitNumber:
			if strings.ContainsAny(n.Value, ".eE") {
				return ossie.TypeDecimal
			}
			return ossie.TypeInteger
		case expr.LitString:
			return ossie.TypeString
		case expr.LitBool:
			return ossie.TypeBoolean
		}
	case expr.Unary:
		if n.Op == "-" || n.Op == "+" {
			return p.nodeDatatype(n.X)
		}
	case expr.Binary:
		switch n.Op {
		case "/":
			return ossie.TypeFloat // Divide casts both sides to DOUBLE
		case "+", "-", "*", "%":
			return arithmetic(p.nodeDatatype(n.L), p.nodeDatatype(n.R))
		}
	case expr.Case:
		t := nullType
		for _, w := range n.Whens {
			t = joinType(t, p.nodeDatatype(w.Then))
		}
		if n.Else != nil {
			t = joinType(t, p.nodeDatatype(n.Else))
		}
		return t
	case expr.Cast:
		switch n.Type {
		case "BIGINT", "INTEGER":
			return ossie.TypeInteger
		case "DOUBLE":
			return ossie.TypeFloat
		case "DECIMAL":
			return ossie.TypeDecimal
		}
	case expr.Func:
		switch n.Name {
		case "COUNT":
			return ossie.TypeInteger
		case "SUM", "MIN", "MAX", "ABS":
			if len(n.Args) == 1 {
				t := p.nodeDatatype(n.Args[0])
				if t == nullType || n.Name == "SUM" && !numeric(t) {
					return ""
				}
				return t
			}
		case "COALESCE":
			t := nullType
			for _, a := range n.Args {
				t = joinType(t, p.nodeDatatype(a))
			}
			return t
		}
	}
	return ""
}

// metricDatatype is the answer type of a metric: declared, else its
// expression's.
func (p *typer) metricDatatype(m *ArtifactMetric) ossie.Datatype {
	if m.Datatype != "" {
		return m.Datatype
	}
	return p.exprDatatype(m)
}

func numeric(t ossie.Datatype) bool {
	return t == ossie.TypeInteger || t == ossie.TypeDecimal || t == ossie.TypeFloat
}

// arithmetic is the type of l op r for + - * %: Integer of two Integers,
// Float when either is, else Decimal; "" when either is not a number.
func arithmetic(l, r ossie.Datatype) ossie.Datatype {
	switch {
	case l == nullType || r == nullType:
		return joinType(l, r)
	case !numeric(l) || !numeric(r):
		return ""
	case l == ossie.TypeInteger && r == ossie.TypeInteger:
		return ossie.TypeInteger
	case l == ossie.TypeFloat || r == ossie.TypeFloat:
		return ossie.TypeFloat
	}
	return ossie.TypeDecimal
}

// joinType is the common type of two branches (CASE, COALESCE): the same
// type, NULL taking the other's; "" when they differ.
func joinType(a, b ossie.Datatype) ossie.Datatype {
	switch {
	case a == nullType:
		return b
	case b == nullType, a == b:
		return a
	}
	return ""
}
