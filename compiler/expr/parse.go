package expr

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"
)

// Error is one problem found in an expression. Code is a stable OSS3xxx
// code of compiler/codes.go (written as a literal because package compiler
// imports this package): OSS3001 syntax, OSS3002 construct outside the
// bounded grammar, OSS3003 unknown function, OSS3007 wrong argument count.
// Offset is the 0-based byte offset in the expression text where the
// problem starts.
type Error struct {
	Code    string
	Message string
	Offset  int
}

func (e Error) Error() string {
	return fmt.Sprintf("%s at offset %d: %s", e.Code, e.Offset, e.Message)
}

// Problem codes, mirrored from compiler/codes.go.
const (
	codeSyntax     = "OSS3001"
	codeNotAllowed = "OSS3002"
	codeUnknownFn  = "OSS3003"
	codeArity      = "OSS3007"
)

// wrapPrefix turns the expression into a statement pg_query can parse; every
// location it reports is shifted by its length.
const wrapPrefix = "SELECT "

// castTypes lists the canonical cast target names for messages.
const castTypes = "VARCHAR, INTEGER, BIGINT, DECIMAL(p,s), DOUBLE, BOOLEAN, DATE, TIMESTAMP, TIME"

// Parse parses one Ossie SQL expression (apache/ossie
// core-spec/expression_language.md, the bounded grammar of OSSIE.md) into a
// tree. It returns every problem it finds; when there is any problem the
// Node is nil, so a partially understood expression is never used. Text is
// parsed as the single target of `SELECT <text>` by the PostgreSQL parser;
// anything besides that one expression (a second statement, FROM, an alias,
// a subquery, a window) is refused, never ignored. Unquoted identifiers are
// folded to lower case (ASCII only, as PostgreSQL does) and are never
// truncated; quoted ones keep their exact text.
func Parse(text string) (Node, []Error) {
	if i := strings.IndexByte(text, 0); i >= 0 {
		return nil, []Error{{codeSyntax, "expression contains a NUL byte", i}}
	}
	if !utf8.ValidString(text) {
		i := 0
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, []Error{{codeSyntax, "expression is not valid UTF-8", i}}
	}
	p := &parser{text: text, src: wrapPrefix + text, tryCasts: map[int32]bool{}}
	scan, err := pg_query.Scan(p.src)
	if err != nil {
		return nil, []Error{p.syntaxError(err)}
	}
	p.toks = scan.GetTokens()
	n := p.parseWrapped()
	if len(p.errs) == 0 {
		return n, nil
	}
	// Text that is itself a statement (DROP TABLE t, DELETE FROM t) is named
	// as such rather than by the first oddity of reading it as an
	// expression. Only refused texts starting with a keyword can be
	// statements; accepted ones (a column named begin) never are.
	if p.startsWithKeyword() {
		if name, ok := statementName(text); ok {
			return nil, []Error{{codeNotAllowed, fmt.Sprintf("a SQL statement (%s) is not an expression", name), leadingSpace(text)}}
		}
	}
	return nil, p.errs
}

// parseWrapped parses SELECT <text> and converts its one target, recording
// problems in p.errs.
func (p *parser) parseWrapped() Node {
	rewritten := p.preprocess()
	tree, err := pg_query.Parse(rewritten)
	if err != nil {
		p.errs = append(p.errs, p.syntaxError(err))
		return nil
	}
	stmts := tree.GetStmts()
	if len(stmts) == 0 {
		p.fail(codeSyntax, 0, "empty expression")
		return nil
	}
	if len(stmts) > 1 {
		loc := stmts[1].GetStmtLocation()
		// The statement location includes the blanks after ";".
		if i := sort.Search(len(p.toks), func(i int) bool { return p.toks[i].GetStart() >= loc }); i < len(p.toks) {
			loc = p.toks[i].GetStart()
		}
		what := "another statement"
		if name := leadingWords(rewritten[min(int(loc), len(rewritten)):]); name != "" {
			what = "a " + name + " statement"
		}
		p.fail(codeNotAllowed, loc, "multiple statements are not allowed: the expression is followed by %s", what)
		return nil
	}
	sel := stmts[0].GetStmt().GetSelectStmt()
	if sel == nil {
		p.fail(codeNotAllowed, 0, "a SQL statement is not an expression")
		return nil
	}
	p.checkSelect(sel)
	if len(p.errs) > 0 {
		return nil
	}
	rt := sel.GetTargetList()[0].GetResTarget()
	return p.conv(rt.GetVal(), rt.GetLocation())
}

// startsWithKeyword reports whether the first token of the text (comments
// skipped) is an SQL keyword.
func (p *parser) startsWithKeyword() bool {
	for _, t := range p.toks[1:] {
		switch t.GetToken() {
		case pg_query.Token_SQL_COMMENT, pg_query.Token_C_COMMENT:
			continue
		}
		return t.GetKeywordKind() != pg_query.KeywordKind_NO_KEYWORD
	}
	return false
}

type parser struct {
	text     string                // the expression as given
	src      string                // wrapPrefix + text
	toks     []*pg_query.ScanToken // tokens of src, by Start
	tryCasts map[int32]bool        // src offsets of TRY_CAST rewritten to CAST
	errs     []Error
}

// off converts a location in src to an offset in text, clamped to the text.
func (p *parser) off(loc int32) int {
	o := int(loc) - len(wrapPrefix)
	if o < 0 {
		return 0
	}
	if o > len(p.text) {
		return len(p.text)
	}
	return o
}

func (p *parser) fail(code string, loc int32, format string, args ...any) {
	p.errs = append(p.errs, Error{Code: code, Message: fmt.Sprintf(format, args...), Offset: p.off(loc)})
}

// refuse records a construct outside the bounded grammar.
func (p *parser) refuse(loc int32, construct string) {
	p.fail(codeNotAllowed, loc, "%s is not allowed in an Ossie expression", construct)
}

// syntaxError turns a pg_query error into OSS3001. PostgreSQL reports a
// 1-based character (not byte) position in src.
func (p *parser) syntaxError(err error) Error {
	msg := err.Error()
	off := len(p.text)
	var pe *pgparser.Error
	if errors.As(err, &pe) && pe.Cursorpos > 0 {
		chars, b := pe.Cursorpos-1, 0
		for b < len(p.src) && chars > 0 {
			_, size := utf8.DecodeRuneInString(p.src[b:])
			b += size
			chars--
		}
		off = p.off(int32(b))
	}
	return Error{Code: codeSyntax, Message: "expression does not parse: " + msg, Offset: off}
}

// preprocess rewrites, without moving any offset, the two spellings of the
// Ossie language PostgreSQL lacks: TRY_CAST(...) becomes CAST    (...) (the
// location is remembered so the cast is marked Try) and CURRENT_DATE(),
// CURRENT_TIME(), CURRENT_TIMESTAMP() lose their empty parentheses.
func (p *parser) preprocess() string {
	b := []byte(p.src)
	for i, t := range p.toks {
		next := func(k int) pg_query.Token {
			if i+k < len(p.toks) {
				return p.toks[i+k].GetToken()
			}
			return pg_query.Token_NUL
		}
		switch t.GetToken() {
		case pg_query.Token_IDENT:
			if strings.EqualFold(p.src[t.Start:t.End], "try_cast") && next(1) == pg_query.Token_ASCII_40 {
				copy(b[t.Start:t.End], "CAST    ")
				p.tryCasts[t.Start] = true
			}
		case pg_query.Token_CURRENT_DATE, pg_query.Token_CURRENT_TIME, pg_query.Token_CURRENT_TIMESTAMP:
			if next(1) == pg_query.Token_ASCII_40 && next(2) == pg_query.Token_ASCII_41 {
				b[p.toks[i+1].Start] = ' '
				b[p.toks[i+2].Start] = ' '
			}
		}
	}
	return string(b)
}

// checkSelect refuses every part of the wrapping SELECT besides one bare
// target.
func (p *parser) checkSelect(s *pg_query.SelectStmt) {
	loc := int32(len(wrapPrefix))
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE && s.GetOp() != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		p.refuse(loc, "a set operation ("+strings.TrimPrefix(s.GetOp().String(), "SETOP_")+")")
		return
	}
	clauses := []struct {
		present bool
		tok     pg_query.Token
		name    string
	}{
		{s.GetWithClause() != nil, pg_query.Token_WITH, "WITH (a common table expression)"},
		{len(s.GetFromClause()) > 0, pg_query.Token_FROM, "SELECT ... FROM"},
		{s.GetWhereClause() != nil, pg_query.Token_WHERE, "WHERE"},
		{len(s.GetGroupClause()) > 0, pg_query.Token_GROUP_P, "GROUP BY"},
		{s.GetHavingClause() != nil, pg_query.Token_HAVING, "HAVING"},
		{len(s.GetWindowClause()) > 0, pg_query.Token_WINDOW, "WINDOW"},
		{len(s.GetSortClause()) > 0, pg_query.Token_ORDER, "ORDER BY"},
		{s.GetLimitCount() != nil || s.GetLimitOffset() != nil, pg_query.Token_LIMIT, "LIMIT/OFFSET"},
		{len(s.GetDistinctClause()) > 0, pg_query.Token_DISTINCT, "SELECT DISTINCT"},
		{s.GetIntoClause() != nil, pg_query.Token_INTO, "INTO"},
		{len(s.GetLockingClause()) > 0, pg_query.Token_FOR, "a locking clause (FOR UPDATE)"},
		{len(s.GetValuesLists()) > 0, pg_query.Token_VALUES, "VALUES"},
	}
	for _, c := range clauses {
		if c.present {
			p.refuse(p.topLevelToken(c.tok, loc), c.name)
		}
	}
	targets := s.GetTargetList()
	switch {
	case len(targets) == 0:
		p.fail(codeSyntax, loc, "empty expression")
	case len(targets) > 1:
		p.refuse(targets[1].GetResTarget().GetLocation(), "a list of expressions (a comma outside a function call)")
	}
	for _, t := range targets {
		if rt := t.GetResTarget(); rt.GetName() != "" {
			p.refuse(rt.GetLocation(), fmt.Sprintf("an alias (%q)", rt.GetName()))
		}
	}
}

// topLevelToken returns the location of the first token of kind tok outside
// any parentheses (so the FROM of EXTRACT(YEAR FROM x) is skipped), or def.
func (p *parser) topLevelToken(tok pg_query.Token, def int32) int32 {
	depth := 0
	for _, t := range p.toks {
		switch t.GetToken() {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
		case tok:
			if depth == 0 && t.GetStart() >= int32(len(wrapPrefix)) {
				return t.GetStart()
			}
		}
	}
	return def
}

// statementName reports whether text on its own parses as SQL statements,
// and names the first one ("DROP TABLE", "SELECT ... FROM").
func statementName(text string) (string, bool) {
	tree, err := pg_query.Parse(text)
	if err != nil || len(tree.GetStmts()) == 0 {
		return "", false
	}
	if s := tree.GetStmts()[0].GetStmt().GetSelectStmt(); s != nil && len(s.GetFromClause()) > 0 {
		return "SELECT ... FROM", true
	}
	if name := leadingWords(text); name != "" {
		return name, true
	}
	return "statement", true
}

// leadingWords names a statement by its first keyword, or its first two for
// DDL (DROP TABLE, CREATE VIEW); comments are skipped.
func leadingWords(s string) string {
	var words []string
	if sr, err := pg_query.Scan(s); err == nil {
		for _, t := range sr.GetTokens() {
			switch t.GetToken() {
			case pg_query.Token_SQL_COMMENT, pg_query.Token_C_COMMENT:
				continue
			}
			if len(words) == 2 || t.GetKeywordKind() == pg_query.KeywordKind_NO_KEYWORD && t.GetToken() != pg_query.Token_IDENT {
				break
			}
			words = append(words, strings.ToUpper(s[t.GetStart():t.GetEnd()]))
		}
	}
	if len(words) == 0 {
		return ""
	}
	switch words[0] {
	case "DROP", "CREATE", "ALTER":
		if len(words) > 1 {
			return words[0] + " " + words[1]
		}
	}
	return words[0]
}

func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n\f"))
}

// conv converts one pg_query node. at is the nearest known location, used
// when the node carries none. It returns nil after recording a problem.
func (p *parser) conv(n *pg_query.Node, at int32) Node {
	if n == nil {
		p.fail(codeSyntax, at, "missing expression")
		return nil
	}
	switch x := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		return p.columnRef(x.ColumnRef)
	case *pg_query.Node_AConst:
		return p.constant(x.AConst, at)
	case *pg_query.Node_TypeCast:
		return p.typeCast(x.TypeCast, at)
	case *pg_query.Node_AExpr:
		return p.aExpr(x.AExpr, at)
	case *pg_query.Node_BoolExpr:
		return p.boolExpr(x.BoolExpr, at)
	case *pg_query.Node_NullTest:
		nt := x.NullTest
		return p.wrap1(IsNull{Not: nt.GetNulltesttype() == pg_query.NullTestType_IS_NOT_NULL}, p.conv(nt.GetArg(), locOr(nt.GetLocation(), at)))
	case *pg_query.Node_CaseExpr:
		return p.caseExpr(x.CaseExpr, at)
	case *pg_query.Node_CoalesceExpr:
		return p.call("COALESCE", x.CoalesceExpr.GetArgs(), locOr(x.CoalesceExpr.GetLocation(), at))
	case *pg_query.Node_MinMaxExpr:
		name := "GREATEST"
		if x.MinMaxExpr.GetOp() == pg_query.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		return p.call(name, x.MinMaxExpr.GetArgs(), locOr(x.MinMaxExpr.GetLocation(), at))
	case *pg_query.Node_SqlvalueFunction:
		return p.sqlValue(x.SqlvalueFunction, at)
	case *pg_query.Node_FuncCall:
		return p.funcCall(x.FuncCall, at)
	case *pg_query.Node_SubLink:
		p.refuse(locOr(x.SubLink.GetLocation(), at), "a subquery")
	case *pg_query.Node_SelectStmt:
		p.refuse(at, "a subquery")
	case *pg_query.Node_ParamRef:
		p.refuse(locOr(x.ParamRef.GetLocation(), at), "a parameter ($n)")
	case *pg_query.Node_AArrayExpr:
		p.refuse(locOr(x.AArrayExpr.GetLocation(), at), "an ARRAY constructor")
	case *pg_query.Node_RowExpr:
		p.refuse(locOr(x.RowExpr.GetLocation(), at), "a row constructor")
	case *pg_query.Node_AIndirection:
		p.refuse(at, "a subscript or field selection")
	case *pg_query.Node_CollateClause:
		p.refuse(locOr(x.CollateClause.GetLocation(), at), "COLLATE")
	case *pg_query.Node_BooleanTest:
		p.refuse(locOr(x.BooleanTest.GetLocation(), at), "IS [NOT] TRUE/FALSE/UNKNOWN (use = TRUE or IS NULL)")
	case *pg_query.Node_GroupingFunc:
		p.refuse(locOr(x.GroupingFunc.GetLocation(), at), "GROUPING()")
	case *pg_query.Node_NamedArgExpr:
		p.refuse(locOr(x.NamedArgExpr.GetLocation(), at), "a named argument (=>)")
	default:
		p.refuse(at, "the construct "+strings.TrimPrefix(fmt.Sprintf("%T", x), "*pg_query.Node_"))
	}
	return nil
}

func locOr(loc, at int32) int32 {
	if loc >= 0 {
		return loc
	}
	return at
}

// wrap1 fills the single child of a unary-shaped node, or yields nil when the
// child failed.
func (p *parser) wrap1(n Node, x Node) Node {
	if x == nil {
		return nil
	}
	switch v := n.(type) {
	case IsNull:
		v.X = x
		return v
	case Unary:
		v.X = x
		return v
	}
	return nil
}

func (p *parser) columnRef(c *pg_query.ColumnRef) Node {
	loc := c.GetLocation()
	fields := c.GetFields()
	for _, f := range fields {
		if f.GetAStar() != nil {
			p.refuse(loc, "* (all columns)")
			return nil
		}
	}
	if len(fields) > 2 {
		p.refuse(loc, fmt.Sprintf("a %d-part reference (use dataset.field)", len(fields)))
		return nil
	}
	names, quoted, ok := p.identsAt(loc, len(fields))
	if !ok {
		// The scanner always yields the tokens; fall back to the parse tree's
		// (already folded) names rather than fail.
		names, quoted = make([]string, len(fields)), make([]bool, len(fields))
		for i, f := range fields {
			names[i] = f.GetString_().GetSval()
			quoted[i] = names[i] != asciiLower(names[i])
		}
	}
	for _, n := range names {
		if n == "" {
			p.fail(codeSyntax, loc, "empty identifier")
			return nil
		}
	}
	// One Quoted flag covers both parts of dataset.field: a reference with
	// any quoted part is marked quoted; its unquoted part is already folded,
	// so quoting it back in Format names the same thing.
	r := Ref{Name: names[len(names)-1], Quoted: quoted[len(quoted)-1]}
	if len(names) == 2 {
		r.Qualifier = names[0]
		r.Quoted = quoted[0] || quoted[1]
	}
	return r
}

// identsAt reads count dot-separated identifiers starting at src offset loc
// from the scanner tokens: the parse tree folds and truncates names (63
// bytes) and forgets whether they were quoted.
func (p *parser) identsAt(loc int32, count int) ([]string, []bool, bool) {
	i := sort.Search(len(p.toks), func(i int) bool { return p.toks[i].GetStart() >= loc })
	names, quoted := make([]string, 0, count), make([]bool, 0, count)
	for k := 0; k < count; k++ {
		if k > 0 {
			if i >= len(p.toks) || p.toks[i].GetToken() != pg_query.Token_ASCII_46 {
				return nil, nil, false
			}
			i++
		}
		if i >= len(p.toks) {
			return nil, nil, false
		}
		t := p.toks[i]
		s := p.src[t.GetStart():t.GetEnd()]
		switch {
		case strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) >= 2:
			names = append(names, strings.ReplaceAll(s[1:len(s)-1], `""`, `"`))
			quoted = append(quoted, true)
		case t.GetToken() == pg_query.Token_UIDENT:
			return nil, nil, false
		default:
			names = append(names, asciiLower(s))
			quoted = append(quoted, false)
		}
		i++
	}
	return names, quoted, true
}

// asciiLower folds A-Z only, as PostgreSQL folds unquoted identifiers in
// UTF-8.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func (p *parser) constant(c *pg_query.A_Const, at int32) Node {
	loc := locOr(c.GetLocation(), at)
	if c.GetIsnull() {
		return Literal{Kind: LitNull}
	}
	switch v := c.GetVal().(type) {
	case *pg_query.A_Const_Ival:
		return Literal{Kind: LitNumber, Value: strconv.Itoa(int(v.Ival.GetIval()))}
	case *pg_query.A_Const_Fval:
		return Literal{Kind: LitNumber, Value: v.Fval.GetFval()}
	case *pg_query.A_Const_Boolval:
		return Literal{Kind: LitBool, Value: strconv.FormatBool(v.Boolval.GetBoolval())}
	case *pg_query.A_Const_Sval:
		return Literal{Kind: LitString, Value: v.Sval.GetSval()}
	case *pg_query.A_Const_Bsval:
		p.refuse(loc, "a bit-string literal")
		return nil
	}
	p.refuse(loc, "this constant")
	return nil
}

func (p *parser) typeCast(tc *pg_query.TypeCast, at int32) Node {
	loc := locOr(tc.GetLocation(), at)
	x := p.conv(tc.GetArg(), loc)
	typ, prec, scale, ok := p.castType(tc.GetTypeName(), loc)
	if x == nil || !ok {
		return nil
	}
	return Cast{X: x, Type: typ, Precision: prec, Scale: scale, Try: p.tryCasts[tc.GetLocation()]}
}

// castType maps a PostgreSQL type name to the canonical cast types of the
// Ossie language (OSSIE.md, conversion functions).
func (p *parser) castType(tn *pg_query.TypeName, at int32) (string, int, int, bool) {
	loc := locOr(tn.GetLocation(), at)
	var names []string
	for _, n := range tn.GetNames() {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) == 0 || len(names) > 2 || len(names) == 2 && names[0] != "pg_catalog" {
		p.refuse(loc, fmt.Sprintf("the type %q (allowed: %s)", strings.Join(names, "."), castTypes))
		return "", 0, 0, false
	}
	if len(tn.GetArrayBounds()) > 0 || tn.GetSetof() || tn.GetPctType() {
		p.refuse(loc, "an array or derived type")
		return "", 0, 0, false
	}
	var typ string
	switch name := names[len(names)-1]; name {
	case "varchar", "text", "string":
		typ = "VARCHAR"
	case "int4", "int", "integer":
		typ = "INTEGER"
	case "int8", "bigint":
		typ = "BIGINT"
	case "numeric", "decimal":
		typ = "DECIMAL"
	case "float8", "float4", "double", "float", "real":
		typ = "DOUBLE"
	case "bool", "boolean":
		typ = "BOOLEAN"
	case "date":
		typ = "DATE"
	case "timestamp", "timestamp_ntz":
		typ = "TIMESTAMP"
	case "time":
		typ = "TIME"
	case "interval":
		p.refuse(loc, "an INTERVAL value (use DATEADD(part, n, x) or DATEDIFF(part, a, b))")
		return "", 0, 0, false
	default:
		p.refuse(loc, fmt.Sprintf("the type %s (allowed: %s)", strings.ToUpper(name), castTypes))
		return "", 0, 0, false
	}
	if typ != "DECIMAL" {
		// Lengths and precisions (VARCHAR(20), TIMESTAMP(3)) do not change
		// the canonical type.
		return typ, 0, 0, true
	}
	mods := tn.GetTypmods()
	var vals []int
	for _, m := range mods {
		c := m.GetAConst()
		iv, isInt := c.GetVal().(*pg_query.A_Const_Ival)
		if c == nil || !isInt {
			p.refuse(loc, "a non-integer DECIMAL precision or scale")
			return "", 0, 0, false
		}
		vals = append(vals, int(iv.Ival.GetIval()))
	}
	prec, scale := 0, 0
	switch len(vals) {
	case 0:
	case 1:
		prec = vals[0]
	case 2:
		prec, scale = vals[0], vals[1]
	default:
		p.refuse(loc, "DECIMAL with more than precision and scale")
		return "", 0, 0, false
	}
	if len(vals) > 0 && (prec < 1 || prec > 38 || scale < 0 || scale > prec) {
		p.fail(codeNotAllowed, loc, "DECIMAL(%d, %d) is out of range: precision must be 1..38 and scale 0..precision", prec, scale)
		return "", 0, 0, false
	}
	return "DECIMAL", prec, scale, true
}

// binaryOps are the infix operators of the language; PostgreSQL spells != as <>.
var binaryOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "||": true,
}

func (p *parser) aExpr(e *pg_query.A_Expr, at int32) Node {
	loc := locOr(e.GetLocation(), at)
	var op string
	if names := e.GetName(); len(names) == 1 {
		op = names[0].GetString_().GetSval()
	} else {
		p.refuse(loc, "OPERATOR(...)")
		return nil
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if !binaryOps[op] {
			p.refuse(loc, "the operator "+op)
			return nil
		}
		if e.GetLexpr() == nil {
			if op != "-" && op != "+" {
				p.refuse(loc, "the prefix operator "+op)
				return nil
			}
			return p.wrap1(Unary{Op: op}, p.conv(e.GetRexpr(), loc))
		}
		l, r := p.conv(e.GetLexpr(), loc), p.conv(e.GetRexpr(), loc)
		if l == nil || r == nil {
			return nil
		}
		return Binary{Op: op, L: l, R: r}
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, r := p.conv(e.GetLexpr(), loc), p.conv(e.GetRexpr(), loc)
		if l == nil || r == nil {
			return nil
		}
		op := "IS DISTINCT FROM"
		if e.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			op = "IS NOT DISTINCT FROM"
		}
		return Binary{Op: op, L: l, R: r}
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		l, r := p.conv(e.GetLexpr(), loc), p.conv(e.GetRexpr(), loc)
		if l == nil || r == nil {
			return nil
		}
		return Func{Name: "NULLIF", Args: []Node{l, r}}
	case pg_query.A_Expr_Kind_AEXPR_IN:
		x := p.conv(e.GetLexpr(), loc)
		items := e.GetRexpr().GetList().GetItems()
		if e.GetRexpr().GetList() == nil {
			p.conv(e.GetRexpr(), loc) // records why (a subquery, ...)
			return nil
		}
		list, ok := p.convAll(items, loc)
		if x == nil || !ok {
			return nil
		}
		return In{X: x, List: list, Not: op == "<>"}
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		x, pat := p.conv(e.GetLexpr(), loc), p.conv(e.GetRexpr(), loc)
		if x == nil || pat == nil {
			return nil
		}
		return Like{X: x, Pattern: pat, Not: strings.HasPrefix(op, "!"), ILike: e.GetKind() == pg_query.A_Expr_Kind_AEXPR_ILIKE}
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		x := p.conv(e.GetLexpr(), loc)
		bounds, ok := p.convAll(e.GetRexpr().GetList().GetItems(), loc)
		if x == nil || !ok || len(bounds) != 2 {
			if ok && len(bounds) != 2 {
				p.fail(codeSyntax, loc, "BETWEEN needs two bounds")
			}
			return nil
		}
		return Between{X: x, Lo: bounds[0], Hi: bounds[1], Not: e.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN}
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		p.refuse(loc, "SIMILAR TO (use LIKE or REGEXP_LIKE)")
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		p.refuse(loc, "BETWEEN SYMMETRIC")
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		p.refuse(loc, "ANY/ALL")
	default:
		p.refuse(loc, "the operator "+op)
	}
	return nil
}

// convAll converts a list, reporting every failing item; ok is false when
// any failed. An empty list converts to nil.
func (p *parser) convAll(items []*pg_query.Node, at int32) ([]Node, bool) {
	var out []Node
	ok := true
	for _, it := range items {
		n := p.conv(it, at)
		if n == nil {
			ok = false
		}
		out = append(out, n)
	}
	return out, ok
}

// boolExpr folds PostgreSQL's flattened AND/OR lists left-deep, which is
// how the same text parses as binary operators.
func (p *parser) boolExpr(b *pg_query.BoolExpr, at int32) Node {
	loc := locOr(b.GetLocation(), at)
	args, ok := p.convAll(b.GetArgs(), loc)
	if !ok || len(args) == 0 {
		return nil
	}
	switch b.GetBoolop() {
	case pg_query.BoolExprType_NOT_EXPR:
		return Unary{Op: "NOT", X: args[0]}
	case pg_query.BoolExprType_AND_EXPR, pg_query.BoolExprType_OR_EXPR:
		op := "AND"
		if b.GetBoolop() == pg_query.BoolExprType_OR_EXPR {
			op = "OR"
		}
		n := args[0]
		for _, a := range args[1:] {
			n = Binary{Op: op, L: n, R: a}
		}
		return n
	}
	p.refuse(loc, "this boolean operator")
	return nil
}

func (p *parser) caseExpr(c *pg_query.CaseExpr, at int32) Node {
	loc := locOr(c.GetLocation(), at)
	out := Case{}
	ok := true
	if c.GetArg() != nil {
		if out.Operand = p.conv(c.GetArg(), loc); out.Operand == nil {
			ok = false
		}
	}
	for _, w := range c.GetArgs() {
		cw := w.GetCaseWhen()
		if cw == nil {
			p.refuse(loc, "this CASE arm")
			ok = false
			continue
		}
		wl := locOr(cw.GetLocation(), loc)
		cond, then := p.conv(cw.GetExpr(), wl), p.conv(cw.GetResult(), wl)
		if cond == nil || then == nil {
			ok = false
		}
		out.Whens = append(out.Whens, When{Cond: cond, Then: then})
	}
	if c.GetDefresult() != nil {
		if out.Else = p.conv(c.GetDefresult(), loc); out.Else == nil {
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return out
}

func (p *parser) sqlValue(v *pg_query.SQLValueFunction, at int32) Node {
	loc := locOr(v.GetLocation(), at)
	switch v.GetOp() {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return Func{Name: "CURRENT_DATE"}
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return Func{Name: "CURRENT_TIME"}
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return Func{Name: "CURRENT_TIMESTAMP"}
	}
	p.refuse(loc, strings.TrimSuffix(strings.TrimPrefix(v.GetOp().String(), "SVFOP_"), "_N"))
	return nil
}

// call builds a Func from a construct PostgreSQL parses specially
// (COALESCE, GREATEST, LEAST), checking its arity like any call.
func (p *parser) call(name string, args []*pg_query.Node, loc int32) Node {
	list, ok := p.convAll(args, loc)
	if !ok {
		return nil
	}
	f := Func{Name: name, Args: list}
	if !p.checkArity(f, loc) {
		return nil
	}
	return f
}

// sqlSyntaxFuncs maps the pg_catalog functions PostgreSQL produces for SQL
// syntax forms (EXTRACT(part FROM x), POSITION(a IN b), SUBSTRING(s FROM a
// FOR b), TRIM([BOTH|LEADING|TRAILING] c FROM s)) to the Ossie names.
var sqlSyntaxFuncs = map[string]string{
	"extract": "EXTRACT", "position": "POSITION", "substring": "SUBSTRING",
	"btrim": "TRIM", "ltrim": "LTRIM", "rtrim": "RTRIM",
}

// sqlSyntaxNames names, for messages, SQL syntax forms outside the grammar.
var sqlSyntaxNames = map[string]string{
	"timezone": "AT TIME ZONE", "like_escape": "LIKE ... ESCAPE", "overlay": "OVERLAY",
	"similar_to_escape": "SIMILAR TO", "overlaps": "OVERLAPS", "normalize": "NORMALIZE",
	"collation_for": "COLLATION FOR", "system_user": "SYSTEM_USER",
}

func (p *parser) funcCall(fc *pg_query.FuncCall, at int32) Node {
	loc := locOr(fc.GetLocation(), at)
	var parts []string
	for _, n := range fc.GetFuncname() {
		parts = append(parts, n.GetString_().GetSval())
	}
	if fc.GetOver() != nil {
		p.refuse(loc, "a window function (OVER): metrics aggregate per query group, so window functions are not supported")
		return nil
	}
	sqlSyntax := fc.GetFuncformat() == pg_query.CoercionForm_COERCE_SQL_SYNTAX
	var name string
	switch {
	case len(parts) == 1:
		name = strings.ToUpper(parts[0])
	case len(parts) == 2 && parts[0] == "pg_catalog" && sqlSyntax && sqlSyntaxFuncs[parts[1]] != "":
		name = sqlSyntaxFuncs[parts[1]]
	case len(parts) == 2 && parts[0] == "pg_catalog" && sqlSyntaxNames[parts[1]] != "":
		p.refuse(loc, sqlSyntaxNames[parts[1]])
		return nil
	case len(parts) == 2 && parts[0] == "pg_catalog" && sqlSyntax:
		p.refuse(loc, "the SQL syntax "+strings.ToUpper(parts[1]))
		return nil
	default:
		p.refuse(loc, "a qualified function name ("+strings.Join(parts, ".")+")")
		return nil
	}
	fi, known := Lookup(name)
	if known {
		name = fi.Name
	}

	args := fc.GetArgs()
	if name == "POSITION" && sqlSyntax && len(args) == 2 {
		// PostgreSQL stores POSITION(a IN b) as position(b, a).
		args = []*pg_query.Node{args[1], args[0]}
	}
	var list []Node
	ok := true
	for i, a := range args {
		var n Node
		if known && i == datePartArg(name) {
			n = p.datePart(name, a, loc, sqlSyntax)
		} else {
			n = p.conv(a, loc)
		}
		if n == nil {
			ok = false
		}
		list = append(list, n)
	}
	f := Func{Name: name, Args: list, Star: fc.GetAggStar(), Distinct: fc.GetAggDistinct()}
	if fc.GetAggFilter() != nil {
		if f.Filter = p.conv(fc.GetAggFilter(), loc); f.Filter == nil {
			ok = false
		}
	}
	if fc.GetAggWithinGroup() {
		order := fc.GetAggOrder()
		var sb *pg_query.SortBy
		if len(order) == 1 {
			sb = order[0].GetSortBy()
		}
		switch {
		case sb == nil:
			p.refuse(loc, "WITHIN GROUP with more than one ORDER BY expression")
			ok = false
		case sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC || sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_USING ||
			sb.GetSortbyNulls() != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT:
			p.refuse(loc, "DESC, USING or NULLS FIRST/LAST in WITHIN GROUP")
			ok = false
		default:
			if f.WithinGroup = p.conv(sb.GetNode(), loc); f.WithinGroup == nil {
				ok = false
			}
		}
	} else if len(fc.GetAggOrder()) > 0 {
		p.refuse(loc, "ORDER BY inside a function call")
		ok = false
	}
	if fc.GetFuncVariadic() {
		p.refuse(loc, "VARIADIC")
		ok = false
	}
	if !known {
		msg := "unknown function " + name
		if s := suggestFunc(name); s != "" {
			msg += "; did you mean " + s + "?"
		}
		p.fail(codeUnknownFn, loc, "%s", msg)
		return nil
	}
	if !ok {
		return nil
	}
	if f.Star && name != "COUNT" {
		p.refuse(loc, name+"(*) (only COUNT(*) takes *)")
		return nil
	}
	if (f.Distinct || f.Filter != nil) && !fi.Aggregate {
		p.refuse(loc, "DISTINCT or FILTER on the non-aggregate function "+name)
		return nil
	}
	if f.Distinct && !distinctAggregates[name] {
		p.refuse(loc, "DISTINCT in "+name+" (only COUNT, SUM, AVG, MIN and MAX take DISTINCT)")
		return nil
	}
	if f.Star && f.Distinct {
		p.refuse(loc, "COUNT(DISTINCT *)")
		return nil
	}
	isPercentile := name == "PERCENTILE_CONT" || name == "PERCENTILE_DISC"
	if f.WithinGroup != nil && !isPercentile {
		p.refuse(loc, "WITHIN GROUP on "+name+" (only PERCENTILE_CONT and PERCENTILE_DISC)")
		return nil
	}
	if isPercentile && f.WithinGroup == nil {
		p.fail(codeArity, loc, "%s(fraction) needs WITHIN GROUP (ORDER BY value)", name)
		return nil
	}
	if !p.checkArity(f, loc) {
		return nil
	}
	return f
}

func (p *parser) checkArity(f Func, loc int32) bool {
	fi, _ := Lookup(f.Name)
	n := len(f.Args)
	if f.Star {
		if n == 0 {
			return true
		}
		p.fail(codeArity, loc, "COUNT(*) takes no other argument")
		return false
	}
	if n >= fi.MinArgs && (fi.MaxArgs < 0 || n <= fi.MaxArgs) {
		return true
	}
	var want string
	switch {
	case fi.MaxArgs < 0:
		want = fmt.Sprintf("at least %d", fi.MinArgs)
	case fi.MinArgs == fi.MaxArgs:
		want = strconv.Itoa(fi.MinArgs)
	default:
		want = fmt.Sprintf("%d to %d", fi.MinArgs, fi.MaxArgs)
	}
	plural := "s"
	if want == "1" {
		plural = ""
	}
	p.fail(codeArity, loc, "%s takes %s argument%s, got %d", f.Name, want, plural, n)
	return false
}

// datePart converts the part argument of EXTRACT, DATE_PART, DATE_TRUNC,
// DATEADD and DATEDIFF: a bare word becomes a Keyword, a string literal
// stays a Literal; either must name one of DateParts.
func (p *parser) datePart(fn string, a *pg_query.Node, at int32, sqlSyntax bool) Node {
	loc := at
	var n Node
	if c := a.GetColumnRef(); c != nil && len(c.GetFields()) == 1 {
		loc = locOr(c.GetLocation(), at)
		names, quoted, ok := p.identsAt(loc, 1)
		if ok && !quoted[0] {
			n = Keyword{Name: strings.ToUpper(names[0])}
		}
	}
	if n == nil {
		if c := a.GetAConst(); c != nil {
			loc = locOr(c.GetLocation(), at)
		}
		if n = p.conv(a, at); n == nil {
			return nil
		}
		if lit, ok := n.(Literal); ok && lit.Kind == LitString && fn == "EXTRACT" && sqlSyntax {
			n = Keyword{Name: strings.ToUpper(lit.Value)}
		}
	}
	var part string
	switch v := n.(type) {
	case Keyword:
		part = v.Name
	case Literal:
		if v.Kind == LitString {
			part = v.Value
		}
	}
	if part == "" {
		p.fail(codeNotAllowed, loc, "the first argument of %s must be a date part (%s)", fn, strings.Join(DateParts, ", "))
		return nil
	}
	if !isDatePart(part) {
		p.fail(codeNotAllowed, loc, "unknown date part %q in %s; use one of %s", part, fn, strings.Join(DateParts, ", "))
		return nil
	}
	if fn == "DATE_TRUNC" && !slices.Contains(TruncParts, strings.ToUpper(part)) {
		p.fail(codeNotAllowed, loc, "DATE_TRUNC cannot truncate to %s; use one of %s", strings.ToUpper(part), strings.Join(TruncParts, ", "))
		return nil
	}
	return n
}
