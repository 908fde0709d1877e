package server

import (
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"slices"
)

// ModelSummary is one entry of GET /v1/models. Namespace is the
// Kubernetes namespace publishing the model (absent for model files): two
// namespaces may publish models of one name, each addressed as
// /v1/namespaces/{namespace}/models/{name}.
type ModelSummary struct {
	Name            string      `json:"name"`
	Namespace       string      `json:"namespace,omitempty"`
	Version         string      `json:"version"`
	DocumentVersion string      `json:"document_version"`
	Description     string      `json:"description,omitempty"`
	Counts          ModelCounts `json:"counts"`
	// LoadError and Drift are the /readyz members of the same name
	// (ModelStatus): the last refused version of its source while this
	// one keeps serving, and why this one does not bind to the engine.
	// Shown to ungoverned callers only, as they may name physical tables.
	LoadError string `json:"load_error,omitempty"`
	Drift     string `json:"drift,omitempty"`
	// Rollups are the model's declared rollups, which are built and
	// fresh (localrollups.go); ungoverned callers only (they name tables).
	Rollups []RollupSummary `json:"rollups,omitempty"`
}

// ModelCounts counts what a model defines.
type ModelCounts struct {
	Datasets      int `json:"datasets"`
	Dimensions    int `json:"dimensions"`
	Metrics       int `json:"metrics"`
	Relationships int `json:"relationships"`
}

// ModelDetail is GET /v1/models/{model}: what a client (or an AI agent)
// needs to ask questions — every dimension with its query name, datatype
// and time flag, every metric, descriptions and ai_context; for a governed
// caller only what its roles may read (governedDetail). Physical sources,
// expressions and governance rules stay server-side. What a model, dataset,
// field or metric says about itself is the artifact's own Doc, FieldDoc and
// MetricDoc (package compiler), shown as compiled. Namespace is as in
// ModelSummary.
type ModelDetail struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace,omitempty"`
	Version         string `json:"version"`
	DocumentVersion string `json:"document_version"`
	compiler.Doc
	Datasets      []DatasetInfo     `json:"datasets"`
	Relationships []RelationshipRef `json:"relationships"`
	Metrics       []MetricInfo      `json:"metrics"`
}

// DatasetInfo describes one dataset and its dimensions.
type DatasetInfo struct {
	Name string `json:"name"`
	compiler.Doc
	PrimaryKey []string        `json:"primary_key,omitempty"`
	Dimensions []DimensionInfo `json:"dimensions"`
}

// DimensionInfo is one field usable as a dimension or filter. Name is the
// query member (`dataset.field`), Field the field's own name; Grains lists
// the time grains accepted when IsTime. Masked, set only for a governed
// caller, is how the caller's roles mask the field's values (null, literal,
// hash or partial); a masked field is then typed String and is not a time
// dimension.
type DimensionInfo struct {
	Name  string `json:"name"`
	Field string `json:"field"`
	compiler.FieldDoc
	Grains []string `json:"grains,omitempty"`
	Masked string   `json:"masked,omitempty"`
}

// MetricInfo is one metric; Datasets are those it reads.
type MetricInfo struct {
	Name string `json:"name"`
	compiler.MetricDoc
	Datasets []string `json:"datasets,omitempty"`
	// MetricType is a typed metric's parameters (docs/metrics.md): its
	// type and window. A typed metric, and a metric over one (WindowedBy),
	// needs a time dimension with a grain in the query.
	MetricType *compiler.MetricType `json:"metric_type,omitempty"`
	// WindowedBy names the typed metrics a plain metric is computed from
	// after their window (revenue_ytd / revenue_running).
	WindowedBy []string `json:"windowed_by,omitempty"`
}

// RelationshipRef names a many-to-one join between two datasets.
type RelationshipRef struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

func summarize(a *compiler.Artifact) ModelSummary {
	dims := 0
	for _, d := range a.Datasets {
		for _, f := range d.Fields {
			if !f.Implicit {
				dims++
			}
		}
	}
	return ModelSummary{
		Name: a.Name, Version: a.Version, DocumentVersion: a.DocumentVersion, Description: a.Description,
		Counts: ModelCounts{Datasets: len(a.Datasets), Dimensions: dims, Metrics: len(a.Metrics), Relationships: len(a.Relationships)},
	}
}

func describeModel(a *compiler.Artifact) ModelDetail {
	grains := make([]string, len(dialect.Grains))
	for i, g := range dialect.Grains {
		grains[i] = string(g)
	}
	d := ModelDetail{
		Name: a.Name, Version: a.Version, DocumentVersion: a.DocumentVersion, Doc: a.Doc,
		Datasets: []DatasetInfo{}, Relationships: []RelationshipRef{}, Metrics: []MetricInfo{},
	}
	for _, ds := range a.Datasets {
		info := DatasetInfo{Name: ds.Name, Doc: ds.Doc, PrimaryKey: ds.PrimaryKey, Dimensions: []DimensionInfo{}}
		for _, f := range ds.Fields {
			if f.Implicit { // a column a metric reads, not a declared dimension
				continue
			}
			di := DimensionInfo{Name: ds.Name + "." + f.Name, Field: f.Name, FieldDoc: f.FieldDoc}
			if f.IsTime {
				di.Grains = grains
			}
			info.Dimensions = append(info.Dimensions, di)
		}
		d.Datasets = append(d.Datasets, info)
	}
	for _, r := range a.Relationships {
		d.Relationships = append(d.Relationships, RelationshipRef{Name: r.Name, From: r.From, To: r.To})
	}
	// A metric without datatype is described with the type its answers
	// report (docs/query-semantics.md, "Answer types"), so the metadata,
	// the MCP description and the PostgreSQL wire endpoint's column types
	// agree with the answer.
	types := compiler.MetricDatatypes(a)
	for _, m := range a.Metrics {
		doc := m.MetricDoc
		doc.Datatype = types[m.Name].Answer
		d.Metrics = append(d.Metrics, MetricInfo{Name: m.Name, MetricDoc: doc, Datasets: m.Datasets, MetricType: m.Type, WindowedBy: windowedBy(a, &m)})
	}
	return d
}

// windowedBy lists the typed metrics plain metric m reads, directly or
// through other plain metrics, sorted; nil for a typed metric.
func windowedBy(a *compiler.Artifact, m *compiler.ArtifactMetric) []string {
	if m.Type != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{m.Name: true}
	var walk func(names []string)
	walk = func(names []string) {
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			dep := a.Metric(n)
			switch {
			case dep == nil:
			case dep.Type != nil:
				out = append(out, n)
			default:
				walk(dep.DependsOn)
			}
		}
	}
	walk(m.DependsOn)
	slices.Sort(out)
	return out
}
