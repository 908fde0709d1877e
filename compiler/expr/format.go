package expr

import (
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Operator precedence, lowest first, as in PostgreSQL's grammar (gram.y
// precedence declarations), which is the grammar Parse reads.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs     // IS NULL, IS [NOT] DISTINCT FROM
	precCmp    // = <> < <= > >=
	precLike   // BETWEEN, IN, LIKE, ILIKE
	precConcat // || (PostgreSQL's generic operator level)
	precAdd    // + -
	precMul    // * / %
	precUnary  // unary - +
	precAtom
)

func precOf(n Node) int {
	switch x := n.(type) {
	case Binary:
		switch x.Op {
		case "OR":
			return precOr
		case "AND":
			return precAnd
		case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
			return precIs
		case "=", "<>", "!=", "<", "<=", ">", ">=":
			return precCmp
		case "||":
			return precConcat
		case "+", "-":
			return precAdd
		case "*", "/", "%":
			return precMul
		}
		return precOr // unknown operator: parenthesise wherever it appears
	case Unary:
		if x.Op == "NOT" {
			return precNot
		}
		return precUnary
	case IsNull:
		return precIs
	case Between, In, Like:
		return precLike
	}
	return precAtom
}

// leftAssoc reports whether chains of the operator need no parentheses on
// the left (a - b - c); the comparison and IS levels are non-associative.
func leftAssoc(p int) bool {
	switch p {
	case precOr, precAnd, precConcat, precAdd, precMul:
		return true
	}
	return false
}

// Format prints n as canonical Ossie SQL text: upper-case keywords and
// function names, single spaces, parentheses only where precedence needs
// them, identifiers quoted when they were quoted or cannot be written bare.
// For every tree Parse returns, Parse(Format(n)) returns an equal tree. A
// nil Node formats as "".
func Format(n Node) string {
	var b strings.Builder
	format(&b, n, 0)
	return b.String()
}

func format(b *strings.Builder, n Node, minPrec int) {
	n = deref(n)
	if n == nil {
		return
	}
	if precOf(n) < minPrec {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch x := n.(type) {
	case Ref:
		if x.Qualifier != "" {
			b.WriteString(ident(x.Qualifier, x.Quoted, false))
			b.WriteByte('.')
			b.WriteString(ident(x.Name, x.Quoted, true))
		} else {
			b.WriteString(ident(x.Name, x.Quoted, false))
		}
	case Literal:
		formatLiteral(b, x)
	case Keyword:
		if isWord(x.Name) {
			b.WriteString(x.Name)
		} else {
			b.WriteString(quoteString(x.Name))
		}
	case Unary:
		if x.Op == "NOT" {
			b.WriteString("NOT ")
			format(b, x.X, precNot)
			return
		}
		b.WriteString(x.Op)
		inner := Format(x.X)
		// "--" would start a comment and "-5" would fold into a literal.
		if precOf(deref(x.X)) < precUnary || strings.HasPrefix(inner, "-") || strings.HasPrefix(inner, "+") {
			inner = "(" + inner + ")"
		}
		b.WriteString(inner)
	case Binary:
		p := precOf(x)
		left, right := p+1, p+1
		if leftAssoc(p) {
			left = p
		} else {
			// Comparisons and IS: PostgreSQL would bind BETWEEN, IN and LIKE
			// tighter without parentheses, but readers may not.
			left, right = precConcat, precConcat
		}
		format(b, x.L, left)
		b.WriteString(" " + x.Op + " ")
		format(b, x.R, right)
	case Between:
		format(b, x.X, precConcat)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		format(b, x.Lo, precConcat)
		b.WriteString(" AND ")
		format(b, x.Hi, precConcat)
	case In:
		format(b, x.X, precConcat)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		for i, it := range x.List {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, it, 0)
		}
		b.WriteByte(')')
	case Like:
		format(b, x.X, precConcat)
		if x.Not {
			b.WriteString(" NOT")
		}
		if x.ILike {
			b.WriteString(" ILIKE ")
		} else {
			b.WriteString(" LIKE ")
		}
		format(b, x.Pattern, precConcat)
	case IsNull:
		format(b, x.X, precConcat)
		if x.Not {
			b.WriteString(" IS NOT NULL")
		} else {
			b.WriteString(" IS NULL")
		}
	case Case:
		b.WriteString("CASE")
		if deref(x.Operand) != nil {
			b.WriteByte(' ')
			format(b, x.Operand, 0)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			format(b, w.Cond, 0)
			b.WriteString(" THEN ")
			format(b, w.Then, 0)
		}
		if deref(x.Else) != nil {
			b.WriteString(" ELSE ")
			format(b, x.Else, 0)
		}
		b.WriteString(" END")
	case Cast:
		formatCast(b, x)
	case Func:
		formatFunc(b, x)
	}
}

func formatLiteral(b *strings.Builder, l Literal) {
	switch l.Kind {
	case LitNull:
		b.WriteString("NULL")
	case LitBool:
		if l.Value == "true" {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case LitNumber:
		if isNumber(l.Value) {
			b.WriteString(l.Value)
		} else {
			// Never emit unchecked text as code.
			b.WriteString(quoteString(l.Value))
		}
	default:
		b.WriteString(quoteString(l.Value))
	}
}

// isNumber accepts the numeric literal spellings PostgreSQL produces
// (decimal, exponent, hex/octal/binary with underscores), optionally
// negated; signs elsewhere only after an exponent marker.
func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == '.') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '.':
		case (c == '+' || c == '-') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return true
}

func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// isWord reports an upper-case keyword-like name (function names, date
// parts, type names).
func isWord(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ident writes an identifier: quoted when it was quoted, and otherwise
// bare when PostgreSQL reads it back unchanged (lower case, identifier
// characters, and — except after a dot, where any keyword is a name — not a
// reserved keyword).
func ident(name string, quoted, afterDot bool) string {
	if quoted || !bareIdent(name) || !afterDot && reservedWord(name) {
		return quoteIdent(name)
	}
	return name
}

func bareIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_', c >= 0x80:
		case (c >= '0' && c <= '9' || c == '$') && i > 0:
		default:
			return false
		}
	}
	return true
}

var reservedCache sync.Map // name → bool

// reservedWord reports whether PostgreSQL's scanner classifies name as a
// keyword that cannot be a bare column name.
func reservedWord(name string) bool {
	if v, ok := reservedCache.Load(name); ok {
		return v.(bool)
	}
	res := false
	if sr, err := pg_query.Scan(name); err == nil && len(sr.GetTokens()) == 1 {
		switch sr.GetTokens()[0].GetKeywordKind() {
		case pg_query.KeywordKind_RESERVED_KEYWORD, pg_query.KeywordKind_TYPE_FUNC_NAME_KEYWORD:
			res = true
		}
	} else {
		res = true
	}
	reservedCache.Store(name, res)
	return res
}

func formatCast(b *strings.Builder, c Cast) {
	typ := c.Type
	if !isWord(typ) {
		typ = quoteIdent(typ)
	}
	if typ == "DECIMAL" && c.Precision > 0 {
		typ += "(" + strconv.Itoa(c.Precision)
		if c.Scale != 0 {
			typ += ", " + strconv.Itoa(c.Scale)
		}
		typ += ")"
	}
	if lit, ok := deref(c.X).(Literal); ok && lit.Kind == LitString && !c.Try &&
		(typ == "DATE" || typ == "TIMESTAMP" || typ == "TIME") {
		b.WriteString(typ + " " + quoteString(lit.Value))
		return
	}
	if c.Try {
		b.WriteString("TRY_CAST(")
	} else {
		b.WriteString("CAST(")
	}
	format(b, c.X, 0)
	b.WriteString(" AS " + typ + ")")
}

func formatFunc(b *strings.Builder, f Func) {
	name := f.Name
	if !isWord(name) {
		name = quoteIdent(name)
	}
	switch {
	case len(f.Args) == 0 && !f.Star && (name == "CURRENT_DATE" || name == "CURRENT_TIME" || name == "CURRENT_TIMESTAMP"):
		b.WriteString(name)
		return
	case name == "EXTRACT" && len(f.Args) == 2:
		b.WriteString("EXTRACT(")
		format(b, f.Args[0], 0)
		b.WriteString(" FROM ")
		format(b, f.Args[1], 0)
		b.WriteByte(')')
		return
	case name == "POSITION" && len(f.Args) == 2:
		// POSITION's operands are PostgreSQL b_exprs: no IN/LIKE/AND inside.
		b.WriteString("POSITION(")
		format(b, f.Args[0], precConcat)
		b.WriteString(" IN ")
		format(b, f.Args[1], precConcat)
		b.WriteByte(')')
		return
	}
	b.WriteString(name + "(")
	switch {
	case f.Star:
		b.WriteByte('*')
	default:
		if f.Distinct {
			b.WriteString("DISTINCT ")
		}
		for i, a := range f.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, a, 0)
		}
	}
	b.WriteByte(')')
	if deref(f.WithinGroup) != nil {
		b.WriteString(" WITHIN GROUP (ORDER BY ")
		format(b, f.WithinGroup, 0)
		b.WriteByte(')')
	}
	if deref(f.Filter) != nil {
		b.WriteString(" FILTER (WHERE ")
		format(b, f.Filter, 0)
		b.WriteByte(')')
	}
}
