package ossiectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// ossieInput is one file as ossiectl reads it: either a plain Ossie
// document or a SemanticModel manifest (`ossie.dev/v1alpha1`) whose spec
// holds one. doc is what compiler.Parse reads in both cases.
type ossieInput struct {
	doc []byte
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
// `kind: SemanticModel` and an `apiVersion` of group ossie.dev) and turns
// its spec, minus the keys that are not part of the Ossie document
// (spec.views, spec.governance, ... — every SemanticModelSpec field other
// than version and semantic_model), into the JSON document the operator
// compiles (operator.DocumentJSON produces the same from the typed spec).
// Anything else is returned unchanged for compiler.Parse to judge, so a
// broken plain document gets the compiler's own problems. A document over
// the compiler's limits (compiler.CheckDocument: OSS1020, OSS1021) is
// refused before any YAML parser reads it.
func readOssieInput(data []byte) (*ossieInput, compiler.Problems) {
	if p := compiler.CheckDocument(data); p != nil {
		return nil, compiler.Problems{*p}
	}
	if !bytes.Contains(data, []byte("SemanticModel")) {
		// Not a manifest: spare a plain document a second YAML parse, the
		// largest part of what reading it costs.
		return &ossieInput{doc: data}, nil
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil || len(f.Docs) != 1 {
		return &ossieInput{doc: data}, nil
	}
	root := asMapping(f.Docs[0].Body)
	kind, _ := scalarString(mapValue(root, "kind"))
	apiVersion, _ := scalarString(mapValue(root, "apiVersion"))
	if kind != "SemanticModel" || mapGet(root, "apiVersion") == nil {
		return &ossieInput{doc: data}, nil
	}
	bad := func(path string, n ast.Node, msg string) (*ossieInput, compiler.Problems) {
		pos := position(n)
		return nil, compiler.Problems{{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Path: path, Line: pos.Line, Column: pos.Column, Message: msg}}
	}
	want := v1alpha1.GroupVersion.String()
	if apiVersion != want {
		return bad("apiVersion", mapValue(root, "apiVersion"), fmt.Sprintf("SemanticModel apiVersion %q is not read by this build; use %q (regenerate with `ossiectl manifest`)", apiVersion, want))
	}
	in := &manifestInput{positions: map[string]compiler.Position{}}
	if meta := asMapping(mapValue(root, "metadata")); meta != nil {
		in.name, _ = scalarString(mapValue(meta, "name"))
		in.namespace, _ = scalarString(mapValue(meta, "namespace"))
	}
	specEntry := mapGet(root, "spec")
	if specEntry == nil {
		return bad("", f.Docs[0].Body, "the SemanticModel has no `spec`; it must hold the Ossie document (version, semantic_model)")
	}
	spec := asMapping(specEntry.Value)
	if spec == nil {
		return bad("spec", specEntry.Value, "`spec` must be a mapping holding the Ossie document (version, semantic_model)")
	}
	in.specPos = position(specEntry.Key)
	var value map[string]any
	if err := yaml.NodeToValue(spec, &value); err != nil {
		return bad("spec", spec, "cannot read spec: "+err.Error())
	}
	var governance []byte
	if g, ok := value["governance"]; ok && g != nil {
		if governance, err = json.Marshal(g); err != nil {
			return bad("spec.governance", spec, "cannot read spec.governance: "+err.Error())
		}
	}
	var views []byte
	if v, ok := value["views"]; ok && v != nil {
		views, _ = json.Marshal(v)
	}
	for _, k := range nonDocumentSpecKeys() {
		delete(value, k)
	}
	doc, err := json.Marshal(value)
	if err != nil {
		return bad("spec", spec, "cannot read spec: "+err.Error())
	}
	collectPositions(spec, "", in.positions)
	return &ossieInput{doc: doc, governance: governance, views: views, manifest: in}, nil
}

// load compiles the input as the operator does: the document governed by
// spec.governance when the manifest has one. Problems are remapped.
func (in *ossieInput) load(opts compiler.CompileOptions) ([]*compiler.Artifact, compiler.Problems) {
	arts, probs := compiler.LoadGoverned(in.doc, in.governance, opts)
	return arts, in.remap(probs)
}

// parse reads the document and, when there is one, the governance
// (attached to the result for Validate and Compile); problems are not yet
// remapped.
func (in *ossieInput) parse() (*compiler.Parsed, compiler.Problems) {
	parsed, probs := compiler.Parse(in.doc)
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
func (in *ossieInput) remap(probs compiler.Problems) compiler.Problems {
	if in == nil || in.manifest == nil {
		return probs
	}
	out := make(compiler.Problems, len(probs))
	for i, p := range probs {
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
