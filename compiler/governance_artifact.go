package compiler

import "github.com/ossie-dev/ossie/compiler/expr"

// CallerQualifier is the Ref qualifier of a caller attribute inside a
// compiled row filter: `{{ caller.region }}` becomes
// expr.Ref{Qualifier: CallerQualifier, Name: "region"}. It holds a NUL
// byte, which no dataset name may contain, so it never names a dataset.
const CallerQualifier = "\x00caller"

// ArtifactGovernance is the governance of one model as compiled into its
// artifact: the declared caller attributes and every role, each keeping
// only the rules that name this model's members. A non-nil
// ArtifactGovernance makes the model governed: a caller is then served
// only through its roles (docs/governance.md). It is part of the artifact
// version.
type ArtifactGovernance struct {
	Attributes []string       `json:"attributes,omitempty"`
	Roles      []ArtifactRole `json:"roles"`
}

// ArtifactRole is a Role with parsed row filters. Metrics and Fields keep
// their patterns (nil = everything allowed); Masks name `dataset.field`.
type ArtifactRole struct {
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Metrics     *Access             `json:"metrics,omitempty"`
	Fields      *Access             `json:"fields,omitempty"`
	RowFilters  []ArtifactRowFilter `json:"row_filters,omitempty"`
	Masks       []Mask              `json:"masks,omitempty"`
}

// ArtifactRowFilter is a row filter of one dataset. In Expr every Ref is a
// field of Dataset (Qualifier == Dataset) or a caller attribute
// (Qualifier == CallerQualifier); SQL is the expression as written.
type ArtifactRowFilter struct {
	Dataset string    `json:"dataset"`
	SQL     string    `json:"sql"`
	Expr    expr.Expr `json:"expr"`
}

// Role returns the role named name, or nil.
func (g *ArtifactGovernance) Role(name string) *ArtifactRole {
	if g == nil {
		return nil
	}
	for i := range g.Roles {
		if g.Roles[i].Name == name {
			return &g.Roles[i]
		}
	}
	return nil
}
