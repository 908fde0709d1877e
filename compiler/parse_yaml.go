package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	yaml4 "go.yaml.in/yaml/v4"
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
	docs, err := composeSafely(data)
	if err != nil {
		return nil, Problems{syntaxProblem(err, data)}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	r := &reader{anchors: map[string]*ynode{}}
	if len(docs) > 1 {
		r.add(Problem{Code: CodeSyntax, Severity: SeverityError, Line: docs[1].Line, Column: docs[1].Column,
			Message: fmt.Sprintf("a file holds one Ossie document, found %d separated by `---`; split them into separate files", len(docs))})
	}
	root := r.node(docs[0].Content[0], "", Position{Line: 1, Column: 1}, 0)
	if r.tooBig {
		return nil, r.probs
	}
	return root, r.probs
}

// composeSafely composes every document of data into go-yaml v3 node
// trees (scalar tags resolved) and returns those that hold something: a
// document marker followed by nothing is no document, as before it. A
// panic inside the library becomes a syntax error: malformed input must
// never crash the caller.
//
// go-yaml v3 (a port of libyaml) is used rather than goccy/go-yaml for
// its cost (issue 25): a document at the limits (100,000 values in
// 256-key mappings) composes in about 23 MB, as YAML or as JSON, where
// goccy's AST took 155 MB. (go-yaml v4 is as cheap on block YAML but
// buffers a whole flow collection as a possible key: 200 MB for the same
// document as JSON, the operator's form.) Node trees carry the line and
// column of every value, and keep duplicate keys and merge keys as
// written: the reader below reports and applies them itself.
func composeSafely(data []byte) (docs []*yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("input could not be read as YAML or JSON (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		switch err := dec.Decode(&doc); {
		case err == io.EOF:
			return docs, nil
		case err != nil:
			return nil, err
		}
		if len(doc.Content) == 1 && !emptyNode(doc.Content[0]) {
			docs = append(docs, &doc)
		}
	}
}

// emptyNode reports the null go-yaml composes for a document with no
// content (`---` alone): not written, so not a value.
func emptyNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "" && n.Style == 0 && n.Anchor == ""
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
// offending token's line and column (locateSyntaxError). A tab where YAML
// allows only spaces (in indentation; in flow collections and after a
// value YAML allows it), which go-yaml reports as a character "that cannot
// start any token" or a "tab character" it cannot use, is said in plain
// words instead: the line and column of the tab and what to do.
func syntaxProblem(err error, data []byte) Problem {
	p := locateSyntaxError(err, data)
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
	} else if at := min(max(p.Column, 1), len(l)); strings.Contains(p.Message, "tab character") || at > 0 && l[at-1] == '\t' {
		// go-yaml may point at the token after the tab: point at the tab.
		if t := bytes.LastIndexByte(l[:at], '\t'); t >= 0 {
			p.Column = t + 1
		}
		p.Message = fmt.Sprintf("a tab at line %d, column %d, where YAML allows only spaces: replace the tab with spaces", p.Line, p.Column)
	}
	return p
}

// v3Error is the shape of go-yaml v3's error text: a line (sometimes the
// line of the construct the error is in) and libyaml's message.
var v3Error = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// maxRelocate bounds the input go-yaml v4 re-reads to place an error
// (v4 spends up to about 400 bytes per byte of a flow collection).
const maxRelocate = 128 << 10

// locateSyntaxError places a go-yaml v3 error, which gives a line and no
// column: go-yaml v4, the same libyaml scanner and parser with structured
// errors, re-reads the input up to two lines after the error's and gives
// the line and column. Over maxRelocate bytes, the error is placed at the
// first character of v3's line.
func locateSyntaxError(err error, data []byte) Problem {
	p := Problem{Code: CodeSyntax, Severity: SeverityError, Message: "not valid YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	m := v3Error.FindStringSubmatch(err.Error())
	if m == nil {
		return p
	}
	p.Message = "not valid YAML or JSON: " + m[2]
	line, _ := strconv.Atoi(m[1])
	prefix := data
	if line > 0 {
		prefix = data[:lineEnd(data, line+2)]
	}
	if len(prefix) <= maxRelocate {
		var doc yaml4.Node
		l, _ := yaml4.NewLoader(bytes.NewReader(prefix))
		for l != nil {
			err := l.Load(&doc)
			var le *yaml4.LoadError
			if errors.As(err, &le) && le.Mark.Line > 0 {
				return loadErrorProblem(le)
			}
			if err != nil {
				break
			}
		}
	}
	if line > 0 && line <= bytes.Count(data, []byte("\n"))+1 {
		start := lineEnd(data, line-1)
		if line > 1 {
			start++ // past the line break
		}
		rest := data[start:lineEnd(data, line)]
		p.Line, p.Column = line, len(rest)-len(bytes.TrimLeft(rest, " \t"))+1
	}
	return p
}

// lineEnd is the index of the line break ending the 1-based line n of data
// (len(data) for the last line; 0 for n = 0).
func lineEnd(data []byte, n int) int {
	end := -1
	for ; n > 0; n-- {
		i := bytes.IndexByte(data[end+1:], '\n')
		if i < 0 {
			return len(data)
		}
		end += 1 + i
	}
	return max(end, 0)
}

// unclosed names what a go-yaml error context opened, for the errors that
// mean it was never closed: those point at the opening bracket or quote,
// where the fix belongs, rather than where the reader gave up.
var unclosed = map[string]string{
	"while parsing a flow sequence":  "the list opened here with `[`",
	"while parsing a flow mapping":   "the mapping opened here with `{`",
	"while scanning a quoted scalar": "the quoted text opened here",
}

// unknownAnchor is go-yaml's message for an alias of no anchor.
var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// loadErrorProblem is the problem of a go-yaml v4 error, at its line and
// column.
func loadErrorProblem(le *yaml4.LoadError) Problem {
	p := Problem{Code: CodeSyntax, Severity: SeverityError, Line: le.Mark.Line, Column: le.Mark.Column, Message: "not valid YAML or JSON: " + le.Message}
	if m := unknownAnchor.FindStringSubmatch(le.Message); m != nil {
		p.Message = fmt.Sprintf("alias *%s names no anchor defined before it", m[1])
	}
	what, ok := unclosed[le.ContextMsg]
	if ok && le.ContextMark.Line > 0 && (strings.HasPrefix(le.Message, "did not find expected ','") || le.Message == "found unexpected end of stream") {
		p.Line, p.Column = le.ContextMark.Line, le.ContextMark.Column
		p.Message = fmt.Sprintf("not valid YAML or JSON: %s is not closed (%s at %d:%d)", what, le.Message, le.Mark.Line, le.Mark.Column)
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

// node converts one go-yaml node. path is where it sits (for problems),
// fallback the position to use when the node carries none.
func (r *reader) node(n *yaml.Node, path string, fallback Position, depth int) *ynode {
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
	// An anchor names the value once it is read, so an alias inside it
	// (a cycle) names no anchor yet.
	if n != nil && n.Anchor != "" && n.Kind != yaml.AliasNode {
		r.anchors[n.Anchor] = out
	}
	return out
}

func (r *reader) convert(n *yaml.Node, path string, pos Position, depth int) *ynode {
	if n == nil {
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return r.scalar(n, path, pos)
	case yaml.AliasNode:
		if target, ok := r.anchors[n.Value]; ok {
			return target
		}
		r.at(CodeSyntax, path, pos, fmt.Sprintf("alias *%s names no anchor defined before it", n.Value))
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	case yaml.MappingNode:
		return r.mapping(n, path, pos, depth)
	case yaml.SequenceNode:
		out := &ynode{kind: kindSeq, pos: pos, size: 1}
		for i, item := range n.Content {
			ipath := indexPath(path, i)
			child := r.node(item, ipath, pos, depth+1)
			out.seq = append(out.seq, child)
			out.size = addSize(out.size, child.size)
		}
		return out
	default:
		r.at(CodeSyntax, path, pos, fmt.Sprintf("unsupported YAML construct (%v)", n.Kind))
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	}
}

// quotedStyles are the scalar styles that always mean a string.
const quotedStyles = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

// scalar converts a scalar by its YAML 1.2 core schema type. Quoted and
// block scalars are strings; `!!str 2024` asks for a string; every other
// tag keeps the value as YAML types its text (`!!int x` is the text x).
// A timestamp, which JSON cannot hold, stays the text written.
func (r *reader) scalar(n *yaml.Node, path string, pos Position) *ynode {
	text := n.Value
	tag := n.Tag
	switch {
	case n.Style&quotedStyles != 0 || tag == "!!str" || tag == "!str":
		return &ynode{kind: kindString, pos: pos, str: text}
	case n.Style&yaml.TaggedStyle != 0:
		tag = plainTag(text)
	}
	switch tag {
	case "!!null":
		return &ynode{kind: kindNull, pos: pos, str: "null"}
	case "!!bool":
		return &ynode{kind: kindBool, pos: pos, b: text == "true" || text == "True" || text == "TRUE", str: text}
	case "!!int":
		if num := yamlInt(text); num != nil {
			return &ynode{kind: kindInt, pos: pos, num: num, str: text}
		}
	case "!!float":
		f := yamlFloat(text)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			// JSON has no infinities or NaN, and the document must survive a
			// JSON round trip (the compiler hashes its JSON form).
			r.at(CodeWrongType, path, pos, fmt.Sprintf("%s is not a value JSON can hold; quote it to mean the text: %q", text, text))
			return &ynode{kind: kindString, pos: pos, str: text}
		}
		return &ynode{kind: kindFloat, pos: pos, num: f, str: text}
	}
	return &ynode{kind: kindString, pos: pos, str: text}
}

// plainTag is the core schema tag YAML gives text written as a plain
// scalar without a tag (go-yaml resolves it; rare: only explicit tags
// other than !!str come here).
func plainTag(text string) string {
	var v any
	if (&yaml.Node{Kind: yaml.ScalarNode, Value: text}).Decode(&v) != nil {
		return "!!str"
	}
	switch v.(type) {
	case nil:
		return "!!null"
	case bool:
		return "!!bool"
	case int, int64, uint64:
		return "!!int"
	case float64:
		return "!!float"
	}
	return "!!str"
}

// yamlInt is the value of a YAML integer (decimal, 0x, 0o, 0b, a leading
// 0 for octal, `_` separators) as go-yaml reads it: an int64, a uint64 for
// larger ones, nil when it is neither.
func yamlInt(text string) any {
	plain := strings.ReplaceAll(text, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(strings.TrimPrefix(plain, "+"), 0, 64); err == nil {
		return u
	}
	return nil
}

// yamlFloat is the value of a YAML float: decimal or exponent notation,
// or one of the infinities and NaN (.inf, -.Inf, .NaN, ...).
func yamlFloat(text string) float64 {
	switch strings.ToLower(text) {
	case ".inf", "+.inf":
		return math.Inf(1)
	case "-.inf":
		return math.Inf(-1)
	case ".nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	return f
}

// mapping converts a mapping: keys in source order, duplicates reported and
// dropped, `<<` merge keys applied (explicit keys win over merged ones).
func (r *reader) mapping(n *yaml.Node, path string, pos Position, depth int) *ynode {
	out := &ynode{kind: kindMap, pos: pos, size: 1, keys: make([]yentry, 0, len(n.Content)/2)}
	seen := make(map[string]Position, len(n.Content)/2)
	var merged []yentry
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		keyPos := nodePos(k, pos)
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			src := r.node(v, path, keyPos, depth+1)
			merged = append(merged, r.mergeEntries(src, path, keyPos)...)
			continue
		}
		key, ok := keyText(k)
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
		child := r.node(v, kpath, keyPos, depth+1)
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
	// A block mapping starts at its first key (not at an anchor or tag
	// before it).
	if n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0 {
		out.pos = nodePos(n.Content[0], pos)
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

// keyText returns the text of a scalar mapping key, as written (`1.10`).
func keyText(k *yaml.Node) (string, bool) {
	if k == nil || k.Kind != yaml.ScalarNode {
		return "", false
	}
	return k.Value, true
}

// nodePos is the 1-based position where n starts, or fallback.
func nodePos(n *yaml.Node, fallback Position) Position {
	if n == nil || n.Line <= 0 {
		return fallback
	}
	return Position{Line: n.Line, Column: n.Column}
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
