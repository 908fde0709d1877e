package ossiectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	goyaml "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Helpers over goccy/go-yaml ASTs, shared by the commands that read a file
// as written (manifest detection, positions) or edit it in place while
// keeping comments and key order (migrate, enrich).

// unwrap strips anchors and tags, which do not change what a node means here.
func unwrap(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.TagNode:
			n = x.Value
		default:
			return n
		}
	}
}

// asMapping returns n as a mapping, or nil.
func asMapping(n ast.Node) *ast.MappingNode {
	if n == nil {
		return nil
	}
	switch m := unwrap(n).(type) {
	case *ast.MappingNode:
		return m
	case *ast.MappingValueNode:
		// A one-key block mapping parses as a bare MappingValueNode.
		return &ast.MappingNode{BaseNode: m.BaseNode, Values: []*ast.MappingValueNode{m}}
	}
	return nil
}

// asSequence returns n as a sequence, or nil.
func asSequence(n ast.Node) *ast.SequenceNode {
	if n == nil {
		return nil
	}
	s, _ := unwrap(n).(*ast.SequenceNode)
	return s
}

// keyName is the text of a mapping key.
func keyName(k ast.MapKeyNode) string {
	if s, ok := scalarString(k); ok {
		return s
	}
	return k.GetToken().Value
}

// mapGet returns the entry of m with key, or nil.
func mapGet(m *ast.MappingNode, key string) *ast.MappingValueNode {
	if m == nil {
		return nil
	}
	for _, v := range m.Values {
		if keyName(v.Key) == key {
			return v
		}
	}
	return nil
}

// mapValue returns the value of m[key], or nil.
func mapValue(m *ast.MappingNode, key string) ast.Node {
	if v := mapGet(m, key); v != nil {
		return v.Value
	}
	return nil
}

// scalarString returns the text of a string scalar (any quoting style,
// block scalars included).
func scalarString(n ast.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	switch s := unwrap(n).(type) {
	case *ast.StringNode:
		return s.Value, true
	case *ast.LiteralNode:
		return s.Value.Value, true
	}
	return "", false
}

// parseValue parses YAML text (a scalar, or a mapping/sequence written in
// flow style when flow is set) into a node ready to be placed in a tree.
func parseValue(text string) (ast.Node, error) {
	f, err := parser.ParseBytes([]byte(text), 0)
	if err != nil {
		return nil, err
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, fmt.Errorf("internal: %q is not one YAML value", text)
	}
	return f.Docs[0].Body, nil
}

// quoted is s as a double-quoted scalar, valid in YAML and JSON alike.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// replaceValue sets the value of entry to the YAML text value, keeping
// the key, its comments and the indentation.
func replaceValue(entry *ast.MappingValueNode, value string) error {
	n, err := parseValue(value)
	if err != nil {
		return err
	}
	if entry.IsFlowStyle {
		setFlow(n)
	}
	return entry.Replace(n)
}

// addEntries appends the entries of the mapping written in YAML text to m
// (keys m already has are replaced), in m's style: a JSON or flow mapping
// gets flow entries, a block mapping block ones at its indentation.
func addEntries(m *ast.MappingNode, text string) error {
	if m.IsFlowStyle {
		// Flow mappings may be JSON documents: write the entries as JSON
		// (quoted keys), which is also valid flow YAML.
		j, err := goyaml.YAMLToJSON([]byte(text))
		if err != nil {
			return err
		}
		text = string(j)
	}
	n, err := parseValue(text)
	if err != nil {
		return err
	}
	src := asMapping(n)
	if src == nil {
		return fmt.Errorf("internal: %q is not a mapping", text)
	}
	if m.IsFlowStyle {
		setFlow(src)
	}
	return ast.Merge(m, src)
}

// prependEntry puts `key: value` first in the block mapping m.
func prependEntry(m *ast.MappingNode, key, value string) error {
	n, err := parseValue(key + ": " + value)
	if err != nil {
		return err
	}
	src := asMapping(n)
	if m.IsFlowStyle || len(m.Values) == 0 {
		if err := addEntries(m, key+": "+value); err != nil {
			return err
		}
		last := len(m.Values) - 1
		m.Values = append([]*ast.MappingValueNode{m.Values[last]}, m.Values[:last]...)
		return nil
	}
	src.AddColumn(m.Values[0].Key.GetToken().Position.Column - src.Values[0].Key.GetToken().Position.Column)
	m.Values = append(src.Values, m.Values...)
	return nil
}

func setFlow(n ast.Node) {
	switch x := n.(type) {
	case *ast.MappingNode:
		x.SetIsFlowStyle(true)
	case *ast.SequenceNode:
		x.SetIsFlowStyle(true)
	}
}

// renderFile prints an edited tree. Block YAML comes back as written
// except for the edits; JSON input is re-indented so it stays readable
// JSON (goccy prints flow collections on one line).
func renderFile(f *ast.File, original []byte) ([]byte, error) {
	out := f.String()
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if isJSON(original) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(out), "", "  "); err != nil {
			return nil, fmt.Errorf("internal: edited JSON is not JSON: %w", err)
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	}
	return []byte(out), nil
}

// isJSON reports whether a document is written as JSON (starts with `{`).
func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// placeAfter moves the entry key of m to just after the last of the keys
// in after that m has, so added entries sit where an author would put
// them (a description under the name, not below a long field list).
func placeAfter(m *ast.MappingNode, key string, after ...string) {
	from, to := -1, -1
	for i, v := range m.Values {
		name := keyName(v.Key)
		if name == key {
			from = i
		}
		for _, a := range after {
			if name == a {
				to = i
			}
		}
	}
	if from < 0 || to < 0 || from == to+1 {
		return
	}
	entry := m.Values[from]
	rest := append(m.Values[:from:from], m.Values[from+1:]...)
	if from < to {
		to--
	}
	m.Values = append(rest[:to+1:to+1], append([]*ast.MappingValueNode{entry}, rest[to+1:]...)...)
}
