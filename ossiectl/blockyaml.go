package ossiectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// readYAMLNode reads one YAML or JSON document into go-yaml v3's node tree,
// with aliases replaced by copies of what they name, so its parts can be
// moved and written in any order. The caller bounds the input first
// (compiler.CheckDocument or the model reader): go-yaml v3 composes about
// 250 bytes per value, where goccy/go-yaml's ordered maps took 1.5 KB
// (issue 25).
//
// Errors: go-yaml's syntax error; a document that is empty.
func readYAMLNode(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("want one document")
	}
	root := doc.Content[0]
	if !hasAlias(root) {
		dropAnchors(root)
		return root, nil
	}
	return expandAliases(root), nil
}

// hasAlias reports whether any node under n is an alias; without one the
// tree is written as it is, and copying it (expandAliases) would only
// double the memory of a large document.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// dropAnchors clears every anchor under n in place: with no alias reading
// them they say nothing, and blockYAML does not write them.
func dropAnchors(n *yaml.Node) {
	n.Anchor = ""
	for _, c := range n.Content {
		dropAnchors(c)
	}
}

// expandAliases returns n with every alias replaced by a copy of its anchor's
// node and the anchors dropped, so a node keeps its meaning wherever it is
// written.
func expandAliases(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expandAliases(n.Alias)
	}
	out := *n
	out.Anchor = ""
	out.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out.Content[i] = expandAliases(c)
	}
	return &out
}

// blockYAML writes n as block YAML indented by two spaces, sequences
// indented under their key, without comments: a text stays quoted (as
// JSON quotes it, which YAML's double-quoted style reads the same) unless
// it is plainly a word or an expression (plainText), so a JSON document
// becomes the YAML a person would write and reads back as the same
// document under YAML 1.2 (go-yaml v3) and YAML 1.1 (sigs.k8s.io/yaml, as
// kubectl reads a manifest). Written here rather than by go-yaml v3's
// encoder, whose emitter keeps every event it was given: 150 MB for a
// document at the limits (issue 25).
func blockYAML(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if err := writeBlock(&b, n, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// writeBlock writes the value n whose first line is already begun (after
// "key:" or "- "), its further lines at indent.
func writeBlock(b *bytes.Buffer, n *yaml.Node, indent string) error {
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) > 0:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 || b.Len() > 0 && b.Bytes()[b.Len()-1] == ':' {
				b.WriteString("\n" + indent)
			}
			if err := writeScalar(b, n.Content[i]); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeValue(b, n.Content[i+1], indent); err != nil {
				return err
			}
		}
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		for i, c := range n.Content {
			if i > 0 || b.Len() > 0 && b.Bytes()[b.Len()-1] == ':' {
				b.WriteString("\n" + indent)
			}
			b.WriteString("- ")
			if err := writeBlock(b, c, indent+"  "); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode:
		b.WriteString("{}")
	case n.Kind == yaml.SequenceNode:
		b.WriteString("[]")
	default:
		return writeScalar(b, n)
	}
	return nil
}

// writeValue writes a mapping's value after its "key:".
func writeValue(b *bytes.Buffer, v *yaml.Node, indent string) error {
	if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) > 0 {
		return writeBlock(b, v, indent+"  ")
	}
	b.WriteByte(' ')
	return writeBlock(b, v, indent)
}

func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a key that is not a text", n.Line)
	}
	if n.Tag != "!!str" || plainText(n.Value) {
		b.WriteString(n.Value)
		return nil
	}
	q, err := json.Marshal(n.Value)
	if err != nil {
		return err
	}
	b.Write(q)
	return nil
}

// yaml11Words are the plain words YAML 1.1 reads as booleans or null
// (yaml.org/type/bool.html, null.html); YAML 1.2 reads most as text, so
// go-yaml v3 would write them unquoted.
var yaml11Words = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true,
}

// plainText reports whether s reads as the same text written plain in a
// block mapping under YAML 1.1 and 1.2: it starts with a letter or '_',
// holds letters, digits and the punctuation of names and expressions but
// no ':' or '#', does not end in a space, and is not a YAML 1.1 boolean
// or null word.
func plainText(s string) bool {
	if s == "" || yaml11Words[strings.ToLower(s)] || strings.HasSuffix(s, " ") {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(r >= '0' && r <= '9') && !strings.ContainsRune(" .,()*/+-=<>'", r) {
			return false
		}
	}
	return true
}
