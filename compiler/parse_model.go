package compiler

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// The readers below follow apache/ossie core-spec/spec.md and osi-schema.json
// one object at a time. Each xxxKeys function lists the keys an object
// allows; schema_test.go checks that ossie.schema.json allows exactly the
// same keys, so the two validators cannot drift apart.

func (w *walker) document(root *ynode) *ossie.Document {
	doc := &ossie.Document{}
	w.object(root, "", "the document", documentKeys(w, doc))
	return doc
}

func documentKeys(w *walker, d *ossie.Document) []key {
	return []key{
		{name: "version", required: true, read: w.str(&d.Version)},
		{name: "dialects", read: w.topList(d, &d.Dialects, "dialects", true)},
		{name: "vendors", read: w.topList(d, &d.Vendors, "vendors", false)},
		{name: "semantic_model", required: true, read: func(n *ynode, path string) {
			d.SemanticModel = []ossie.SemanticModel{}
			w.list(n, path, "a list of semantic models", func(n *ynode, path string) {
				var m ossie.SemanticModel
				if w.object(n, path, "semantic model", modelKeys(w, &m)) {
					d.SemanticModel = append(d.SemanticModel, m)
				}
			})
		}},
	}
}

func modelKeys(w *walker, m *ossie.SemanticModel) []key {
	return []key{
		{name: "name", required: true, read: w.str(&m.Name)},
		{name: "description", read: w.str(&m.Description)},
		{name: "ai_context", read: w.aiContext(&m.AIContext)},
		{name: "datasets", required: true, read: func(n *ynode, path string) {
			m.Datasets = []ossie.Dataset{}
			if w.list(n, path, "a list of datasets", func(n *ynode, path string) {
				var d ossie.Dataset
				if w.object(n, path, "dataset", datasetKeys(w, &d)) {
					m.Datasets = append(m.Datasets, d)
				}
			}) && len(n.seq) == 0 {
				w.add(CodeEmpty, path, n.pos, "a semantic model needs at least one dataset")
			}
		}},
		{name: "relationships", read: func(n *ynode, path string) {
			w.list(n, path, "a list of relationships", func(n *ynode, path string) {
				var r ossie.Relationship
				if w.object(n, path, "relationship", relationshipKeys(w, &r)) {
					m.Relationships = append(m.Relationships, r)
				}
			})
		}},
		{name: "metrics", read: func(n *ynode, path string) {
			w.list(n, path, "a list of metrics", func(n *ynode, path string) {
				var x ossie.Metric
				if w.object(n, path, "metric", metricKeys(w, &x)) {
					m.Metrics = append(m.Metrics, x)
				}
			})
		}},
		{name: "custom_extensions", read: w.extensions(&m.CustomExtensions)},
	}
}

func datasetKeys(w *walker, d *ossie.Dataset) []key {
	return []key{
		{name: "name", required: true, read: w.str(&d.Name)},
		{name: "source", required: true, read: w.source(&d.Source)},
		{name: "primary_key", read: w.strList(&d.PrimaryKey, false, false)},
		{name: "unique_keys", read: func(n *ynode, path string) {
			w.list(n, path, "a list of column lists", func(n *ynode, path string) {
				var cols []string
				// An empty inner list is kept as [] so it survives a JSON
				// round trip; validation decides whether it means anything.
				w.strList(&cols, false, true)(n, path)
				if cols != nil {
					d.UniqueKeys = append(d.UniqueKeys, cols)
				}
			})
		}},
		{name: "description", read: w.str(&d.Description)},
		{name: "ai_context", read: w.aiContext(&d.AIContext)},
		{name: "fields", read: func(n *ynode, path string) {
			w.list(n, path, "a list of fields", func(n *ynode, path string) {
				var f ossie.Field
				if w.object(n, path, "field", fieldKeys(w, &f)) {
					d.Fields = append(d.Fields, f)
				}
			})
		}},
		{name: "custom_extensions", read: w.extensions(&d.CustomExtensions)},
	}
}

func fieldKeys(w *walker, f *ossie.Field) []key {
	return []key{
		{name: "name", required: true, read: w.str(&f.Name)},
		{name: "expression", required: true, read: w.expression(&f.Expression)},
		{name: "dimension", read: func(n *ynode, path string) {
			dim := &ossie.Dimension{}
			if w.object(n, path, "dimension", dimensionKeys(w, dim)) {
				f.Dimension = dim
			}
		}},
		{name: "label", read: w.str(&f.Label)},
		{name: "description", read: w.str(&f.Description)},
		{name: "datatype", read: enum(w, &f.Datatype, ossie.Datatypes, "datatype")},
		{name: "ai_context", read: w.aiContext(&f.AIContext)},
		{name: "custom_extensions", read: w.extensions(&f.CustomExtensions)},
	}
}

func dimensionKeys(w *walker, d *ossie.Dimension) []key {
	return []key{
		{name: "is_time", read: func(n *ynode, path string) {
			if n.kind != kindBool {
				w.wrongType(n, path, "true or false")
				return
			}
			b := n.b
			d.IsTime = &b
		}},
	}
}

func relationshipKeys(w *walker, r *ossie.Relationship) []key {
	return []key{
		{name: "name", required: true, read: w.str(&r.Name)},
		{name: "from", required: true, read: w.str(&r.From)},
		{name: "to", required: true, read: w.str(&r.To)},
		{name: "from_columns", required: true, read: w.strList(&r.FromColumns, true, false)},
		{name: "to_columns", required: true, read: w.strList(&r.ToColumns, true, false)},
		{name: "ai_context", read: w.aiContext(&r.AIContext)},
		{name: "custom_extensions", read: w.extensions(&r.CustomExtensions)},
	}
}

func metricKeys(w *walker, m *ossie.Metric) []key {
	return []key{
		{name: "name", required: true, read: w.str(&m.Name)},
		{name: "expression", required: true, read: w.expression(&m.Expression)},
		{name: "description", read: w.str(&m.Description)},
		{name: "datatype", read: enum(w, &m.Datatype, ossie.Datatypes, "datatype")},
		{name: "ai_context", read: w.aiContext(&m.AIContext)},
		{name: "custom_extensions", read: w.extensions(&m.CustomExtensions)},
	}
}

// expression reads `{dialects: [{dialect, expression}, ...]}` with at least
// one entry.
func (w *walker) expression(dst *ossie.Expression) func(*ynode, string) {
	return func(n *ynode, path string) {
		w.object(n, path, "expression", expressionKeys(w, dst))
	}
}

func expressionKeys(w *walker, e *ossie.Expression) []key {
	return []key{
		{name: "dialects", required: true, read: func(n *ynode, path string) {
			e.Dialects = []ossie.DialectExpression{}
			if w.list(n, path, "a list of {dialect, expression}", func(n *ynode, path string) {
				var d ossie.DialectExpression
				if w.object(n, path, "dialect expression", dialectExpressionKeys(w, &d)) {
					e.Dialects = append(e.Dialects, d)
				}
			}) && len(n.seq) == 0 {
				w.add(CodeEmpty, path, n.pos, "an expression needs at least one {dialect, expression} entry")
			}
		}},
	}
}

func dialectExpressionKeys(w *walker, d *ossie.DialectExpression) []key {
	return []key{
		{name: "dialect", required: true, read: w.dialect(&d.Dialect)},
		{name: "expression", required: true, read: w.str(&d.Expression)},
	}
}

// sourceKinds are the values of `source.kind`.
var sourceKinds = []ossie.SourceKind{ossie.SourceTable, ossie.SourceQuery}

// source reads the three spellings of a dataset source: a string, {kind:
// table, object: "a.b.c"} or {kind: query, object: {dialects: [...]}}.
func (w *walker) source(dst *ossie.Source) func(*ynode, string) {
	return func(n *ynode, path string) {
		switch n.kind {
		case kindString:
			*dst = ossie.Source{Form: ossie.SourceFormString, Object: n.str}
			return
		case kindMap:
		default:
			w.wrongType(n, path, "a string (table path) or a mapping {kind: table|query, object: ...}")
			return
		}
		var kind ossie.SourceKind
		kindNode, hasKind := n.get("kind")
		if hasKind {
			enum(w, &kind, sourceKinds, "source kind")(kindNode, joinKey(path, "kind"))
		}
		src := ossie.Source{Kind: kind}
		var objRead func(*ynode, string)
		switch kind {
		case ossie.SourceTable:
			src.Form = ossie.SourceFormTable
			objRead = w.str(&src.Object)
		case ossie.SourceQuery:
			src.Form = ossie.SourceFormQuery
			src.Query = &ossie.Expression{}
			objRead = w.expression(src.Query)
		default:
			// Kind missing or invalid (already reported): still look for
			// unknown keys and a missing object, but read nothing.
			objRead = func(*ynode, string) {}
		}
		w.object(n, path, "source", sourceObjectKeys(objRead))
		*dst = src
	}
}

// sourceObjectKeys lists the keys of the object forms of `source`; kind is
// read before the others because it decides how object is read.
func sourceObjectKeys(objRead func(*ynode, string)) []key {
	return []key{
		{name: "kind", required: true, read: func(*ynode, string) {}},
		{name: "object", required: true, read: objRead},
	}
}

// aiContext reads `ai_context`: a string, or a mapping with `instructions`
// (string), `synonyms` and `examples` (lists of strings) and any other keys,
// kept as JSON in Extra.
func (w *walker) aiContext(dst **ossie.AIContext) func(*ynode, string) {
	return func(n *ynode, path string) {
		switch n.kind {
		case kindString:
			*dst = &ossie.AIContext{IsText: true, Text: n.str}
			return
		case kindMap:
		default:
			w.wrongType(n, path, "a string or a mapping with instructions, synonyms, examples")
			return
		}
		a := &ossie.AIContext{}
		for _, e := range n.keys {
			p := joinKey(path, e.key)
			switch e.key {
			case "instructions":
				w.str(&a.Instructions)(e.val, p)
			case "synonyms":
				w.strList(&a.Synonyms, false, false)(e.val, p)
			case "examples":
				w.strList(&a.Examples, false, false)(e.val, p)
			default:
				raw, err := json.Marshal(e.val.jsonValue())
				if err != nil {
					w.add(CodeWrongType, p, e.val.pos, fmt.Sprintf("value cannot be kept as JSON: %v", err))
					continue
				}
				if a.Extra == nil {
					a.Extra = map[string]json.RawMessage{}
				}
				a.Extra[e.key] = raw
			}
		}
		*dst = a
	}
}

// aiContextKeyNames are the keys of an ai_context mapping that have a
// defined shape; any other key is allowed.
var aiContextKeyNames = []string{"instructions", "synonyms", "examples"}

// extensions reads `custom_extensions: [{vendor_name, data}]`. data is kept
// as the string given: the spec calls it JSON text, but vendors own it.
func (w *walker) extensions(dst *[]ossie.CustomExtension) func(*ynode, string) {
	return func(n *ynode, path string) {
		w.list(n, path, "a list of {vendor_name, data}", func(n *ynode, path string) {
			var c ossie.CustomExtension
			if w.object(n, path, "custom extension", customExtensionKeys(w, &c)) {
				*dst = append(*dst, c)
			}
		})
	}
}

func customExtensionKeys(w *walker, c *ossie.CustomExtension) []key {
	return []key{
		{name: "vendor_name", required: true, read: w.str(&c.VendorName)},
		{name: "data", required: true, read: w.str(&c.Data)},
	}
}

// topList reads the 0.1.1 top-level `dialects` or `vendors` list (strings).
// Later versions dropped them, so there they are unknown keys. Each unknown
// dialect name is a CodeUnknownDialect warning, as in expressions.
func (w *walker) topList(d *ossie.Document, dst *[]string, what string, dialects bool) func(*ynode, string) {
	return func(n *ynode, path string) {
		if d.Version != ossie.Version011 {
			w.add(CodeUnknownKey, path, n.pos, fmt.Sprintf("top-level `%s` is a key of version %s documents only; remove it (`ossiectl migrate` does) or declare version %q", what, ossie.Version011, ossie.Version011))
			return
		}
		w.strList(dst, false, false)(n, path)
		if !dialects || n.kind != kindSeq {
			return
		}
		for i, item := range n.seq {
			if item.kind == kindString {
				w.knownDialect(item, indexPath(path, i))
			}
		}
	}
}

// dialect reads a dialect name. A name this build does not know is kept
// with a CodeUnknownDialect warning: the spec's list grows between
// releases, and an entry in an unknown dialect is never executed anyway.
func (w *walker) dialect(dst *ossie.Dialect) func(*ynode, string) {
	return func(n *ynode, path string) {
		if n.kind != kindString {
			w.wrongType(n, path, "a string")
			return
		}
		*dst = ossie.Dialect(n.str)
		w.knownDialect(n, path)
	}
}

func (w *walker) knownDialect(n *ynode, path string) {
	names := make([]string, len(ossie.Dialects))
	for i, d := range ossie.Dialects {
		names[i] = string(d)
		if string(d) == n.str {
			return
		}
	}
	msg := fmt.Sprintf("dialect %q is not one this build knows (%s); entries in it are kept but never executed", n.str, strings.Join(names, ", "))
	if s := DidYouMean(n.str, names); s != "" {
		msg += fmt.Sprintf("; did you mean `%s`?", s)
	}
	w.probs = append(w.probs, Problem{Code: CodeUnknownDialect, Severity: SeverityWarning, Path: path, Line: n.pos.Line, Column: n.pos.Column, Message: msg})
}
