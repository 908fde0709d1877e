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
		if n.Op == "||" || n.Op == "%" {
			if s, ok := r.d.Func(n.Op, []string{l, rr}); ok {
				b.WriteString(s)
				return nil
			}
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
		if n.Type == "DECIMAL" {
			p, sc := n.Precision, n.Scale
			if p == 0 {
				p, sc = defaultDecimalPrecision, defaultDecimalScale
			}
			t = fmt.Sprintf("%s(%d,%d)", t, p, sc)
		}
		if n.Try {
			if err := r.check("TRY_CAST", []string{x, t}); err != nil {
				return err
			}
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

// defaultDecimal is the precision and scale of a bare DECIMAL/NUMERIC cast.
// Engines disagree on the default (DuckDB 18,3; PostgreSQL unbounded; Trino
// 38,0), so the language pins one: 38 digits, 9 after the point.
const defaultDecimalPrecision, defaultDecimalScale = 38, 9

// check turns a dialect's Unsupported answer into an error.
func (r renderer) check(name string, args []string) error {
	if s := r.d.Support(name, args); s.Level == dialect.Unsupported {
		return &dialect.UnsupportedError{Func: name, Engine: r.d.Name(), Why: s.Note}
	}
	return nil
}

// withoutFilter rewrites AGG(x) FILTER (WHERE c) as AGG(CASE WHEN c THEN x
// END) (and COUNT(*) as COUNT(CASE WHEN c THEN 1 END)): every aggregate of
// the language ignores NULL inputs, so the two mean the same, and the
// dialect then sees one shape only.
func withoutFilter(f Func) Func {
	if f.Filter == nil {
		return f
	}
	only := func(x Node) Node { return Case{Whens: []When{{Cond: f.Filter, Then: x}}} }
	g := f
	g.Filter = nil
	switch {
	case f.Star:
		g.Star = false
		g.Args = []Node{only(Literal{Kind: LitNumber, Value: "1"})}
	case f.WithinGroup != nil:
		g.WithinGroup = only(f.WithinGroup)
	case len(f.Args) > 0:
		g.Args = append([]Node{only(f.Args[0])}, f.Args[1:]...)
	}
	return g
}

// call renders a function call. Every call goes through the dialect: its
// Support answer first (Unsupported is an error), then its spelling, and
// only when it has none the generic NAME(args) form, which all three
// engines read the same way.
func (r renderer) call(b *strings.Builder, f Func) error {
	// Trees also come from artifacts (JSON), not only from Parse: a call
	// outside the catalogue or with the wrong shape is an error, never an
	// index out of range below.
	fi, ok := Lookup(f.Name)
	if !ok || fi.Name != f.Name {
		return fmt.Errorf("unknown function %s", f.Name)
	}
	n := len(f.Args)
	percentile := f.Name == "PERCENTILE_CONT" || f.Name == "PERCENTILE_DISC"
	if !f.Star && (n < fi.MinArgs || fi.MaxArgs >= 0 && n > fi.MaxArgs) || f.Star && (n > 0 || f.Name != "COUNT") ||
		percentile != (f.WithinGroup != nil) {
		return fmt.Errorf("%s: wrong arguments", f.Name)
	}
	f = withoutFilter(f)
	args, err := r.list(f.Args)
	if err != nil {
		return err
	}
	if f.WithinGroup != nil {
		// PERCENTILE_CONT/DISC(p) WITHIN GROUP (ORDER BY x) reaches the
		// dialect as (p, x).
		x, err := r.str(f.WithinGroup)
		if err != nil {
			return err
		}
		args = append(args, x)
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
	if err := r.check(f.Name, args); err != nil {
		return err
	}
	if f.Distinct || f.Star {
		// COUNT(*) and COUNT/SUM/AVG/MIN/MAX(DISTINCT x) are spelled the
		// same on every engine (the parser allows DISTINCT on these only).
		b.WriteString(f.Name + "(")
		if f.Star {
			b.WriteByte('*')
		} else {
			b.WriteString("DISTINCT " + strings.Join(args, ", "))
		}
		b.WriteByte(')')
		return nil
	}
	switch f.Name {
	case "IF", "IFF":
		fmt.Fprintf(b, "CASE WHEN %s THEN %s ELSE %s END", args[0], args[1], args[2])
		return nil
	case "NVL2":
		fmt.Fprintf(b, "CASE WHEN %s IS NOT NULL THEN %s ELSE %s END", args[0], args[1], args[2])
		return nil
	case "IFNULL", "NVL":
		return r.call(b, Func{Name: "COALESCE", Args: f.Args})
	case "ZEROIFNULL":
		return r.call(b, Func{Name: "COALESCE", Args: []Node{f.Args[0], Literal{Kind: LitNumber, Value: "0"}}})
	case "NULLIFZERO":
		fmt.Fprintf(b, "NULLIF(%s, 0)", args[0])
		return nil
	case "POSITION":
		return r.call(b, Func{Name: "CHARINDEX", Args: f.Args})
	case "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_TIME":
		if s, ok := r.d.Func(f.Name, args); ok {
			b.WriteString(s)
			return nil
		}
		b.WriteString(f.Name)
		return nil
	}
	if s, ok := r.d.Func(f.Name, args); ok {
		b.WriteString(s)
		return nil
	}
	switch f.Name {
	case "EXTRACT":
		fmt.Fprintf(b, "EXTRACT(%s FROM %s)", args[0], args[1])
		return nil
	case "CHARINDEX":
		if len(args) == 2 {
			fmt.Fprintf(b, "strpos(%s, %s)", args[1], args[0])
			return nil
		}
	case "PERCENTILE_CONT", "PERCENTILE_DISC":
		fmt.Fprintf(b, "%s(%s) WITHIN GROUP (ORDER BY %s)", f.Name, args[0], args[1])
		return nil
	}
	b.WriteString(f.Name + "(" + strings.Join(args, ", ") + ")")
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
