package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The types in this file mirror the Apache Ossie core document
// (api/ossie.Document; apache/ossie core-spec/spec.md and osi-schema.json)
// key for key, so that `spec` minus `views` and `governance` marshals to an
// Ossie document that compiler.Parse reads exactly as ossiectl reads the
// same YAML file. Keys keep the spec's snake_case spelling for that reason.
//
// The API server enforces structure only (types, required keys, no unknown
// keys); meaning (names, references, expressions, datatype and dialect
// values) is checked by the compiler and reported in the Validated
// condition, so a cluster and a laptop reach the same verdict.
//
// Optional lists use `omitzero`: an absent list stays absent while an empty
// one (`fields: []`) reaches the compiler as written, which keeps the
// conversion lossless.

// Model is one entry of the document's `semantic_model[]`.
type Model struct {
	// Name of the model; the semantic server serves it under this name.
	// +required
	Name string `json:"name"`
	// +optional
	Description string `json:"description,omitempty"`
	// AIContext is a string or an object (instructions, synonyms,
	// examples and any other keys), kept as written.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext *apiextensionsv1.JSON `json:"ai_context,omitempty"`
	// +required
	Datasets []Dataset `json:"datasets"`
	// +optional
	Relationships []Relationship `json:"relationships,omitzero"`
	// +optional
	Metrics []Metric `json:"metrics,omitzero"`
	// +optional
	CustomExtensions []CustomExtension `json:"custom_extensions,omitzero"`
}

// Dataset is a logical table: one physical source plus its fields.
type Dataset struct {
	// +required
	Name string `json:"name"`
	// Source is a table path string ("catalog.schema.table"), a data file
	// path (DuckDB), {kind: table, object: "..."} or
	// {kind: query, object: {dialects: [...]}}, kept as written.
	// +required
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Source apiextensionsv1.JSON `json:"source"`
	// +optional
	PrimaryKey []string `json:"primary_key,omitzero"`
	// +optional
	UniqueKeys [][]string `json:"unique_keys,omitzero"`
	// +optional
	Description string `json:"description,omitempty"`
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext *apiextensionsv1.JSON `json:"ai_context,omitempty"`
	// +optional
	Fields []Field `json:"fields,omitzero"`
	// +optional
	CustomExtensions []CustomExtension `json:"custom_extensions,omitzero"`
}

// Field is a named scalar expression over the dataset's physical columns.
type Field struct {
	// +required
	Name string `json:"name"`
	// +required
	Expression Expression `json:"expression"`
	// +optional
	Dimension *Dimension `json:"dimension,omitempty"`
	// +optional
	Label string `json:"label,omitempty"`
	// +optional
	Description string `json:"description,omitempty"`
	// Datatype is an Ossie datatype (String, Integer, Decimal, Float,
	// Boolean, Date, Time, DateTime, DateTimeTz, Opaque).
	// +optional
	Datatype string `json:"datatype,omitempty"`
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext *apiextensionsv1.JSON `json:"ai_context,omitempty"`
	// +optional
	CustomExtensions []CustomExtension `json:"custom_extensions,omitzero"`
}

// Dimension marks a field as a dimension; IsTime unset means "not stated"
// (the Ossie default then applies: temporal datatypes are time dimensions).
type Dimension struct {
	// +optional
	IsTime *bool `json:"is_time,omitempty"`
}

// Expression is `{dialects: [{dialect, expression}, ...]}`.
type Expression struct {
	// +required
	Dialects []DialectExpression `json:"dialects"`
}

// DialectExpression is one dialect's spelling of an expression.
type DialectExpression struct {
	// Dialect is OSSIE_SQL_2026 or ANSI_SQL (translated by Ossie) or another
	// Ossie dialect name (kept, not executed).
	// +required
	Dialect string `json:"dialect"`
	// +required
	Expression string `json:"expression"`
}

// Relationship joins `from` (the many side) to `to` (the one side).
type Relationship struct {
	// +required
	Name string `json:"name"`
	// +required
	From string `json:"from"`
	// +required
	To string `json:"to"`
	// +required
	FromColumns []string `json:"from_columns"`
	// +required
	ToColumns []string `json:"to_columns"`
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext *apiextensionsv1.JSON `json:"ai_context,omitempty"`
	// +optional
	CustomExtensions []CustomExtension `json:"custom_extensions,omitzero"`
}

// Metric is a named aggregate expression.
type Metric struct {
	// +required
	Name string `json:"name"`
	// +required
	Expression Expression `json:"expression"`
	// +optional
	Description string `json:"description,omitempty"`
	// +optional
	Datatype string `json:"datatype,omitempty"`
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AIContext *apiextensionsv1.JSON `json:"ai_context,omitempty"`
	// +optional
	CustomExtensions []CustomExtension `json:"custom_extensions,omitzero"`
}

// CustomExtension is vendor data: `{vendor_name, data}`, data being JSON text.
type CustomExtension struct {
	// +required
	VendorName string `json:"vendor_name"`
	// +required
	Data string `json:"data"`
}
