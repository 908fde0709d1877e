package compiler

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaJSON is our JSON Schema (draft 2020-12) of the Ossie document: the
// same structure Parse enforces, published for editors and other tools.
//
//go:embed schema/ossie.schema.json
var SchemaJSON []byte

// schemaURL is the schema's $id; nothing is fetched from it.
const schemaURL = "https://ossie.dev/schema/ossie.schema.json"

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(schemaURL, SchemaJSON) })

// compileSchema compiles one embedded JSON Schema registered under url
// (nothing is fetched from it).
func compileSchema(url string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// ValidateSchema checks a YAML or JSON document against SchemaJSON and
// returns every violation as a Problem with the path and line:column of the
// offending value. It reads the input exactly as Parse does (same syntax and
// duplicate-key problems), then maps schema errors to codes: a wrong type
// is CodeWrongType, a key not in the schema CodeUnknownKey, a missing key
// CodeMissingKey, a value outside an enum CodeInvalidValue, an empty list
// that needs entries CodeEmpty, anything about `version`
// CodeUnsupportedVersion, and everything else CodeSchema.
func ValidateSchema(data []byte) Problems {
	root, probs := readYAML(data)
	if root == nil && len(probs) > 0 {
		probs.Sort()
		return probs
	}
	if root == nil {
		root = &ynode{kind: kindMap, pos: Position{Line: 1, Column: 1}}
	}
	sch, err := compiledSchema()
	if err != nil {
		return append(probs, Problem{Code: CodeSchema, Severity: SeverityError, Message: "internal error: the embedded schema does not compile: " + err.Error()})
	}
	err = sch.Validate(root.jsonValue())
	if err != nil {
		verr, ok := err.(*jsonschema.ValidationError)
		if !ok {
			probs = append(probs, Problem{Code: CodeSchema, Severity: SeverityError, Message: err.Error()})
		} else {
			m := &schemaMapper{root: root, seen: map[string]bool{}, printer: message.NewPrinter(language.English)}
			m.visit(verr)
			probs = append(probs, m.probs...)
		}
	}
	probs.Sort()
	return probs
}

var decodedSchema = sync.OnceValue(func() map[string]any {
	var out map[string]any
	_ = json.Unmarshal(SchemaJSON, &out) // TestSchemaCompiles proves it decodes
	return out
})

// schemaProperties lists, sorted, the properties the schema object at
// location (`<url>#/$defs/Dataset`) declares, for a did you mean.
func schemaProperties(location string) []string {
	_, frag, _ := strings.Cut(location, "#")
	var node any = decodedSchema()
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		obj, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = obj[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	obj, _ := node.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// schemaMapper turns a jsonschema error tree into Problems.
type schemaMapper struct {
	root    *ynode
	probs   Problems
	seen    map[string]bool
	printer *message.Printer
}

func (m *schemaMapper) add(code string, loc []string, useKeyPos bool, msg string) {
	path, pos := m.locate(loc, useKeyPos)
	id := code + "\x00" + path + "\x00" + msg
	if m.seen[id] {
		return
	}
	m.seen[id] = true
	m.probs = append(m.probs, Problem{Code: code, Severity: SeverityError, Path: path, Line: pos.Line, Column: pos.Column, Message: msg})
}

// locate converts a JSON pointer (as tokens) into our path syntax by walking
// the document, and finds the position of the value there (or of its key
// when useKeyPos).
func (m *schemaMapper) locate(loc []string, useKeyPos bool) (string, Position) {
	n, path, pos := m.root, "", m.root.pos
	for _, tok := range loc {
		if n == nil {
			path = joinKey(path, tok)
			continue
		}
		switch n.kind {
		case kindSeq:
			i := -1
			fmt.Sscanf(tok, "%d", &i)
			path = path + "[" + tok + "]"
			if i >= 0 && i < len(n.seq) {
				n = n.seq[i]
				pos = n.pos
			} else {
				n = nil
			}
		case kindMap:
			path = joinKey(path, tok)
			var next *ynode
			for _, e := range n.keys {
				if e.key == tok {
					next = e.val
					pos = e.val.pos
					if useKeyPos {
						pos = e.keyPos
					}
				}
			}
			n = next
		default:
			path = joinKey(path, tok)
			n = nil
		}
	}
	return path, pos
}

func (m *schemaMapper) visit(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	isVersion := len(loc) == 1 && loc[0] == "version"
	switch k := e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		m.alternatives(e)
	case *kind.Type:
		if isVersion {
			m.add(CodeUnsupportedVersion, loc, false, fmt.Sprintf("`version` must be a quoted string, got %s: %s", k.Got, versionHelp()))
			return
		}
		m.add(CodeWrongType, loc, false, fmt.Sprintf("must be %s, got %s", strings.Join(k.Want, " or "), k.Got))
	case *kind.Required:
		for _, missing := range k.Missing {
			if len(loc) == 0 && missing == "version" {
				m.add(CodeUnsupportedVersion, []string{"version"}, false, "the document has no `version`: "+versionHelp())
				continue
			}
			m.add(CodeMissingKey, loc, false, fmt.Sprintf("missing required key `%s`", missing))
		}
	case *kind.AdditionalProperties:
		allowed := schemaProperties(e.SchemaURL)
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown key `%s`", p)
			if s := DidYouMean(p, allowed); s != "" {
				msg += fmt.Sprintf("; did you mean `%s`?", s)
			}
			m.add(CodeUnknownKey, append(append([]string{}, loc...), p), true, msg)
		}
	case *kind.Enum, *kind.Const:
		code := CodeInvalidValue
		if isVersion {
			code = CodeUnsupportedVersion
		}
		m.add(code, loc, false, e.ErrorKind.LocalizedString(m.printer))
	case *kind.MinItems:
		m.add(CodeEmpty, loc, false, fmt.Sprintf("needs at least %d entries, got %d", k.Want, k.Got))
	default:
		if len(e.Causes) == 0 {
			m.add(CodeSchema, loc, false, e.ErrorKind.LocalizedString(m.printer))
			return
		}
		for _, c := range e.Causes {
			m.visit(c)
		}
	}
}

// alternatives reports a failed oneOf/anyOf (ai_context, source) the way a
// person reads it. Branches that failed only because the value has another
// type are dropped; so are branches whose discriminator (a const or enum
// directly under the value, such as source.kind) did not match, when some
// other branch did match it. If one branch remains its errors are reported;
// if none remains the value has the wrong type or a bad discriminator;
// otherwise the errors all remaining branches share are reported, or else
// one CodeSchema problem summarises them.
func (m *schemaMapper) alternatives(e *jsonschema.ValidationError) {
	depth := len(e.InstanceLocation)
	var kept, wrongTag []*jsonschema.ValidationError
	var wants []string
	for _, c := range e.Causes {
		if w, ok := onlyTypeError(c, depth); ok {
			wants = append(wants, w...)
			continue
		}
		if hasTagMismatch(c, depth) {
			wrongTag = append(wrongTag, c)
			continue
		}
		kept = append(kept, c)
	}
	switch {
	case len(kept) == 1:
		m.visit(kept[0])
		return
	case len(kept) > 1:
		if common := commonLeaves(kept, m.printer); len(common) > 0 {
			for _, l := range common {
				m.visit(l)
			}
			return
		}
		var parts []string
		for _, c := range kept {
			for _, l := range leaves(c) {
				parts = append(parts, l.ErrorKind.LocalizedString(m.printer))
			}
		}
		m.add(CodeSchema, e.InstanceLocation, false, "matches none of the allowed forms: "+strings.Join(dedupe(parts), "; "))
		return
	case len(wrongTag) > 0:
		// Every object form rejected the discriminator: report it once,
		// with all the values the forms accept.
		var loc []string
		var allowed []string
		for _, c := range wrongTag {
			for _, l := range leaves(c) {
				if len(l.InstanceLocation) != depth+1 {
					continue
				}
				switch k := l.ErrorKind.(type) {
				case *kind.Const:
					loc, allowed = l.InstanceLocation, append(allowed, fmt.Sprintf("%q", fmt.Sprint(k.Want)))
				case *kind.Enum:
					loc = l.InstanceLocation
					for _, w := range k.Want {
						allowed = append(allowed, fmt.Sprintf("%q", fmt.Sprint(w)))
					}
				}
			}
		}
		m.add(CodeInvalidValue, loc, false, "value must be one of "+strings.Join(dedupe(allowed), ", "))
		return
	}
	got := ""
	if leaf := firstLeaf(e); leaf != nil {
		if t, ok := leaf.ErrorKind.(*kind.Type); ok {
			got = t.Got
		}
	}
	sort.Strings(wants)
	m.add(CodeWrongType, e.InstanceLocation, false, fmt.Sprintf("must be %s, got %s", strings.Join(dedupe(wants), " or "), got))
}

// hasTagMismatch reports whether a const or enum directly under the value
// at depth failed in e (a discriminator such as `kind`).
func hasTagMismatch(e *jsonschema.ValidationError, depth int) bool {
	for _, l := range leaves(e) {
		if len(l.InstanceLocation) != depth+1 {
			continue
		}
		switch l.ErrorKind.(type) {
		case *kind.Const, *kind.Enum:
			return true
		}
	}
	return false
}

// commonLeaves returns the leaf errors that every branch reports (same
// location, same message), in the order of the first branch.
func commonLeaves(branches []*jsonschema.ValidationError, p *message.Printer) []*jsonschema.ValidationError {
	sig := func(l *jsonschema.ValidationError) string {
		return strings.Join(l.InstanceLocation, "/") + "\x00" + l.ErrorKind.LocalizedString(p)
	}
	count := map[string]int{}
	for _, b := range branches {
		seen := map[string]bool{}
		for _, l := range leaves(b) {
			if s := sig(l); !seen[s] {
				seen[s] = true
				count[s]++
			}
		}
	}
	var out []*jsonschema.ValidationError
	seen := map[string]bool{}
	for _, l := range leaves(branches[0]) {
		if s := sig(l); count[s] == len(branches) && !seen[s] {
			seen[s] = true
			out = append(out, l)
		}
	}
	return out
}

// onlyTypeError reports whether every leaf of e is a type mismatch of the
// value at depth (the alternative's own value), returning the wanted types.
func onlyTypeError(e *jsonschema.ValidationError, depth int) ([]string, bool) {
	var wants []string
	for _, l := range leaves(e) {
		t, ok := l.ErrorKind.(*kind.Type)
		if !ok || len(l.InstanceLocation) != depth {
			return nil, false
		}
		wants = append(wants, t.Want...)
	}
	return wants, len(wants) > 0
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if l := leaves(e); len(l) > 0 {
		return l[0]
	}
	return nil
}

func dedupe(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
