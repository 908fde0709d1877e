// Package ossie holds the Go types of the Apache Ossie core document
// (formerly Open Semantic Interchange, OSI): top-level `version` and
// `semantic_model[]`. Source of truth: apache/ossie core-spec/spec.md and
// core-spec/osi-schema.json. These types carry no logic beyond defaults;
// strict parsing, validation and compilation live in package compiler.
// The same types are the document part of the SemanticModel CRD
// (api/v1alpha1 embeds Document and Governance): the kubebuilder markers
// below describe the CRD schema, which enforces structure only, and deep
// copies are generated (scripts/generate.sh).
//
// +kubebuilder:object:generate=true
package ossie

import (
	"bytes"
	"encoding/json"
)

// Supported document versions, in the order they were released. A document
// declaring any other version is refused (never read at a guessed version).
const (
	Version011     = "0.1.1"
	Version020Dev0 = "0.2.0.dev0"
)

// SupportedVersions lists every `version` value this build reads.
var SupportedVersions = []string{Version011, Version020Dev0}

// Document is one Ossie file.
type Document struct {
	Version string `json:"version"`
	// Dialects and Vendors are the top-level enumeration lists of the 0.1.1
	// schema (dialect names and vendor names the document uses). They carry
	// no meaning for compilation and are read only at version 0.1.1.
	Dialects      []string        `json:"dialects,omitempty"`
	Vendors       []string        `json:"vendors,omitempty"`
	SemanticModel []SemanticModel `json:"semantic_model"`
}

// SemanticModel is one entry of `semantic_model[]`.
type SemanticModel struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext        *AIContext        `json:"ai_context,omitempty"`
	Datasets         []Dataset         `json:"datasets"`
	Relationships    []Relationship    `json:"relationships,omitempty"`
	Metrics          []Metric          `json:"metrics,omitempty"`
	CustomExtensions []CustomExtension `json:"custom_extensions,omitempty"`
}

// Dataset is a logical table: one physical source plus the fields defined on it.
type Dataset struct {
	Name string `json:"name"`
	// Source is a table path string ("catalog.schema.table"), a data file
	// path (DuckDB), {kind: table, object: "..."} or
	// {kind: query, object: {dialects: [...]}}.
	// +required
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Source      Source     `json:"source"`
	PrimaryKey  []string   `json:"primary_key,omitempty"`
	UniqueKeys  [][]string `json:"unique_keys,omitempty"`
	Description string     `json:"description,omitempty"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext        *AIContext        `json:"ai_context,omitempty"`
	Fields           []Field           `json:"fields,omitempty"`
	CustomExtensions []CustomExtension `json:"custom_extensions,omitempty"`
}

// SourceKind tells how Source.Object is read.
type SourceKind string

const (
	// SourceTable: Object is a table path such as `catalog.schema.table`.
	SourceTable SourceKind = "table"
	// SourceQuery: Query holds a SQL query with dialects.
	SourceQuery SourceKind = "query"
)

// Source is a dataset's `source`. The spec allows three forms:
//   - a plain string (Form == SourceFormString): a table path or, legacy, a query;
//   - {kind: table, object: "db.schema.table"};
//   - {kind: query, object: {dialects: [...]}}.
//
// Marshalling writes back the form that was read.
type Source struct {
	Form   SourceForm  `json:"-"`
	Kind   SourceKind  `json:"kind,omitempty"`
	Object string      `json:"object,omitempty"`
	Query  *Expression `json:"-"`
	// Unread is JSON that UnmarshalJSON found to be none of the three
	// forms, kept as written: MarshalJSON writes it back, so that
	// compiler.Parse reports it with its path (a SemanticModel's source is
	// schemaless, so the API server admits any JSON there). It is text, not
	// bytes, so that a Source stays comparable.
	Unread string `json:"-"`
}

// SourceForm records which of the three spellings of `source` was used.
type SourceForm int

const (
	SourceFormString SourceForm = iota
	SourceFormTable
	SourceFormQuery
)

// MarshalJSON writes the form that was read (or Unread as it was).
func (s Source) MarshalJSON() ([]byte, error) {
	switch {
	case s.Unread != "":
		return []byte(s.Unread), nil
	case s.Form == SourceFormTable:
		return json.Marshal(struct {
			Kind   SourceKind `json:"kind"`
			Object string     `json:"object"`
		}{SourceTable, s.Object})
	case s.Form == SourceFormQuery:
		return json.Marshal(struct {
			Kind   SourceKind  `json:"kind"`
			Object *Expression `json:"object"`
		}{SourceQuery, s.Query})
	default:
		return json.Marshal(s.Object)
	}
}

// UnmarshalJSON reads any of the three forms MarshalJSON writes, so a
// Source survives encoding/json both ways (artifacts, caches, the CRD).
// Anything else (another JSON type, a missing or unknown key, a wrong
// type inside) is kept in Unread without an error: compiler.Parse is the
// strict reader of documents and reports it.
func (s *Source) UnmarshalJSON(data []byte) error {
	if read, ok := readSource(data); ok {
		*s = read
	} else {
		*s = Source{Unread: string(data)}
	}
	return nil
}

func readSource(data []byte) (Source, bool) {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		return Source{Form: SourceFormString, Object: text}, true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || len(obj) != 2 || obj["kind"] == nil || obj["object"] == nil {
		return Source{}, false
	}
	var kind SourceKind
	if err := json.Unmarshal(obj["kind"], &kind); err != nil {
		return Source{}, false
	}
	switch kind {
	case SourceTable:
		var object string
		if err := json.Unmarshal(obj["object"], &object); err != nil {
			return Source{}, false
		}
		return Source{Form: SourceFormTable, Kind: SourceTable, Object: object}, true
	case SourceQuery:
		q := &Expression{}
		dec := json.NewDecoder(bytes.NewReader(obj["object"]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(q); err != nil {
			return Source{}, false
		}
		return Source{Form: SourceFormQuery, Kind: SourceQuery, Query: q}, true
	}
	return Source{}, false
}

// Field is a named scalar expression over the dataset's physical columns.
type Field struct {
	Name        string     `json:"name"`
	Expression  Expression `json:"expression"`
	Dimension   *Dimension `json:"dimension,omitempty"`
	Label       string     `json:"label,omitempty"`
	Description string     `json:"description,omitempty"`
	Datatype    Datatype   `json:"datatype,omitempty"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext        *AIContext        `json:"ai_context,omitempty"`
	CustomExtensions []CustomExtension `json:"custom_extensions,omitempty"`
}

// IsTime applies the Ossie default rule: an explicit dimension.is_time wins;
// otherwise Date, Time, DateTime and DateTimeTz fields are time dimensions.
func (f Field) IsTime() bool {
	if f.Dimension != nil && f.Dimension.IsTime != nil {
		return *f.Dimension.IsTime
	}
	return f.Datatype.IsTemporal()
}

// Dimension marks a field as a dimension; IsTime nil means "not stated".
type Dimension struct {
	IsTime *bool `json:"is_time,omitempty"`
}

// Datatype is the logical type of a field or metric (Ossie `datatype`).
type Datatype string

// Datatypes of the Ossie core spec.
const (
	TypeString     Datatype = "String"
	TypeInteger    Datatype = "Integer"
	TypeDecimal    Datatype = "Decimal"
	TypeFloat      Datatype = "Float"
	TypeBoolean    Datatype = "Boolean"
	TypeDate       Datatype = "Date"
	TypeTime       Datatype = "Time"
	TypeDateTime   Datatype = "DateTime"
	TypeDateTimeTz Datatype = "DateTimeTz"
	TypeOpaque     Datatype = "Opaque"
)

// Datatypes lists every valid Datatype.
var Datatypes = []Datatype{TypeString, TypeInteger, TypeDecimal, TypeFloat, TypeBoolean, TypeDate, TypeTime, TypeDateTime, TypeDateTimeTz, TypeOpaque}

// IsTemporal reports whether the datatype is Date, Time, DateTime or DateTimeTz.
func (d Datatype) IsTemporal() bool {
	return d == TypeDate || d == TypeTime || d == TypeDateTime || d == TypeDateTimeTz
}

// Expression is `{dialects: [{dialect, expression}, ...]}`, at least one entry.
type Expression struct {
	Dialects []DialectExpression `json:"dialects"`
}

// DialectExpression is one dialect's spelling of an expression.
type DialectExpression struct {
	Dialect    Dialect `json:"dialect"`
	Expression string  `json:"expression"`
}

// Dialect names an expression language.
type Dialect string

// Dialect names in use in Ossie documents. OssieSQL2026 and ANSISQL are the
// portable ones this product parses; the others are kept but not executed.
const (
	OssieSQL2026 Dialect = "OSSIE_SQL_2026"
	ANSISQL      Dialect = "ANSI_SQL"
	Snowflake    Dialect = "SNOWFLAKE"
	MDX          Dialect = "MDX"
	Tableau      Dialect = "TABLEAU"
	Databricks   Dialect = "DATABRICKS"
	MAQL         Dialect = "MAQL"
	BigQuery     Dialect = "BIGQUERY"
	Sigma        Dialect = "SIGMA"
	ThoughtSpot  Dialect = "THOUGHTSPOT"
	DAX          Dialect = "DAX"
)

// Dialects lists every dialect name this build knows. Another name is read
// with a warning (the entry is kept, never executed).
var Dialects = []Dialect{OssieSQL2026, ANSISQL, Snowflake, MDX, Tableau, Databricks, MAQL, BigQuery, Sigma, ThoughtSpot, DAX}

// VendorDialects are read, when an expression has no portable entry, with
// the bounded grammar and accepted when they mean the same in ANSI SQL, in
// this order of preference.
var VendorDialects = []Dialect{Databricks, Snowflake, BigQuery}

// PortableDialects are translated by this product, in order of preference.
var PortableDialects = []Dialect{OssieSQL2026, ANSISQL}

// Portable returns the preferred portable entry of e (OSSIE_SQL_2026, then
// ANSI_SQL) and false when e has none.
func (e Expression) Portable() (DialectExpression, bool) {
	for _, want := range PortableDialects {
		for _, d := range e.Dialects {
			if d.Dialect == want {
				return d, true
			}
		}
	}
	return DialectExpression{}, false
}

// Relationship joins `from` (the many side) to `to` (the one side); columns
// are paired by position.
type Relationship struct {
	Name        string   `json:"name"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	FromColumns []string `json:"from_columns"`
	ToColumns   []string `json:"to_columns"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext        *AIContext        `json:"ai_context,omitempty"`
	CustomExtensions []CustomExtension `json:"custom_extensions,omitempty"`
}

// Metric is a named aggregate expression over `dataset.field` references or
// over other metrics by name.
type Metric struct {
	Name        string     `json:"name"`
	Expression  Expression `json:"expression"`
	Description string     `json:"description,omitempty"`
	Datatype    Datatype   `json:"datatype,omitempty"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext        *AIContext        `json:"ai_context,omitempty"`
	CustomExtensions []CustomExtension `json:"custom_extensions,omitempty"`
}

// AIContext is either a plain string (Text) or an object with instructions,
// synonyms, examples and any other keys (kept in Extra).
type AIContext struct {
	Text         string                     `json:"-"`
	IsText       bool                       `json:"-"`
	Instructions string                     `json:"instructions,omitempty"`
	Synonyms     []string                   `json:"synonyms,omitempty"`
	Examples     []string                   `json:"examples,omitempty"`
	Extra        map[string]json.RawMessage `json:"-"`
	// Unread is JSON that is neither a string nor an object with the
	// known keys well typed, kept as written for compiler.Parse to report
	// (see Source.Unread).
	Unread json.RawMessage `json:"-"`
}

// MarshalJSON writes a string when the context was a string, else an
// object (or Unread as it was).
func (a AIContext) MarshalJSON() ([]byte, error) {
	if a.Unread != nil {
		return a.Unread, nil
	}
	if a.IsText {
		return json.Marshal(a.Text)
	}
	m := map[string]any{}
	for k, v := range a.Extra {
		m[k] = v
	}
	if a.Instructions != "" {
		m["instructions"] = a.Instructions
	}
	if len(a.Synonyms) > 0 {
		m["synonyms"] = a.Synonyms
	}
	if len(a.Examples) > 0 {
		m["examples"] = a.Examples
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes: a JSON string becomes a text
// context, an object fills the known keys and keeps every other key, as
// compact JSON, in Extra. Anything else is kept in Unread without an
// error (compiler.Parse is the strict reader).
func (a *AIContext) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		*a = AIContext{IsText: true, Text: text}
		return nil
	}
	*a = AIContext{Unread: append(json.RawMessage(nil), data...)}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil
	}
	out := AIContext{}
	for k, v := range obj {
		var err error
		switch k {
		case "instructions":
			err = json.Unmarshal(v, &out.Instructions)
		case "synonyms":
			err = json.Unmarshal(v, &out.Synonyms)
		case "examples":
			err = json.Unmarshal(v, &out.Examples)
		default:
			if out.Extra == nil {
				out.Extra = map[string]json.RawMessage{}
			}
			out.Extra[k] = v
		}
		if err != nil {
			return nil
		}
	}
	*a = out
	return nil
}

// CustomExtension is vendor data: `{vendor_name, data}` where data is JSON text.
type CustomExtension struct {
	VendorName string `json:"vendor_name"`
	Data       string `json:"data"`
}
