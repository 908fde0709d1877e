package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// This file turns YAML or JSON bytes into a small tree of plain values that
// remembers where each value came from. Parse (Go rules) and ValidateSchema
// (JSON Schema rules) both read this tree, so they see exactly the same
// document: same duplicate-key findings, same alias expansion, same scalars.

// nodeKind is the JSON-compatible kind of a document value.
type nodeKind int

const (
	kindNull nodeKind = iota
	kindBool
	kindInt
	kindFloat
	kindString
	kindSeq
	kindMap
)

// kindNames are the words used in "wrong type" messages.
var kindNames = map[nodeKind]string{
	kindNull:   "null",
	kindBool:   "a boolean",
	kindInt:    "a number",
	kindFloat:  "a number",
	kindString: "a string",
	kindSeq:    "a list",
	kindMap:    "a mapping",
}

// ynode is one value of the document.
type ynode struct {
	kind nodeKind
	pos  Position
	// str is the value of a string, and the source text of other scalars
	// (used to suggest quoting, e.g. `name: 2024`).
	str  string
	b    bool
	num  any // int64, uint64 or float64 for kindInt/kindFloat
	keys []yentry
	seq  []*ynode
	// size counts this node and everything under it after alias expansion.
	size int
}

// yentry is one key of a mapping, in source order, duplicates removed.
type yentry struct {
	key    string
	keyPos Position
	val    *ynode
}

// get returns the value under key and whether it exists.
func (n *ynode) get(key string) (*ynode, bool) {
	for _, e := range n.keys {
		if e.key == key {
			return e.val, true
		}
	}
	return nil, false
}

// describe names the value's kind for messages, with the text of scalars.
func (n *ynode) describe() string {
	switch n.kind {
	case kindBool, kindInt, kindFloat:
		return fmt.Sprintf("%s (%s)", kindNames[n.kind], n.str)
	default:
		return kindNames[n.kind]
	}
}

// readYAML reads data as one YAML (or JSON) document. It returns the root
// value (nil when the input is empty or unreadable) and the problems found
// while reading: CodeSyntax for malformed input, CodeDuplicateKey for a key
// given twice in one mapping (the first one is kept).
func readYAML(data []byte) (*ynode, Problems) {
	if p := CheckDocument(data); p != nil {
		return nil, Problems{*p}
	}
	if !utf8.Valid(data) {
		return nil, Problems{invalidUTF8(data)}
	}
	file, err := parseBytesSafely(data)
	if err != nil {
		return nil, Problems{syntaxProblem(err, data)}
	}
	var docs []*ast.DocumentNode
	for _, d := range file.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	r := &reader{anchors: map[string]*ynode{}}
	if len(docs) > 1 {
		pos := tokenPos(docs[1].Start, Position{Line: 1, Column: 1})
		if docs[1].Start == nil {
			pos = nodePos(docs[1].Body, pos)
		}
		r.add(Problem{Code: CodeSyntax, Severity: SeverityError, Line: pos.Line, Column: pos.Column,
			Message: fmt.Sprintf("a file holds one Ossie document, found %d separated by `---`; split them into separate files", len(docs))})
	}
	root := r.node(docs[0].Body, "", Position{Line: 1, Column: 1}, 0)
	if r.tooBig {
		return nil, r.probs
	}
	return root, r.probs
}

// parseBytesSafely runs the YAML parser and turns a panic inside it into a
// syntax error: malformed input must never crash the caller.
func parseBytesSafely(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("input could not be read as YAML or JSON (%v)", r)
		}
	}()
	// Duplicate keys are allowed here so that we can report every one of
	// them with its path instead of failing on the first.
	return parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
}

// invalidUTF8 locates the first byte that is not UTF-8: YAML and JSON are
// Unicode text, and a JSON round trip would silently alter such bytes.
func invalidUTF8(data []byte) Problem {
	line, col := 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return Problem{Code: CodeSyntax, Severity: SeverityError, Line: line, Column: col, Message: "not valid YAML or JSON: the file is not UTF-8 text"}
}

// syntaxProblem converts a go-yaml error into a CodeSyntax problem with the
// offending token's line and column. A tab where YAML allows only spaces,
// which go-yaml reports as a character "that cannot start any token" or a
// "tab character" it cannot use, is said in plain words instead: the line
// and column of the tab and what to do.
func syntaxProblem(err error, data []byte) Problem {
	p := yamlSyntaxProblem(err)
	if p.Line < 1 {
		return p
	}
	lines := bytes.Split(data, []byte("\n"))
	if p.Line > len(lines) {
		return p
	}
	l := lines[p.Line-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	if col := bytes.IndexByte(indent, '\t'); col >= 0 && len(indent) < len(l) {
		p.Column = col + 1
		p.Message = fmt.Sprintf("line %d is indented with a tab (column %d); YAML indents with spaces only: replace the tab with spaces", p.Line, p.Column)
	} else if strings.Contains(p.Message, "tab character") {
		// go-yaml points at the token after the tab: point at the tab.
		if t := bytes.LastIndexByte(l[:min(p.Column, len(l))], '\t'); t >= 0 {
			p.Column = t + 1
		}
		p.Message = fmt.Sprintf("a tab at line %d, column %d, where YAML allows only spaces: replace the tab with spaces", p.Line, p.Column)
	}
	return p
}

func yamlSyntaxProblem(err error) Problem {
	p := Problem{Code: CodeSyntax, Severity: SeverityError, Message: "not valid YAML or JSON: " + err.Error()}
	var yerr yaml.Error
	if errors.As(err, &yerr) {
		p.Message = "not valid YAML or JSON: " + yerr.GetMessage()
		if tk := yerr.GetToken(); tk != nil && tk.Position != nil {
			p.Line, p.Column = tk.Position.Line, tk.Position.Column
		}
	}
	return p
}

type reader struct {
	probs   Problems
	anchors map[string]*ynode
	tooBig  bool
}

func (r *reader) add(p Problem) { r.probs = append(r.probs, p) }

func (r *reader) at(code string, path string, pos Position, msg string) {
	r.add(Problem{Code: code, Severity: SeverityError, Path: path, Line: pos.Line, Column: pos.Column, Message: msg})
}

// node converts one AST node. path is where it sits (for problems), fallback
// the position to use when the node carries no token (implicit nulls).
func (r *reader) node(n ast.Node, path string, fallback Position, depth int) *ynode {
	if r.tooBig {
		return &ynode{kind: kindNull, pos: fallback, size: 1}
	}
	pos := nodePos(n, fallback)
	if depth > maxDepth {
		r.tooBig = true
		r.at(CodeDocumentTooComplex, path, pos, fmt.Sprintf("document nests deeper than %d levels", maxDepth))
		return &ynode{kind: kindNull, pos: pos, size: 1}
	}
	out := r.convert(n, path, pos, depth)
	if out.size == 0 {
		out.size = 1
	}
	if out.size > maxNodes && !r.tooBig {
		r.tooBig = true
		r.at(CodeDocumentTooComplex, path, pos, fmt.Sprintf("document expands to more than %d values through aliases", maxNodes))
	}
	return out
}

func (r *reader) convert(n ast.Node, path string, pos Position, depth int) *ynode {
	switch v := n.(type) {
	case nil:
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	case *ast.NullNode:
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	case *ast.BoolNode:
		return &ynode{kind: kindBool, pos: pos, b: v.Value, str: tokenText(v.Token, strconv.FormatBool(v.Value))}
	case *ast.IntegerNode:
		return &ynode{kind: kindInt, pos: pos, num: v.Value, str: tokenText(v.Token, fmt.Sprint(v.Value))}
	case *ast.FloatNode:
		return &ynode{kind: kindFloat, pos: pos, num: v.Value, str: tokenText(v.Token, fmt.Sprint(v.Value))}
	case *ast.InfinityNode, *ast.NanNode:
		// JSON has no infinities or NaN, and the document must survive a
		// JSON round trip (the compiler hashes its JSON form).
		text := tokenText(n.GetToken(), ".nan")
		r.at(CodeWrongType, path, pos, fmt.Sprintf("%s is not a value JSON can hold; quote it to mean the text: %q", text, text))
		return &ynode{kind: kindString, pos: pos, str: text}
	case *ast.StringNode:
		return &ynode{kind: kindString, pos: pos, str: v.Value}
	case *ast.LiteralNode:
		s := ""
		if v.Value != nil {
			s = v.Value.Value
		}
		return &ynode{kind: kindString, pos: pos, str: s}
	case *ast.TagNode:
		inner := r.node(v.Value, path, pos, depth+1)
		// `!!str 2024` asks for a string; every other tag keeps the value
		// as YAML already typed it.
		if v.Start != nil && (v.Start.Value == "!!str" || v.Start.Value == "!str") {
			switch inner.kind {
			case kindBool, kindInt, kindFloat, kindNull:
				return &ynode{kind: kindString, pos: inner.pos, str: inner.str, size: 1}
			}
		}
		return inner
	case *ast.AnchorNode:
		inner := r.node(v.Value, path, pos, depth+1)
		if name := anchorName(v.Name); name != "" {
			r.anchors[name] = inner
		}
		return inner
	case *ast.AliasNode:
		name := anchorName(v.Value)
		if target, ok := r.anchors[name]; ok {
			return target
		}
		r.at(CodeSyntax, path, pos, fmt.Sprintf("alias *%s names no anchor defined before it", name))
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	case *ast.MappingValueNode:
		// A single `key: value` parsed on its own is a one-key mapping.
		return r.mapping([]*ast.MappingValueNode{v}, v.IsFlowStyle, path, pos, depth)
	case *ast.MappingNode:
		return r.mapping(v.Values, v.IsFlowStyle, path, pos, depth)
	case *ast.SequenceNode:
		out := &ynode{kind: kindSeq, pos: pos, size: 1}
		for i, item := range v.Values {
			ipath := indexPath(path, i)
			child := r.node(item, ipath, pos, depth+1)
			out.seq = append(out.seq, child)
			out.size = addSize(out.size, child.size)
		}
		return out
	default:
		r.at(CodeSyntax, path, pos, fmt.Sprintf("unsupported YAML construct (%s)", n.Type()))
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	}
}

// mapping converts a mapping: keys in source order, duplicates reported and
// dropped, `<<` merge keys applied (explicit keys win over merged ones).
func (r *reader) mapping(values []*ast.MappingValueNode, flow bool, path string, pos Position, depth int) *ynode {
	out := &ynode{kind: kindMap, pos: pos, size: 1}
	seen := map[string]Position{}
	var merged []yentry
	for _, mv := range values {
		if mv == nil {
			continue
		}
		keyPos := nodePos(mv.Key, pos)
		if mv.Key != nil && mv.Key.IsMergeKey() {
			src := r.node(mv.Value, path, keyPos, depth+1)
			merged = append(merged, r.mergeEntries(src, path, keyPos)...)
			continue
		}
		key, ok := keyText(mv.Key)
		kpath := joinKey(path, key)
		if !ok {
			r.at(CodeWrongType, path, keyPos, "mapping keys must be plain strings")
			continue
		}
		if first, dup := seen[key]; dup {
			r.at(CodeDuplicateKey, kpath, keyPos, fmt.Sprintf("key `%s` is given twice in one mapping (first at %d:%d); remove one", key, first.Line, first.Column))
			continue
		}
		seen[key] = keyPos
		child := r.node(mv.Value, kpath, keyPos, depth+1)
		out.keys = append(out.keys, yentry{key: key, keyPos: keyPos, val: child})
		out.size = addSize(out.size, child.size)
	}
	for _, e := range merged {
		if _, dup := seen[e.key]; dup {
			continue
		}
		seen[e.key] = e.keyPos
		out.keys = append(out.keys, e)
		out.size = addSize(out.size, e.val.size)
	}
	// A block mapping has no token of its own: it starts at its first key.
	if !flow && len(values) > 0 && values[0] != nil && values[0].Key != nil {
		out.pos = nodePos(values[0].Key, pos)
	}
	return out
}

// mergeEntries returns the entries a `<<` value contributes: a mapping, or a
// list of mappings where earlier ones win (YAML merge key rules).
func (r *reader) mergeEntries(src *ynode, path string, pos Position) []yentry {
	switch src.kind {
	case kindMap:
		return src.keys
	case kindSeq:
		var out []yentry
		have := map[string]bool{}
		for _, item := range src.seq {
			if item.kind != kindMap {
				r.at(CodeWrongType, path, item.pos, "`<<` merges mappings only")
				continue
			}
			for _, e := range item.keys {
				if !have[e.key] {
					have[e.key] = true
					out = append(out, e)
				}
			}
		}
		return out
	default:
		r.at(CodeWrongType, path, pos, "`<<` merges mappings only, got "+src.describe())
		return nil
	}
}

func addSize(a, b int) int {
	if a > maxNodes || b > maxNodes {
		return maxNodes + 1
	}
	return a + b
}

// keyText returns the text of a scalar mapping key.
func keyText(k ast.MapKeyNode) (string, bool) {
	var n ast.Node = k
	for i := 0; i < 8; i++ {
		switch v := n.(type) {
		case *ast.MappingKeyNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.StringNode:
			return v.Value, true
		case *ast.LiteralNode:
			if v.Value == nil {
				return "", true
			}
			return v.Value.Value, true
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
			if tk := v.GetToken(); tk != nil {
				return tk.Value, true
			}
			return "", false
		default:
			return "", false
		}
	}
	return "", false
}

func anchorName(n ast.Node) string {
	if n == nil {
		return ""
	}
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// nodePos is the 1-based position of n's first token, or fallback.
func nodePos(n ast.Node, fallback Position) (p Position) {
	p = fallback
	if n == nil {
		return p
	}
	// A typed nil node inside the interface has no token to give.
	defer func() {
		if recover() != nil {
			p = fallback
		}
	}()
	return tokenPos(n.GetToken(), fallback)
}

func tokenPos(tk *token.Token, fallback Position) Position {
	if tk == nil || tk.Position == nil || tk.Position.Line <= 0 {
		return fallback
	}
	return Position{Line: tk.Position.Line, Column: tk.Position.Column}
}

// tokenText is the source spelling of a scalar, so messages quote what the
// author wrote (`1.10`, not `1.1`).
func tokenText(tk *token.Token, fallback string) string {
	if tk == nil {
		return fallback
	}
	return tk.Value
}

// jsonValue converts n into the values encoding/json and jsonschema work
// with: map[string]any, []any, string, int64/uint64/float64, bool, nil.
func (n *ynode) jsonValue() any {
	switch n.kind {
	case kindNull:
		return nil
	case kindBool:
		return n.b
	case kindInt:
		return n.num
	case kindFloat:
		return n.num
	case kindString:
		return n.str
	case kindSeq:
		out := make([]any, len(n.seq))
		for i, c := range n.seq {
			out[i] = c.jsonValue()
		}
		return out
	case kindMap:
		out := make(map[string]any, len(n.keys))
		for _, e := range n.keys {
			out[e.key] = e.val.jsonValue()
		}
		return out
	}
	return nil
}

// collectPositions records the position of every mapping key and sequence
// item under root, keyed by path (`semantic_model[0].datasets[2]`), plus ""
// for the root itself. Values reached through an alias get the positions of
// the anchored text.
func collectPositions(root *ynode) map[string]Position {
	out := map[string]Position{}
	if root == nil {
		return out
	}
	out[""] = root.pos
	var walk func(n *ynode, path string)
	walk = func(n *ynode, path string) {
		switch n.kind {
		case kindMap:
			for _, e := range n.keys {
				p := joinKey(path, e.key)
				out[p] = e.keyPos
				walk(e.val, p)
			}
		case kindSeq:
			for i, c := range n.seq {
				p := indexPath(path, i)
				out[p] = c.pos
				walk(c, p)
			}
		}
	}
	walk(root, "")
	return out
}
