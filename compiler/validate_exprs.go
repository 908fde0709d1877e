package compiler

import (
	"fmt"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// parsePortable selects the portable dialect entry of an expression
// (OSSIE_SQL_2026 preferred, then ANSI_SQL; OSSIE.md "Dialects") and parses
// it under the bounded grammar; without one, a SQL vendor entry that means
// the same is used (validate_vendor.go). path is the `...expression` path; parse
// problems are reported at `...expression.dialects[i].expression`. what and
// name describe the owner for messages ("field", "orders.amount").
func (mc *modelCheck) parsePortable(path, what, name string, e ossie.Expression) checkedExpr {
	if len(e.Dialects) == 0 {
		mc.errorf(CodeEmpty, path+".dialects", "%s %q: expression lists no dialects", what, name)
		return checkedExpr{}
	}
	chosen, ok := e.Portable()
	if !ok {
		if ce, tried := mc.parseVendor(path, what, name, e); tried {
			return ce
		}
		mc.errorf(CodeNoPortableDialect, path, "%s %q has no %s expression to translate; it has %s (other dialects are kept but not executed)", what, name, portableNames(), dialectNames(e.Dialects))
		return checkedExpr{}
	}
	idx := 0
	for i, d := range e.Dialects {
		if d.Dialect == chosen.Dialect {
			idx = i
			break
		}
	}
	epath := fmt.Sprintf("%s.dialects[%d].expression", path, idx)
	pe, ok := mc.parsed[chosen.Expression]
	if !ok {
		pe.node, pe.errs = expr.Parse(chosen.Expression)
	}
	if len(pe.errs) > 0 {
		for _, e := range pe.errs {
			code := e.Code
			if code == "" {
				code = CodeExprSyntax
			}
			mc.errorf(code, epath, "%s %q: %s (at offset %d of %q)", what, name, e.Message, e.Offset, chosen.Expression)
		}
		return checkedExpr{}
	}
	if pe.node == nil {
		mc.errorf(CodeExprSyntax, epath, "%s %q: expression is empty", what, name)
		return checkedExpr{}
	}
	return checkedExpr{ok: true, dialect: chosen.Dialect, sql: chosen.Expression, node: pe.node, path: epath}
}

// checkFields parses every field expression and enforces that fields are
// scalar (no aggregate anywhere, CodeFieldAggregates) over physical columns
// of their own source: a reference is a bare column, or qualified by the
// field's own dataset name (the qualifier is dropped in the compiled tree).
func (mc *modelCheck) checkFields() {
	mc.fieldExprs = make([][]checkedExpr, len(mc.m.Datasets))
	for d := range mc.m.Datasets {
		ds := &mc.m.Datasets[d]
		mc.fieldExprs[d] = make([]checkedExpr, len(ds.Fields))
		for f := range ds.Fields {
			fl := &ds.Fields[f]
			path := mc.fieldPath(d, f) + ".expression"
			owner := ds.Name + "." + fl.Name
			ce := mc.parsePortable(path, "field", owner, fl.Expression)
			if !ce.ok {
				continue
			}
			epath := ce.path
			bad := false
			expr.Walk(ce.node, func(n expr.Node) bool {
				if f, ok := n.(expr.Func); ok && isAggregate(f) {
					bad = true
					mc.errorf(CodeFieldAggregates, epath, "field %q uses aggregate %s; fields are per-row (scalar) expressions — define a metric for the aggregate", owner, f.Name)
					return false
				}
				return !bad
			})
			node := expr.Rewrite(ce.node, func(n expr.Node) expr.Node {
				v, ok := n.(expr.Ref)
				if !ok || v.Qualifier == "" {
					return n
				}
				if v.Qualifier == ds.Name || (!v.Quoted && equalFold(v.Qualifier, ds.Name)) {
					v.Qualifier = ""
					return v
				}
				bad = true
				mc.errorf(CodeUnknownReference, epath, "field %q references %s.%s; a field expression reads only columns of its own dataset's source (write the bare column name)", owner, v.Qualifier, v.Name)
				return v
			})
			if bad {
				continue
			}
			ce.node = node
			mc.fieldExprs[d][f] = ce
		}
	}
}

// isAggregate reports whether a call is one of the language's aggregate
// functions (expr.Lookup knows which).
func isAggregate(f expr.Func) bool {
	info, ok := expr.Lookup(f.Name)
	return ok && info.Aggregate
}

func equalFold(a, b string) bool {
	return len(a) == len(b) && (a == b || lowerASCII(a) == lowerASCII(b))
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mapChildren returns a copy of n whose direct children are replaced by
// f(child); nil children stay nil. Leaves are returned as they are. Unlike
// expr.Rewrite (bottom-up) it lets the caller carry context downwards,
// which metric resolution needs: a reference means a field inside an
// aggregate and a metric outside.
func mapChildren(n expr.Node, f func(expr.Node) expr.Node) expr.Node {
	g := func(c expr.Node) expr.Node {
		if c == nil {
			return nil
		}
		return f(c)
	}
	list := func(cs []expr.Node) []expr.Node {
		if cs == nil {
			return nil
		}
		out := make([]expr.Node, len(cs))
		for i, c := range cs {
			out[i] = g(c)
		}
		return out
	}
	switch v := n.(type) {
	case expr.Unary:
		v.X = g(v.X)
		return v
	case expr.Binary:
		v.L, v.R = g(v.L), g(v.R)
		return v
	case expr.Between:
		v.X, v.Lo, v.Hi = g(v.X), g(v.Lo), g(v.Hi)
		return v
	case expr.In:
		v.X = g(v.X)
		v.List = list(v.List)
		return v
	case expr.Like:
		v.X, v.Pattern = g(v.X), g(v.Pattern)
		return v
	case expr.IsNull:
		v.X = g(v.X)
		return v
	case expr.Case:
		v.Operand = g(v.Operand)
		if v.Whens != nil {
			ws := make([]expr.When, len(v.Whens))
			for i, w := range v.Whens {
				ws[i] = expr.When{Cond: g(w.Cond), Then: g(w.Then)}
			}
			v.Whens = ws
		}
		v.Else = g(v.Else)
		return v
	case expr.Cast:
		v.X = g(v.X)
		return v
	case expr.Func:
		v.Args = list(v.Args)
		v.Filter = g(v.Filter)
		v.WithinGroup = g(v.WithinGroup)
		return v
	}
	return n
}
