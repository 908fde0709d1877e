// Package sqlfmt lays out the SQL the planner renders for people to read:
// one clause per line, each subquery indented, long select lists one item
// a line. It changes whitespace between tokens only, never a token, so the
// formatted statement runs exactly as the one-line statement the engines
// are sent (tested on DuckDB against every planner golden).
//
// No maintained Go SQL formatter covers the three dialects the planner
// writes (DuckDB, PostgreSQL, Trino); this one needs no grammar because it
// only breaks lines: it lexes quoted identifiers, string literals (with
// ” doubling, E'...' backslash escapes and $tag$ dollar quotes) and
// comments so that nothing inside them moves, and breaks before the
// clause keywords that stand at the top level of a query block.
package sqlfmt

import "strings"

// indentUnit is one level of subquery nesting.
const indentUnit = "  "

// inlineWidth is the widest select list kept on the SELECT line.
const inlineWidth = 72

type kind uint8

const (
	kWord    kind = iota // keyword or unquoted identifier
	kQuoted              // "identifier", 'literal', E'literal', $$literal$$
	kComment             // -- line or /* block */
	kOpen                // (
	kClose               // )
	kComma               // ,
	kOther               // any other character: operators, dots, numbers' parts
)

type token struct {
	kind kind
	text string
	// space: the source had whitespace before this token.
	space bool
}

// Format returns sql laid out on several lines. Input that is already
// formatted is reformatted the same way; an empty statement is returned
// as is.
func Format(sql string) string {
	toks := lex(sql)
	if len(toks) == 0 {
		return sql
	}
	f := &formatter{toks: toks, blocks: []block{{}}}
	f.b.Grow(len(sql) + len(sql)/4)
	for i := range toks {
		f.token(i)
	}
	return f.b.String()
}

// block is one query block: the statement, or a parenthesized subquery.
type block struct {
	depth  int    // parenthesis depth inside the block
	indent int    // nesting level of its clauses
	clause string // the clause being written: SELECT, WITH, FROM, ...
	// inline: the current select list fits on the SELECT line.
	inline bool
}

type formatter struct {
	toks   []token
	b      strings.Builder
	depth  int
	blocks []block
	// breakNext: the next token starts a new line at this indent (-1: no).
	breakNext int
}

func (f *formatter) top() *block { return &f.blocks[len(f.blocks)-1] }

func (f *formatter) newline(indent int) {
	f.b.WriteByte('\n')
	f.b.WriteString(strings.Repeat(indentUnit, indent))
}

// word is the upper-cased text of token i when it is a word, else "".
func (f *formatter) word(i int) string {
	if i < 0 || i >= len(f.toks) || f.toks[i].kind != kWord {
		return ""
	}
	return strings.ToUpper(f.toks[i].text)
}

// next is the index of the first token after i that is not a comment.
func (f *formatter) next(i int) int {
	for i++; i < len(f.toks) && f.toks[i].kind == kComment; i++ {
	}
	return i
}

func (f *formatter) token(i int) {
	t := f.toks[i]
	blk := f.top()
	atTop := f.depth == blk.depth
	brk := -1 // indent of a line break before t, -1 for none
	if f.breakNext >= 0 {
		brk, f.breakNext = f.breakNext, -1
	}
	switch t.kind {
	case kOpen:
		f.depth++
	case kClose:
		if len(f.blocks) > 1 && f.depth == blk.depth {
			f.blocks = f.blocks[:len(f.blocks)-1]
			brk = f.top().indent
		}
		f.depth--
	case kComma:
		if atTop && blk.clause == "WITH" {
			f.breakNext = blk.indent
		} else if atTop && blk.clause == "SELECT" && !blk.inline {
			f.breakNext = blk.indent + 1
		}
	case kWord:
		if kw := f.clauseAt(i); kw != "" && atTop {
			if i > 0 && brk < 0 {
				brk = blk.indent
			}
			blk.clause = kw
			if kw == "SELECT" {
				blk.inline = f.selectWidth(i) <= inlineWidth
				if !blk.inline && f.word(f.next(i)) != "DISTINCT" {
					f.breakNext = blk.indent + 1 // else after DISTINCT, below
				}
			}
		} else if atTop && blk.clause == "SELECT" && !blk.inline && f.word(i) == "DISTINCT" && f.word(i-1) == "SELECT" {
			f.breakNext = blk.indent + 1
		}
	}
	switch {
	case brk >= 0 && f.b.Len() > 0:
		f.newline(brk)
	case i > 0 && f.toks[i-1].kind == kComment && strings.HasPrefix(f.toks[i-1].text, "--"):
		f.newline(f.top().indent) // a line comment ends at the line's end
	case t.space && f.b.Len() > 0:
		f.b.WriteByte(' ')
	}
	f.b.WriteString(t.text)
	if t.kind == kOpen {
		if j := f.next(i); j < len(f.toks) {
			if w := f.word(j); w == "SELECT" || w == "WITH" || w == "VALUES" {
				f.blocks = append(f.blocks, block{depth: f.depth, indent: blk.indent + 1})
				f.breakNext = blk.indent + 1
			}
		}
	}
}

// clauseAt is the clause keyword token i starts (SELECT, FROM, JOIN, ...),
// or "" when it starts none. Only a word after whitespace or a
// parenthesis counts: "t.order" is a column, not ORDER BY.
func (f *formatter) clauseAt(i int) string {
	if i > 0 {
		prev := f.toks[i-1]
		if !f.toks[i].space && prev.kind != kOpen && prev.kind != kClose {
			return ""
		}
	}
	w := f.word(i)
	prev, next := f.word(i-1), f.word(f.next(i))
	switch w {
	case "SELECT", "FROM", "WHERE", "HAVING", "LIMIT", "OFFSET", "FETCH", "WINDOW", "QUALIFY", "UNION", "INTERSECT", "EXCEPT":
		if w == "FROM" && prev == "DISTINCT" { // IS [NOT] DISTINCT FROM
			return ""
		}
		return w
	case "WITH":
		if next == "TIME" || next == "ORDINALITY" || prev == "TIMESTAMP" || prev == "TIME" {
			return "" // TIMESTAMP WITH TIME ZONE, WITH ORDINALITY
		}
		return w
	case "GROUP":
		if prev == "WITHIN" {
			return ""
		}
		if next == "BY" {
			return w
		}
	case "ORDER":
		if next == "BY" {
			return w
		}
	case "LEFT", "RIGHT", "FULL", "INNER", "CROSS", "NATURAL":
		if next == "JOIN" || next == "OUTER" {
			return "JOIN"
		}
	case "JOIN":
		switch prev {
		case "LEFT", "RIGHT", "FULL", "INNER", "CROSS", "NATURAL", "OUTER":
			return ""
		}
		return "JOIN"
	}
	return ""
}

// selectWidth is the length of the select list starting after SELECT at
// token i, written on one line; a subquery in it counts as too wide.
func (f *formatter) selectWidth(i int) int {
	width, depth := 0, 0
	for j := i + 1; j < len(f.toks); j++ {
		t := f.toks[j]
		switch t.kind {
		case kOpen:
			depth++
			if w := f.word(f.next(j)); w == "SELECT" || w == "WITH" {
				return inlineWidth + 1
			}
		case kClose:
			if depth == 0 {
				return width
			}
			depth--
		case kComment:
			return inlineWidth + 1
		case kWord:
			if depth == 0 && f.clauseAt(j) != "" {
				return width
			}
		}
		if t.space {
			width++
		}
		width += len(t.text)
		if width > inlineWidth {
			return width
		}
	}
	return width
}

// lex splits sql into tokens, whitespace dropped but remembered in
// token.space. Literals, quoted identifiers and comments are single
// tokens, so Format never moves anything inside them; an unterminated one
// runs to the end of the text.
func lex(sql string) []token {
	var toks []token
	space := false
	for i := 0; i < len(sql); {
		c := sql[i]
		start := i
		k := kOther
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			space = true
			i++
			continue
		case c == '\'' || c == '"':
			k, i = kQuoted, quoted(sql, i, c, false)
		case (c == 'E' || c == 'e') && i+1 < len(sql) && sql[i+1] == '\'' && !identAt(sql, i-1):
			k, i = kQuoted, quoted(sql, i+1, '\'', true)
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			k = kComment
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			k = kComment
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(sql)
			}
		case c == '$' && !identAt(sql, i-1):
			if tag, ok := dollarTag(sql[i:]); ok {
				k = kQuoted
				if j := strings.Index(sql[i+len(tag):], tag); j >= 0 {
					i += len(tag) + j + len(tag)
				} else {
					i = len(sql)
				}
			} else {
				i++
			}
		case identStart(c):
			k = kWord
			for i++; i < len(sql) && identAt(sql, i); i++ {
			}
		case c == '(':
			k, i = kOpen, i+1
		case c == ')':
			k, i = kClose, i+1
		case c == ',':
			k, i = kComma, i+1
		default:
			i++
		}
		toks = append(toks, token{kind: k, text: sql[start:i], space: space})
		space = false
	}
	return toks
}

// quoted returns the end of the quoted token opening at i with q: a
// doubled q stands for itself, and with backslash (E'...') a backslash
// escapes the next byte.
func quoted(sql string, i int, q byte, backslash bool) int {
	for i++; i < len(sql); i++ {
		switch {
		case backslash && sql[i] == '\\':
			i++
		case sql[i] == q:
			if i+1 < len(sql) && sql[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(sql)
}

// dollarTag is the $tag$ opening s (PostgreSQL dollar quoting), if any.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == '$':
			return s[:j+1], true
		case !identStart(s[j]) && (j == 1 || s[j] < '0' || s[j] > '9'):
			return "", false
		}
	}
	return "", false
}

func identStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

// identAt: the byte at i continues an identifier or a number.
func identAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return identStart(c) || (c >= '0' && c <= '9') || c == '$'
}
