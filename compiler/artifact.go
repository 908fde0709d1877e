package compiler

import (
	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// ArtifactFormat identifies the artifact JSON layout; bump it on any
// incompatible change. Format documented in docs/artifact.md.
const ArtifactFormat = "ossie.dev/artifact/v1"

// Artifact is one compiled, validated semantic model: everything the planner
// needs and nothing it must re-derive. It is immutable once built.
//
// Version is "sha256:" + hex(sha256(canonical JSON of the model's spec)),
// where the canonical spec is the parsed model re-encoded with sorted keys
// and no formatting; reformatting, reordering keys or editing comments of a
// document keeps the version, any semantic change alters it.
type Artifact struct {
	Format          string `json:"format"`
	Version         string `json:"version"`
	DocumentVersion string `json:"document_version"`
	Name            string `json:"name"`
	Doc
	Datasets      []ArtifactDataset      `json:"datasets"`
	Relationships []ArtifactRelationship `json:"relationships,omitempty"`
	Metrics       []ArtifactMetric       `json:"metrics,omitempty"`
	// JoinChoices lists the dataset pairs joined by several many-to-one
	// paths, sorted by From then To; empty when every join path is unique.
	JoinChoices []ArtifactJoinChoice `json:"join_choices,omitempty"`
	// Rollups are the model's pre-aggregations (rollup.go,
	// docs/rollups.md), in declaration order; the declaration is part of
	// the model's custom extensions, so of Version.
	Rollups []ArtifactRollup `json:"rollups,omitempty"`
	// Governance is set when the document came with governance (roles,
	// row filters, masks; docs/governance.md); nil means ungoverned.
	Governance *ArtifactGovernance `json:"governance,omitempty"`
}

// The *Doc types are what a model, dataset, field or metric says about
// itself to its readers (people and AI agents), copied from the document
// as written. They are embedded in the artifact types (their keys are
// inlined in the artifact JSON) and in the server's metadata responses
// (package server, GET /v1/models/{model}), which show them as they are:
// a field added here reaches both.

// Doc is the description and ai_context of a model or a dataset.
type Doc struct {
	Description string           `json:"description,omitempty"`
	AIContext   *ossie.AIContext `json:"ai_context,omitempty"`
}

// FieldDoc is what a field says about itself; IsTime is the resolved time
// flag (ossie.Field.IsTime).
type FieldDoc struct {
	Label       string           `json:"label,omitempty"`
	Description string           `json:"description,omitempty"`
	Datatype    ossie.Datatype   `json:"datatype,omitempty"`
	IsTime      bool             `json:"is_time"`
	AIContext   *ossie.AIContext `json:"ai_context,omitempty"`
}

// MetricDoc is what a metric says about itself.
type MetricDoc struct {
	Description string           `json:"description,omitempty"`
	Datatype    ossie.Datatype   `json:"datatype,omitempty"`
	AIContext   *ossie.AIContext `json:"ai_context,omitempty"`
}

// SourceKind of a resolved dataset source.
type SourceKind string

const (
	SourceTable SourceKind = "table" // Table holds the path parts, exact names
	SourceQuery SourceKind = "query" // Query holds SQL text used as a subquery
	SourceFile  SourceKind = "file"  // Path holds a Parquet or CSV file path (DuckDB)
)

// ResolvedSource is a dataset source after compile: a table path with the
// install defaults applied, a query, or a data file.
type ResolvedSource struct {
	Kind  SourceKind `json:"kind"`
	Table []string   `json:"table,omitempty"`
	Query string     `json:"query,omitempty"`
	Path  string     `json:"path,omitempty"`
}

// ArtifactDataset is a dataset with resolved source and typed fields.
type ArtifactDataset struct {
	Name string `json:"name"`
	Doc
	Source     ResolvedSource `json:"source"`
	PrimaryKey []string       `json:"primary_key,omitempty"`
	UniqueKeys [][]string     `json:"unique_keys,omitempty"`
	// KeyPhysical lists the key columns above that name no field: physical
	// columns of the source, checked when the model is bound to an engine.
	KeyPhysical []string        `json:"key_physical,omitempty"`
	Fields      []ArtifactField `json:"fields"`
}

// ArtifactField is a field with its selected portable expression parsed into
// a typed tree. Refs in Expr are physical columns of the dataset source.
type ArtifactField struct {
	Name string `json:"name"`
	FieldDoc
	Dialect  ossie.Dialect             `json:"dialect"`
	SQL      string                    `json:"sql"`
	Expr     expr.Expr                 `json:"expr"`
	Dialects []ossie.DialectExpression `json:"dialects,omitempty"`
	// Implicit marks a field the compiler added for a physical column a
	// metric reads without a declared field (warning OSS2021); its Expr is
	// the bare column. It is not a declared dimension.
	Implicit bool `json:"implicit,omitempty"`
	// StoredTimezone is the IANA zone the instants of a naive DateTime
	// column are stored in, as declared by the OSSIE custom extension on
	// the field, its dataset or its model (the nearest wins); "" means not
	// declared (the install default applies, UTC unless configured).
	StoredTimezone string `json:"stored_timezone,omitempty"`
	// DatatypeResolved marks a Datatype the document left out: it is the
	// type the field's expression has in the engine, found when the model
	// was bound (WithEngineTypes).
	DatatypeResolved bool `json:"datatype_resolved,omitempty"`
}

// ArtifactJoinChoice records a dataset that reaches another by two or more
// many-to-one join paths (warning OSS2020). Paths lists every candidate,
// each as the relationship names walked from From to To in order; a query
// that joins To to a dataset at or below From must choose one (a `via`
// naming a relationship of exactly one path), or is refused (OSS4011).
type ArtifactJoinChoice struct {
	From  string     `json:"from"`
	To    string     `json:"to"`
	Paths [][]string `json:"paths"`
}

// ArtifactRelationship is a many-to-one join: From (many) → To (one), columns
// are field names of each dataset paired by position.
type ArtifactRelationship struct {
	Name        string   `json:"name"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	FromColumns []string `json:"from_columns"`
	ToColumns   []string `json:"to_columns"`
	// FromPhysical and ToPhysical list the columns above that name no field
	// of their dataset: they are physical columns of the source, checked
	// when the model is bound to an engine.
	FromPhysical []string `json:"from_physical,omitempty"`
	ToPhysical   []string `json:"to_physical,omitempty"`
}

// ArtifactMetric is a metric with its typed tree. In Expr every Ref is
// resolved: Qualifier is a dataset and Name one of its fields, or Qualifier
// is "" and Name is another metric (listed in DependsOn).
type ArtifactMetric struct {
	Name string `json:"name"`
	MetricDoc
	Dialect   ossie.Dialect             `json:"dialect"`
	SQL       string                    `json:"sql"`
	Expr      expr.Expr                 `json:"expr"`
	Dialects  []ossie.DialectExpression `json:"dialects,omitempty"`
	DependsOn []string                  `json:"depends_on,omitempty"`
	Datasets  []string                  `json:"datasets,omitempty"`
	// RowsOf is the dataset whose rows the metric's ref-less aggregates
	// (COUNT(*), SUM(1)) count; "" when it has none. Chosen at compile time:
	// the only dataset its other aggregates read, else the model's only
	// dataset, else its only fact dataset (the `to` of no relationship).
	RowsOf string `json:"rows_of,omitempty"`
	// Via lists the relationships the metric pins (OSSIE custom extension
	// `{"via": [...]}`): where a dimension could be joined by several
	// paths (JoinChoices), the path through one of these is used.
	Via []string `json:"via,omitempty"`
	// Type is the metric's type parameters (running total, rolling window,
	// period over period; docs/metrics.md); nil for a plain metric.
	Type *MetricType `json:"type,omitempty"`
}

// Dataset returns the dataset named name, or nil.
func (a *Artifact) Dataset(name string) *ArtifactDataset {
	for i := range a.Datasets {
		if a.Datasets[i].Name == name {
			return &a.Datasets[i]
		}
	}
	return nil
}

// Metric returns the metric named name, or nil.
func (a *Artifact) Metric(name string) *ArtifactMetric {
	for i := range a.Metrics {
		if a.Metrics[i].Name == name {
			return &a.Metrics[i]
		}
	}
	return nil
}

// Field returns the field named name, or nil.
func (d *ArtifactDataset) Field(name string) *ArtifactField {
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return &d.Fields[i]
		}
	}
	return nil
}
