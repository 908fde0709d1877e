package ossiectl

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// ossieInput is one file as ossiectl reads it: either a plain Ossie
// document or a SemanticModel manifest (`ossie.dev/v1alpha1`) whose spec
// holds one. doc is what compiler.Parse reads in both cases.
type ossieInput struct {
	// doc is a plain document's bytes; tree is a manifest's document,
	// already read (compiler.ReadNode), with treeProbs the reader's
	// problems inside it (paths relative to the spec).
	doc       []byte
	tree      compiler.Node
	treeProbs compiler.Problems
	// governance is the JSON of spec.governance (compiler.ParseGovernance
	// input), nil when the file has none: the operator folds it into the
	// verdict and the artifact version, so ossiectl does too.
	governance []byte
	// views is spec.views as written (JSON), for diff.
	views    []byte
	manifest *manifestInput // nil for a plain document
}

// manifestInput locates the document inside a manifest, so problems can
// be reported at the manifest's own paths and line:column.
type manifestInput struct {
	name, namespace string
	specPos         compiler.Position
	positions       map[string]compiler.Position // document path -> manifest position
}

// readOssieInput recognises a SemanticModel manifest (a mapping with
// `kind: SemanticModel` and an `apiVersion` of group ossie.dev) and takes
// its spec, minus the keys that are not part of the Ossie document
// (spec.views, spec.governance, ... — every SemanticModelSpec field other
// than version and semantic_model), as the document the operator compiles
// (operator.DocumentJSON produces the same from the typed spec). The file
// is read once, by the compiler's reader (compiler.ReadNode), and the spec
// parsed from that tree (issue 25: reading it again as JSON cost a
// document at the limits 233 MB and 0.7 s). Anything else is returned
// unchanged for compiler.Parse to judge, so a broken plain document gets
// the compiler's own problems. A document over the compiler's limits
// (compiler.CheckDocument: OSS1020, OSS1021) is refused before any YAML
// parser reads it.
func readOssieInput(data []byte) (*ossieInput, compiler.Problems) {
	if p := compiler.CheckDocument(data); p != nil {
		return nil, compiler.Problems{*p}
	}
	if !bytes.Contains(data, []byte("SemanticModel")) {
		// Not a manifest: spare a plain document a read of its tree here.
		return &ossieInput{doc: data}, nil
	}
	root, readProbs := compiler.ReadNode(data)
	if in, probs := fromTree(root, readProbs); in != nil || probs != nil {
		return in, probs
	}
	return &ossieInput{doc: data}, nil
}

// fromTree is readOssieInput of a file already read (compiler.ReadNode):
// nil and no problems when it is not a SemanticModel manifest.
func fromTree(root compiler.Node, readProbs compiler.Problems) (*ossieInput, compiler.Problems) {
	kindNode, _, _ := root.Get("kind")
	kind, _ := kindNode.Text()
	apiNode, _, hasAPI := root.Get("apiVersion")
	if kind != "SemanticModel" || !hasAPI {
		return nil, nil
	}
	bad := func(path string, pos compiler.Position, msg string) (*ossieInput, compiler.Problems) {
		return nil, compiler.Problems{{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Path: path, Line: pos.Line, Column: pos.Column, Message: msg}}
	}
	want := v1alpha1.GroupVersion.String()
	if apiVersion, _ := apiNode.Text(); apiVersion != want {
		return bad("apiVersion", apiNode.Pos(), fmt.Sprintf("SemanticModel apiVersion %q is not read by this build; use %q (regenerate with `ossiectl manifest`)", apiVersion, want))
	}
	// What the reader found inside the spec (a duplicate key) is the
	// document's problem and is reported at its spec path, as the
	// document's own problems are (remap); anything outside it leaves no
	// manifest to read.
	var specProbs compiler.Problems
	for _, p := range readProbs {
		rest, inSpec := strings.CutPrefix(p.Path, "spec.")
		if !inSpec {
			return nil, readProbs
		}
		p.Path = rest
		specProbs = append(specProbs, p)
	}
	in := &manifestInput{}
	if meta, _, ok := root.Get("metadata"); ok {
		name, _, _ := meta.Get("name")
		namespace, _, _ := meta.Get("namespace")
		in.name, _ = name.Text()
		in.namespace, _ = namespace.Text()
	}
	spec, specPos, ok := root.Get("spec")
	if !ok {
		return bad("", root.Pos(), "the SemanticModel has no `spec`; it must hold the Ossie document (version, semantic_model)")
	}
	if !spec.IsMapping() {
		return bad("spec", spec.Pos(), "`spec` must be a mapping holding the Ossie document (version, semantic_model)")
	}
	in.specPos = specPos
	var governance, views []byte
	var err error
	if g, _, _ := spec.Get("governance"); !g.IsNull() {
		if governance, err = g.JSON(); err != nil {
			return bad("spec.governance", g.Pos(), "cannot read spec.governance: "+err.Error())
		}
	}
	if v, _, _ := spec.Get("views"); !v.IsNull() {
		views, _ = v.JSON()
	}
	in.positions = spec.Positions()
	return &ossieInput{tree: spec.Without(nonDocumentSpecKeys()...), treeProbs: specProbs, governance: governance, views: views, manifest: in}, nil
}

// load compiles the input as the operator does: the document governed by
// spec.governance when the manifest has one. Problems are remapped.
func (in *ossieInput) load(opts compiler.CompileOptions) ([]*compiler.Artifact, compiler.Problems) {
	if !in.tree.Exists() {
		arts, probs := compiler.LoadGoverned(in.doc, in.governance, opts)
		return arts, in.remap(probs)
	}
	parsed, probs := in.parse()
	if probs.HasErrors() {
		return nil, in.remap(probs)
	}
	arts, more := compiler.Compile(parsed, opts)
	all := append(probs, more...)
	all.Sort()
	return arts, in.remap(all)
}

// parseDoc parses the document (compiler.Parse of a plain document, or
// of the manifest's spec as read); problems are not yet remapped.
func (in *ossieInput) parseDoc() (*compiler.Parsed, compiler.Problems) {
	if !in.tree.Exists() {
		return compiler.Parse(in.doc)
	}
	parsed, probs := compiler.ParseNode(in.tree)
	if len(in.treeProbs) > 0 {
		probs = append(append(compiler.Problems(nil), in.treeProbs...), probs...)
		probs.Sort()
	}
	return parsed, probs
}

// parse reads the document and, when there is one, the governance
// (attached to the result for Validate and Compile); problems are not yet
// remapped.
func (in *ossieInput) parse() (*compiler.Parsed, compiler.Problems) {
	parsed, probs := in.parseDoc()
	if in.governance != nil && parsed != nil && parsed.Doc != nil {
		g, gprobs := compiler.ParseGovernance(in.governance)
		probs = append(probs, gprobs...)
		if !gprobs.HasErrors() {
			parsed.Governance = g
		}
	}
	return parsed, probs
}

// nonDocumentSpecKeys are the JSON names of the SemanticModelSpec fields
// that sit beside the Ossie document (views, governance, ...), read from
// the API type so that a field added there is never mistaken for an
// unknown document key.
func nonDocumentSpecKeys() []string {
	var keys []string
	t := reflect.TypeFor[v1alpha1.SemanticModelSpec]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && name != "version" && name != "semantic_model" {
			keys = append(keys, name)
		}
	}
	return keys
}

// remap moves problems found in the document to where they are in the
// file: for a manifest, paths gain the `spec.` prefix and line:column
// point into the manifest (the nearest enclosing key that exists there).
// probs is changed and returned.
func (in *ossieInput) remap(probs compiler.Problems) compiler.Problems {
	if in == nil || in.manifest == nil {
		return probs
	}
	// In place: every caller replaces its problems by the result, and a
	// document at the limits can have 100,000 of them.
	out := probs
	for i, p := range probs {
		if in.tree.Exists() && p.Code == compiler.CodeDuplicateKey && p.Line > 0 {
			// The reader's finding in the spec as read: at the second
			// key, which has no path of its own to look up.
			p.Path = "spec." + p.Path
			out[i] = p
			continue
		}
		pos, ok := in.manifest.specPos, false
		for path := p.Path; path != "" && !ok; path = parentPath(path) {
			var at compiler.Position
			if at, ok = in.manifest.positions[path]; ok {
				pos = at
			}
		}
		p.Line, p.Column = pos.Line, pos.Column
		if p.Path == "" {
			p.Path = "spec"
		} else {
			p.Path = "spec." + p.Path
		}
		out[i] = p
	}
	return out
}

// parentPath drops the last `.key` or `[i]` of a problem path.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}
