package v1alpha1

// The governance types mirror compiler.Governance (compiler/governance.go)
// key for key: the operator marshals spec.governance to JSON and the
// compiler reads it with compiler.ParseGovernance, exactly as ossiectl reads
// a governance file. As for the document types, the API server enforces
// structure only; meaning (names that exist, expressions, mask kinds) is
// checked by the compiler and reported in the Validated condition. Rules:
// docs/governance.md.

// Governance holds the access rules queries and views are planned under.
// A model with a governance section is governed: a caller is served only
// through its roles, and a caller without a defined role sees nothing.
type Governance struct {
	// Attributes declares the caller attributes (from authentication) row
	// filters may reference as `{{ caller.<name> }}`.
	// +optional
	Attributes []GovernanceAttribute `json:"attributes,omitzero"`
	// Roles are the named audiences; names are unique.
	// +optional
	Roles []Role `json:"roles,omitzero"`
}

// GovernanceAttribute is one caller attribute such as `region`.
type GovernanceAttribute struct {
	// +required
	Name string `json:"name"`
	// +optional
	Description string `json:"description,omitempty"`
}

// Role is a named audience: which metrics and fields it may read, which
// rows of each dataset, and which fields it sees masked.
type Role struct {
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Description string `json:"description,omitempty"`
	// Metrics the role may read (metric names; glob patterns). Absent:
	// every metric whose fields the role may read.
	// +optional
	Metrics *Access `json:"metrics,omitempty"`
	// Fields the role may read (`dataset.field`; glob patterns). Absent:
	// every field.
	// +optional
	Fields *Access `json:"fields,omitempty"`
	// RowFilters restrict the rows of a dataset the role reads, wherever
	// a query reads that dataset (also through joins).
	// +optional
	RowFilters []RowFilter `json:"row_filters,omitzero"`
	// Masks replace field values in dimensions, filters and order by.
	// +optional
	Masks []Mask `json:"masks,omitzero"`
}

// Access allows and denies members by glob pattern (`*`, `?`, `[...]`);
// deny wins. Allow absent: everything not denied; `allow: []`: nothing.
type Access struct {
	// +optional
	Allow []string `json:"allow,omitzero"`
	// +optional
	Deny []string `json:"deny,omitzero"`
}

// RowFilter is a boolean expression of the Ossie expression language over
// the fields of Dataset (and of datasets it reaches by many-to-one
// relationships), e.g. `region = {{ caller.region }}`; caller attributes
// are bound as escaped literals, never spliced as SQL.
type RowFilter struct {
	// +required
	Dataset string `json:"dataset"`
	// +required
	Expression string `json:"expression"`
}

// Mask shows a field (`dataset.field`) as NULL (`null`), a fixed text
// (`literal`, with Value), the hex MD5 of its text (`hash`) or its first
// KeepFirst and last KeepLast characters around `****` (`partial`).
type Mask struct {
	// +required
	Field string `json:"field"`
	// Mask is null, literal, hash or partial.
	// +required
	Mask string `json:"mask"`
	// +optional
	Value string `json:"value,omitempty"`
	// +optional
	KeepFirst int32 `json:"keep_first,omitempty"`
	// +optional
	KeepLast int32 `json:"keep_last,omitempty"`
	// AllowAggregates lets metrics over the field compute on unmasked
	// values; otherwise such metrics are hidden from the role.
	// +optional
	AllowAggregates bool `json:"allow_aggregates,omitempty"`
}
