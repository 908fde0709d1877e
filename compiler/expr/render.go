package expr

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// RefFunc renders a reference as SQL (e.g. `"orders"."amount"`). It decides
// what a Ref means in its context: a physical column in a field, a field or
// a measure in a metric.
type RefFunc func(Ref) (string, error)

// Render prints n as SQL for dialect d. Every operator is parenthesised so
// precedence never depends on the engine; `/` is real division with NULL on
// a zero divisor (DESIGN.md section 5); literals go through d.QuoteString.
// Errors come only from refs or from a construct d cannot express.
func Render(n Node, d dialect.Dialect, refs RefFunc) (string, error) {
	r := renderer{d: d, refs: refs}
	var b strings.Builder
	if err := r.node(&b, n); err != nil {
		return "", err
	}
	return b.String(), nil
}

type renderer struct {
	d    dialect.Dialect
	refs RefFunc
}

func (r renderer) str(n Node) (string, error) {
	var b strings.Builder
	err := r.node(&b, n)
	return b.String(), err
}

func (r renderer) list(ns []Node) ([]string, error) {
	out := make([]string, len(ns))
	for i, n := range ns {
		s, err := r.str(n)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

var sqlOps = map[string]string{
	"+": "+", "-": "-", "*": "*", "%": "%", "||": "||",
	"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
	"AND": "AND", "OR": "OR",
	"IS DISTINCT FROM": "IS DISTINCT FROM", "IS NOT DISTINCT FROM": "IS NOT DISTINCT FROM",
}

func (r renderer) node(b *strings.Builder, n Node) error {
	switch n := n.(type) {
	case nil:
		return fmt.Errorf("empty expression")
	case Ref:
		s, err := r.refs(n)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case Literal:
		switch n.Kind {
		case LitNumber:
			b.WriteString(n.Value)
		case LitString:
			b.WriteString(r.d.QuoteString(n.Value))
		case LitBool:
			if n.Value == "true" {
				b.WriteString("TRUE")
			} else {
				b.WriteString("FALSE")
			}
		default:
			b.WriteString("NULL")
		}
	case Keyword:
		b.WriteString(n.Name)
	case Unary:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		if n.Op == "NOT" {
			fmt.Fprintf(b, "(NOT %s)", x)
		} else {
			fmt.Fprintf(b, "(%s%s)", n.Op, x)
		}
	case Binary:
		l, err := r.str(n.L)
		if err != nil {
			return err
		}
		rr, err := r.str(n.R)
		if err != nil {
			return err
		}
		if n.Op == "/" {
			b.WriteString(r.d.Divide(l, rr))
			return nil
		}
		op, ok := sqlOps[n.Op]
		if !ok {
			return fmt.Errorf("operator %q cannot be rendered", n.Op)
		}
		fmt.Fprintf(b, "(%s %s %s)", l, op, rr)
	case Between:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		lo, err := r.str(n.Lo)
		if err != nil {
			return err
		}
		hi, err := r.str(n.Hi)
		if err != nil {
			return err
		}
		not := ""
		if n.Not {
			not = "NOT "
		}
		fmt.Fprintf(b, "(%s %sBETWEEN %s AND %s)", x, not, lo, hi)
	case In:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		items, err := r.list(n.List)
		if err != nil {
			return err
		}
		not := ""
		if n.Not {
			not = "NOT "
		}
		fmt.Fprintf(b, "(%s %sIN (%s))", x, not, strings.Join(items, ", "))
	case Like:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		p, err := r.str(n.Pattern)
		if err != nil {
			return err
		}
		not := ""
		if n.Not {
			not = "NOT "
		}
		if n.ILike {
			// Portable case-insensitive LIKE: Trino has no ILIKE.
			fmt.Fprintf(b, "(lower(%s) %sLIKE lower(%s))", x, not, p)
		} else {
			fmt.Fprintf(b, "(%s %sLIKE %s)", x, not, p)
		}
	case IsNull:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		if n.Not {
			fmt.Fprintf(b, "(%s IS NOT NULL)", x)
		} else {
			fmt.Fprintf(b, "(%s IS NULL)", x)
		}
	case Case:
		b.WriteString("CASE")
		if n.Operand != nil {
			s, err := r.str(n.Operand)
			if err != nil {
				return err
			}
			b.WriteString(" " + s)
		}
		for _, w := range n.Whens {
			c, err := r.str(w.Cond)
			if err != nil {
				return err
			}
			t, err := r.str(w.Then)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, " WHEN %s THEN %s", c, t)
		}
		if n.Else != nil {
			e, err := r.str(n.Else)
			if err != nil {
				return err
			}
			b.WriteString(" ELSE " + e)
		}
		b.WriteString(" END")
	case Cast:
		x, err := r.str(n.X)
		if err != nil {
			return err
		}
		t := r.d.TypeName(n.Type)
		if n.Type == "DECIMAL" && n.Precision > 0 {
			t = fmt.Sprintf("%s(%d,%d)", t, n.Precision, n.Scale)
		}
		if n.Try {
			if s, ok := r.d.Func("TRY_CAST", []string{x, t}); ok {
				b.WriteString(s)
				return nil
			}
			fmt.Fprintf(b, "TRY_CAST(%s AS %s)", x, t)
			return nil
		}
		fmt.Fprintf(b, "CAST(%s AS %s)", x, t)
	case Func:
		return r.call(b, n)
	default:
		return fmt.Errorf("expression node %T cannot be rendered", n)
	}
	return nil
}

func (r renderer) call(b *strings.Builder, f Func) error {
	args, err := r.list(f.Args)
	if err != nil {
		return err
	}
	// The date part of these functions may be written as a bare keyword or
	// a string; engines want a string for DATE_TRUNC/DATE_PART and a bare
	// word for the rest. Only known parts pass, so no text is injected.
	switch f.Name {
	case "DATE_TRUNC", "DATE_PART", "DATEADD", "DATEDIFF", "EXTRACT":
		if len(f.Args) > 0 {
			part, ok := datePart(f.Args[0])
			if !ok {
				return fmt.Errorf("%s: unknown date part", f.Name)
			}
			if f.Name == "DATE_TRUNC" || f.Name == "DATE_PART" {
				args[0] = r.d.QuoteString(strings.ToLower(part))
			} else {
				args[0] = part
			}
		}
	}
	switch f.Name {
	case "IF", "IFF":
		if len(args) == 3 {
			fmt.Fprintf(b, "CASE WHEN %s THEN %s ELSE %s END", args[0], args[1], args[2])
			return nil
		}
	case "EXTRACT":
		if len(args) == 2 {
			if s, ok := r.d.Func(f.Name, args); ok {
				b.WriteString(s)
				return nil
			}
			fmt.Fprintf(b, "EXTRACT(%s FROM %s)", args[0], args[1])
			return nil
		}
	case "POSITION":
		if len(args) == 2 {
			fmt.Fprintf(b, "strpos(%s, %s)", args[1], args[0])
			return nil
		}
	case "CHARINDEX":
		if len(args) == 2 {
			fmt.Fprintf(b, "strpos(%s, %s)", args[1], args[0])
			return nil
		}
	case "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_TIME":
		if len(args) == 0 {
			b.WriteString(f.Name)
			return nil
		}
	}
	if f.Filter == nil && f.WithinGroup == nil && !f.Distinct && !f.Star {
		if s, ok := r.d.Func(f.Name, args); ok {
			b.WriteString(s)
			return nil
		}
	}
	b.WriteString(f.Name)
	b.WriteByte('(')
	switch {
	case f.Star:
		b.WriteByte('*')
	default:
		if f.Distinct {
			b.WriteString("DISTINCT ")
		}
		b.WriteString(strings.Join(args, ", "))
	}
	b.WriteByte(')')
	if f.WithinGroup != nil {
		s, err := r.str(f.WithinGroup)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, " WITHIN GROUP (ORDER BY %s)", s)
	}
	if f.Filter != nil {
		s, err := r.str(f.Filter)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, " FILTER (WHERE %s)", s)
	}
	return nil
}

// datePart returns the upper-case date part named by a Keyword or a string
// literal, if it is one of DateParts.
func datePart(n Node) (string, bool) {
	var s string
	switch n := n.(type) {
	case Keyword:
		s = n.Name
	case Literal:
		if n.Kind != LitString {
			return "", false
		}
		s = n.Value
	default:
		return "", false
	}
	s = strings.ToUpper(s)
	for _, p := range DateParts {
		if p == s {
			return s, true
		}
	}
	return "", false
}
