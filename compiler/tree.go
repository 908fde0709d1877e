package compiler

import "encoding/json"

// Node is one value of a YAML or JSON file read by ReadNode, for callers
// that find an Ossie document inside a larger file (ossiectl reads a
// SemanticModel manifest's spec this way) and parse it with ParseNode
// without reading the file a second time: the file is read once, under
// DocumentLimits, and every value keeps its line and column in the file.
// The zero Node is "no value". A Node is read-only.
type Node struct{ n *ynode }

// ReadNode reads data as one YAML or JSON document, exactly as Parse
// reads it (CheckDocument first, then the same syntax, duplicate-key and
// alias problems, with paths from the file's root). The Node is the zero
// Node when the file is empty or cannot be read.
func ReadNode(data []byte) (Node, Problems) {
	root, probs := readYAML(data)
	return Node{root}, probs
}

// ParseNode parses the document held by n as Parse parses a file: Doc,
// Positions and problems have paths relative to n and the line:column of
// the file n was read from.
func ParseNode(n Node) (*Parsed, Problems) {
	return parseRoot(n.n, nil)
}

// Exists reports whether n is a value (not the zero Node).
func (n Node) Exists() bool { return n.n != nil }

// IsMapping reports whether n is a mapping.
func (n Node) IsMapping() bool { return n.n != nil && n.n.kind == kindMap }

// IsNull reports whether n is absent or a YAML null.
func (n Node) IsNull() bool { return n.n == nil || n.n.kind == kindNull }

// Pos is where n starts in the file (zero for the zero Node).
func (n Node) Pos() Position {
	if n.n == nil {
		return Position{}
	}
	return n.n.pos
}

// Get returns the value of key in the mapping n and where the key is
// written; ok is false when n is not a mapping or has no such key.
func (n Node) Get(key string) (value Node, keyPos Position, ok bool) {
	if n.n == nil || n.n.kind != kindMap {
		return Node{}, Position{}, false
	}
	for _, e := range n.n.keys {
		if e.key == key {
			return Node{e.val}, e.keyPos, true
		}
	}
	return Node{}, Position{}, false
}

// Text is the value of a string scalar; false for anything else.
func (n Node) Text() (string, bool) {
	if n.n == nil || n.n.kind != kindString {
		return "", false
	}
	return n.n.str, true
}

// Without is the mapping n less the given keys (n itself when it is not a
// mapping). n is not changed.
func (n Node) Without(keys ...string) Node {
	if !n.IsMapping() {
		return n
	}
	c := *n.n
	c.keys = make([]yentry, 0, len(n.n.keys))
	for _, e := range n.n.keys {
		drop := false
		for _, k := range keys {
			drop = drop || e.key == k
		}
		if !drop {
			c.keys = append(c.keys, e)
		}
	}
	return Node{&c}
}

// JSON is n written as JSON (object keys sorted); null for the zero Node.
func (n Node) JSON() ([]byte, error) {
	if n.n == nil {
		return []byte("null"), nil
	}
	return json.Marshal(n.n.jsonValue())
}

// Positions maps the path of every mapping key and sequence item under n
// (`semantic_model[0].datasets[2].name`, relative to n) to where it is
// written, and "" to n itself.
func (n Node) Positions() map[string]Position {
	return collectPositions(n.n)
}

// Items are the values of the sequence n, in order; nil for anything else.
func (n Node) Items() []Node {
	if n.n == nil || n.n.kind != kindSeq {
		return nil
	}
	out := make([]Node, len(n.n.seq))
	for i, c := range n.n.seq {
		out[i] = Node{c}
	}
	return out
}

// Keys are the keys of the mapping n in the order written (duplicates
// removed); nil for anything else.
func (n Node) Keys() []string {
	if !n.IsMapping() {
		return nil
	}
	out := make([]string, len(n.n.keys))
	for i, e := range n.n.keys {
		out[i] = e.key
	}
	return out
}

// Scalar is a scalar's text: the value of a string, the text as written
// of a number or boolean (`1.0`, `yes`), "null" for a null; false for a
// collection or the zero Node.
func (n Node) Scalar() (string, bool) {
	if n.n == nil || n.n.kind == kindSeq || n.n.kind == kindMap {
		return "", false
	}
	return n.n.str, true
}

// With is the mapping n with the value of key replaced by v, at the same
// place; n itself when it is not a mapping or has no such key. n is not
// changed.
func (n Node) With(key string, v Node) Node {
	if !n.IsMapping() || v.n == nil {
		return n
	}
	c := *n.n
	c.keys = append([]yentry(nil), n.n.keys...)
	for i := range c.keys {
		if c.keys[i].key == key {
			c.keys[i].val = v.n
			return Node{&c}
		}
	}
	return n
}

// WithText is the string s where n is written (a caller that edits the
// file's text builds the edited tree with it and With).
func (n Node) WithText(s string) Node {
	return Node{&ynode{kind: kindString, pos: n.Pos(), str: s, size: 1}}
}
